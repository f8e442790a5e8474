import { describe, expect, it } from '@jest/globals';
import { NO_SMTP_SERVER, SmtpEmailSender, webhookSignature } from './transports.js';

describe('notification transports', () => {
  it('signs a webhook body as sha256=<hex HMAC-SHA256 of the raw body>', () => {
    // RFC 4231 test case 2: key "Jefe", data "what do ya want for nothing?".
    expect(webhookSignature('Jefe', 'what do ya want for nothing?')).toBe(
      'sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
    );
  });

  it('fails every email with a message saying so when no SMTP server is configured', async () => {
    const outcome = await new SmtpEmailSender({}).send({ to: ['a@example.com'], subject: 's', text: 't' });
    expect(outcome).toEqual({ ok: false, error: 'no SMTP server configured (SMTP_URL)' });
    expect(NO_SMTP_SERVER).toBe('no SMTP server configured (SMTP_URL)');
  });
});
