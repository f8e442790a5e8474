import { afterAll, beforeAll, beforeEach, it } from '@jest/globals';
import { createEnvironment, runScan } from './compliance.js';
import { describeEachDatabase } from './databases.js';
import { useTestServer, type TestServer } from './server.js';
import { expect } from './expect.js';
import { WebhookReceiver } from './webhook-receiver.js';

const SECRET = 'webhook-secret-0123456789';

/** Without WEBHOOK_ALLOW_PRIVATE, webhooks never reach the server's own network. */
describeEachDatabase(
  'webhooks to private addresses',
  (db) => {
    const testServer = useTestServer(db, { simulator: { driftRate: 0.3 } });
    let server: TestServer;
    // Nothing in this suite may reach it.
    const receiver = new WebhookReceiver();
    beforeAll(() => receiver.start());
    afterAll(() => receiver.stop());
    beforeEach(() => {
      server = testServer();
    });

    it('refuses a webhook_url on a loopback, private, link-local or other special-purpose address with a 400 saying why, on create and on replace', async () => {
      const body = (webhook_url: string) => ({ name: 'hook', events: ['drift'], environments: ['*'], webhook_url, webhook_secret: SECRET });
      const refused = [
        `http://127.0.0.1:${receiver.port}/hooks`,
        'http://10.0.0.8/hooks',
        'https://172.16.4.2/hooks',
        'http://192.168.1.20/hooks',
        'http://169.254.169.254/latest/meta-data',
        'http://0.0.0.0/hooks',
        'http://[::1]/hooks',
        'http://[fe80::1]/hooks',
        'http://[fd12:3456::1]/hooks',
        'http://[::ffff:127.0.0.1]/hooks',
        'http://[::ffff:a00:1]/hooks',
        // Ranges that reach IPv4 hosts through a translation prefix, and other special-purpose ones.
        'http://[64:ff9b::a9fe:a9fe]/latest/meta-data',
        'http://[2002:a9fe:a9fe::1]/hooks',
        'http://[::ffff:8.8.8.8]/hooks',
        'http://198.18.0.1/hooks',
        'http://192.0.2.1/hooks',
        'http://224.0.0.1/hooks',
        // The URL parser reads these as 127.0.0.1.
        'http://2130706433/hooks',
        'http://0x7f.1/hooks',
      ];
      for (const url of refused) {
        const res = await server.request('POST', '/v0/notifications', { body: body(url) });
        expect(res.status, `${url}: ${res.text}`).toBe(400);
        expect(res.body.message, url).toMatch(/^webhook_url: .* is not a public address .*WEBHOOK_ALLOW_PRIVATE=true/);
      }
      const created = await server.request('POST', '/v0/notifications', { body: body('https://hooks.example.com/compliance') });
      expect(created.status, created.text).toBe(201);
      const replaced = await server.request('PUT', `/v0/notifications/${created.body.notification_id}`, { body: body('http://[::ffff:192.168.0.1]/hooks') });
      expect(replaced.status, replaced.text).toBe(400);
      expect(replaced.body.message).toMatch(/^webhook_url: ::ffff:c0a8:1 is not a public address/);
    });

    it('fails the delivery to a name that resolves to a loopback address, without connecting to it', async () => {
      const env = await createEnvironment(server);
      const created = await server.request('POST', '/v0/notifications', {
        body: { name: 'by name', events: ['drift'], environments: [env.id], webhook_url: `http://localhost:${receiver.port}/hooks`, webhook_secret: SECRET },
      });
      expect(created.status, created.text).toBe(201);
      const first = await runScan(server, env.id);
      await server.request('PATCH', `/v0/environments/${env.id}`, { body: { baseline_id: first.id } });
      await runScan(server, env.id);

      const attempts = await server.request('GET', `/v0/notifications/${created.body.notification_id}/deliveries`);
      expect(attempts.body.items).toHaveLength(1);
      expect(attempts.body.items[0]).toMatchObject({ status: 'failed', http_status: null, error: expect.stringMatching(/^could not reach the webhook: localhost resolves to (127\.0\.0\.1|::1), a private address: .*WEBHOOK_ALLOW_PRIVATE=true/) });
      expect(receiver.requests).toHaveLength(0);
    });
  },
  'suite',
);
