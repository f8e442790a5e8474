import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { WebhookReceiver } from '../../../test/webhook-receiver.js';
import { HttpWebhookSender, NO_SMTP_SERVER, SmtpEmailSender, webhookSignature } from './transports.js';

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

  describe('webhooks to private addresses', () => {
    const receiver = new WebhookReceiver();
    beforeAll(() => receiver.start());
    afterAll(() => receiver.stop());

    const request = (url: string) => ({ url, secret: 'a-secret-of-sixteen', body: '{}', deliveryId: 'd-1', requestId: 'r-1' });

    it('refuses them, by literal address or by the name that resolves to one, before connecting', async () => {
      const sender = new HttpWebhookSender();
      for (const url of [`http://127.0.0.1:${receiver.port}/`, `http://[::ffff:127.0.0.1]:${receiver.port}/`, `http://[::ffff:7f00:1]:${receiver.port}/`, `http://localhost:${receiver.port}/`]) {
        const outcome = await sender.send(request(url));
        expect([url, outcome.ok]).toEqual([url, false]);
        expect(outcome.error).toMatch(/^could not reach the webhook: .*private address: .*WEBHOOK_ALLOW_PRIVATE=true/);
      }
      expect(receiver.requests).toHaveLength(0);
    });

    it('delivers to them when allowed', async () => {
      const sender = new HttpWebhookSender({ allowPrivate: true });
      expect(await sender.send(request(`http://127.0.0.1:${receiver.port}/`))).toEqual({ ok: true, httpStatus: 200 });
      expect(await sender.send(request(`http://localhost:${receiver.port}/`))).toMatchObject({ ok: true });
      expect(receiver.requests).toHaveLength(2);
      expect(receiver.requests[0]!.headers['x-request-id']).toBe('r-1');
    });
  });
});
