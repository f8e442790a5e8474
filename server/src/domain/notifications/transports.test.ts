import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
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
    let receiver: Server;
    let port = 0;
    let received = 0;
    beforeAll(async () => {
      receiver = createServer((req, res) => {
        received += 1;
        req.resume();
        req.on('end', () => res.end('ok'));
      });
      await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
      port = (receiver.address() as AddressInfo).port;
    });
    afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

    const request = (url: string) => ({ url, secret: 'a-secret-of-sixteen', body: '{}', deliveryId: 'd-1' });

    it('refuses them, by literal address or by the name that resolves to one, before connecting', async () => {
      received = 0;
      const sender = new HttpWebhookSender();
      for (const url of [`http://127.0.0.1:${port}/`, `http://[::ffff:127.0.0.1]:${port}/`, `http://[::ffff:7f00:1]:${port}/`, `http://localhost:${port}/`]) {
        const outcome = await sender.send(request(url));
        expect([url, outcome.ok]).toEqual([url, false]);
        expect(outcome.error).toMatch(/^could not reach the webhook: .*private address: .*WEBHOOK_ALLOW_PRIVATE=true/);
      }
      expect(received).toBe(0);
    });

    it('delivers to them when allowed', async () => {
      received = 0;
      const sender = new HttpWebhookSender({ allowPrivate: true });
      expect(await sender.send(request(`http://127.0.0.1:${port}/`))).toEqual({ ok: true, httpStatus: 200 });
      expect(await sender.send(request(`http://localhost:${port}/`))).toMatchObject({ ok: true });
      expect(received).toBe(2);
    });
  });
});
