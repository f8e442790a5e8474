import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  from: string;
  to: string[];
  headers: Map<string, string>;
  text: string;
}

/**
 * An SMTP sink on 127.0.0.1 that keeps every message, and refuses recipients whose address starts with `refused`:
 * what email notifications and invitations are sent to in the tests.
 */
export class SmtpSink {
  readonly messages: ReceivedMail[] = [];
  url = '';
  private readonly server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onRcptTo(address, _session, callback) {
      if (!address.address.startsWith('refused')) return callback();
      callback(Object.assign(new Error('mailbox unavailable'), { responseCode: 550 }));
    },
    onData: (stream, session, callback) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        this.messages.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          ...parseMessage(Buffer.concat(chunks).toString('utf8')),
        });
        callback();
      });
    },
  });

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', () => resolve()));
    this.url = `smtp://127.0.0.1:${(this.server.server.address() as AddressInfo).port}`;
  }

  to(address: string): ReceivedMail[] {
    return this.messages.filter((m) => m.to.includes(address));
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** Headers (unfolded) and the text body, decoded when it is quoted-printable. */
export function parseMessage(raw: string): { headers: Map<string, string>; text: string } {
  const split = raw.indexOf('\r\n\r\n');
  const headers = new Map<string, string>();
  for (const line of raw.slice(0, split).replace(/\r\n[ \t]+/g, ' ').split('\r\n')) {
    const colon = line.indexOf(':');
    headers.set(line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim());
  }
  let text = raw.slice(split + 4);
  if (/quoted-printable/i.test(headers.get('content-transfer-encoding') ?? '')) {
    text = Buffer.from(
      text.replace(/=\r\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))),
      'latin1',
    ).toString('utf8');
  }
  return { headers, text: text.replace(/\r\n/g, '\n') };
}

/** The token of the invitation link in an email's text (`…/console/invitation#<token>`), and the link. */
export function invitationLink(text: string): { link: string; token: string } {
  const match = /(\S+\/console\/invitation#([A-Za-z0-9_-]{43}))(?:\s|$)/.exec(text);
  if (!match) throw new Error(`no invitation link in:\n${text}`);
  return { link: match[1]!, token: match[2]! };
}
