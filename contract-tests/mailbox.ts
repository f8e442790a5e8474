import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { SMTPServer } from 'smtp-server';
import { invitationLink, parseMessage } from '../server/test/smtp-sink.js';

/**
 * The contract run's SMTP server: the server under test sends its email here (SMTP_URL), and every message is
 * appended to a file, one JSON object `{to, text}` a line, where the Dredd hooks (another process) and the parity
 * fixtures find the invitation links they need.
 */
export class MailboxFile {
  url = '';
  private readonly server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData: (stream, session, callback) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const { text } = parseMessage(Buffer.concat(chunks).toString('utf8'));
        appendFileSync(this.file, `${JSON.stringify({ to: session.envelope.rcptTo.map((r) => r.address), text })}\n`);
        callback();
      });
    },
  });

  constructor(readonly file: string) {}

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', () => resolve()));
    this.url = `smtp://127.0.0.1:${(this.server.server.address() as AddressInfo).port}`;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** The token of the latest invitation link emailed to `email`, waiting for the email up to `timeoutMs`. */
export async function invitationTokenIn(file: string, email: string, timeoutMs = 30_000): Promise<string> {
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await sleep(100)) {
    const mails = existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as { to: string[]; text: string }) : [];
    const mail = mails.filter((m) => m.to.includes(email)).at(-1);
    if (mail) return invitationLink(mail.text).token;
  }
  throw new Error(`no invitation email to ${email} within ${timeoutMs / 1000} s (mailbox ${file})`);
}
