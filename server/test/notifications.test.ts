import { createHmac } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, it } from '@jest/globals';
import { newId } from '../src/domain/ids.js';
import type { ServiceOptions } from '../src/services.js';
import { nextAccount, runScan } from './compliance.js';
import { describeEachDatabase } from './databases.js';
import { useTestServer, type TestServer } from './server.js';
import { expect } from './expect.js';
import { WebhookReceiver } from './webhook-receiver.js';
import { SmtpSink } from './smtp-sink.js';

const SECRET = 'webhook-secret-0123456789';

/** Each environment gets an account of its own, so inventories and drift never leak between tests. */

const signature = (body: string, secret = SECRET) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

describeEachDatabase(
  'notifications API and deliveries',
  (db) => {
    const receiver = new WebhookReceiver();
    const sink = new SmtpSink();
    // Filled in once the sink listens, before the server starts: hooks run in the order they are declared.
    const options: ServiceOptions = { simulator: { driftRate: 0.3 } };
    beforeAll(async () => {
      await Promise.all([receiver.start(), sink.start()]);
      // The receiver listens on 127.0.0.1, which webhooks may reach only with the allowance.
      options.notifications = { smtpUrl: sink.url, smtpFrom: 'Compliance <alerts@compliance.test>', webhookAllowPrivate: true };
    });
    afterAll(async () => {
      await Promise.all([receiver.stop(), sink.stop()]);
    });
    const testServer = useTestServer(db, options);
    let server: TestServer;
    beforeEach(() => {
      server = testServer();
      receiver.answers = [];
    });

    const clientId = () => Buffer.from(server.auth.slice('Basic '.length), 'base64').toString().split(':')[0];

    const createEnvironment = async (name = 'production-us') => {
      const res = await server.request('POST', '/v0/environments', {
        body: {
          name,
          provider: 'provider_a',
          provider_options: { provider_a: { role_arn: `arn:prova:iam::${nextAccount()}:role/scanner`, regions: ['*'] } },
          compliance_families: ['CIS', 'NIST'],
        },
      });
      expect(res.status, res.text).toBe(201);
      return res.body as { id: string; name: string };
    };

    const createNotification = async (body: Record<string, unknown>) => {
      const res = await server.request('POST', '/v0/notifications', { body });
      expect(res.status, res.text).toBe(201);
      return res.body as Record<string, any>;
    };

    const expectInvalid = async (method: string, path: string, body: unknown, message: RegExp) => {
      const res = await server.request(method, path, { body });
      expect(res.status, res.text).toBe(400);
      expect(res.body).toEqual({ type: expect.stringMatching(/^(InvalidParameterValue|MissingParameter|BadRequest)$/), code: 400, message: expect.stringMatching(message) });
    };

    /** Starts a scan through the API and runs every job that is due: the scan, then its deliveries. */
    const scan = async (environmentId: string) => {
      const finished = await runScan(server, environmentId);
      expect(finished.status).toBe('SUCCESS');
      return finished as { id: string };
    };

    /** A first scan made the baseline, then a second scan: that one records DRIFT (and COMPLIANCE) events. */
    const scanWithDrift = async (environmentId: string) => {
      const first = await scan(environmentId);
      const patched = await server.request('PATCH', `/v0/environments/${environmentId}`, { body: { baseline_id: first.id } });
      expect(patched.status, patched.text).toBe(200);
      return scan(environmentId);
    };

    const eventsOf = async (environmentId: string, scanId: string) => {
      const res = await server.request('GET', `/v0/events?environment_id=${environmentId}&max_items=1000`);
      return (res.body.items as any[]).filter((e) => e.scan_id === scanId);
    };

    const deliveries = async (notificationId: string) => {
      const res = await server.request('GET', `/v0/notifications/${notificationId}/deliveries?max_items=1000`);
      expect(res.status, res.text).toBe(200);
      return res.body.items as any[];
    };

    const notificationNamed = async (id: string) => {
      const res = await server.request('GET', '/v0/notifications?max_items=1000');
      return (res.body.items as any[]).find((n) => n.notification_id === id);
    };

    describe('create, list, replace and delete', () => {
      it('creates a notification and shows its environments as id-to-name maps, never the secret', async () => {
        const env = await createEnvironment('production-us');
        const created = await createNotification({
          name: 'Production drift',
          events: ['drift', 'remediation'],
          environments: [env.id.toUpperCase()],
          emails: ['secops@example.com'],
          webhook_url: 'https://hooks.example.com/compliance',
          webhook_secret: SECRET,
        });
        const now = server.clock.nowSeconds();
        expect(created).toEqual({
          notification_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
          name: 'Production drift',
          events: ['drift', 'remediation'],
          environments: [{ [env.id]: 'production-us' }],
          emails: ['secops@example.com'],
          webhook_url: 'https://hooks.example.com/compliance',
          created_at: now,
          created_by: clientId(),
          updated_at: now,
          updated_by: clientId(),
          last_error: null,
          last_delivery_at: null,
        });
        expect(JSON.stringify(created)).not.toContain(SECRET);
        expect(await notificationNamed(created.notification_id)).toEqual(created);
      });

      it('watches every environment with ["*"], shown as {"*": "All environments"}', async () => {
        const created = await createNotification({ name: 'Everything', events: ['compliance'], environments: ['*'], emails: ['audit@example.com'] });
        expect(created).toMatchObject({ environments: [{ '*': 'All environments' }], webhook_url: null });
      });

      it('lists notifications oldest first, page by page', async () => {
        const ids: string[] = [];
        for (const name of ['first', 'second', 'third']) {
          ids.push((await createNotification({ name, events: ['drift'], environments: ['*'], emails: ['a@example.com'] })).notification_id);
          server.clock.advanceSeconds(10);
        }
        const all = await server.request('GET', '/v0/notifications');
        expect(all.body).toMatchObject({ count: 3, is_truncated: false });
        expect(all.body.items.map((n: any) => n.notification_id)).toEqual(ids);
        expect(all.body).not.toHaveProperty('next_offset');
        const page = await server.request('GET', '/v0/notifications?max_items=2');
        expect(page.body).toMatchObject({ count: 2, is_truncated: true, next_offset: 2 });
        const rest = await server.request('GET', '/v0/notifications?offset=2&max_items=2');
        expect(rest.body.items.map((n: any) => n.notification_id)).toEqual([ids[2]]);
      });

      it('refuses environment ids that name no environment of the organization, naming the id', async () => {
        const env = await createEnvironment();
        const unknown = newId();
        await expectInvalid('POST', '/v0/notifications', { name: 'n', events: ['drift'], environments: [env.id, unknown], emails: ['a@example.com'] }, new RegExp(`^environments\\[1\\]: environment ${unknown} does not exist`));
        // Another organization's environment is unknown here too.
        await server.useNewTenant();
        await expectInvalid('POST', '/v0/notifications', { name: 'n', events: ['drift'], environments: [env.id], emails: ['a@example.com'] }, new RegExp(env.id));
      });

      it('refuses inputs that break the documented rules', async () => {
        const base = { name: 'n', events: ['drift'], environments: ['*'], emails: ['a@example.com'] };
        const post = (body: Record<string, unknown>, message: RegExp) => expectInvalid('POST', '/v0/notifications', body, message);
        await post({ ...base, environments: ['*', newId()] }, /^environments: '\*' stands for all environments and must be the only entry$/);
        await post({ ...base, emails: [] }, /^emails: or webhook_url is required/);
        await post({ name: 'n', events: ['drift'], environments: ['*'] }, /^emails: or webhook_url is required/);
        await post({ ...base, webhook_url: 'https://hooks.example.com/x' }, /^webhook_secret: is required with webhook_url/);
        await post({ ...base, webhook_url: 'https://hooks.example.com/x', webhook_secret: 'too-short' }, /^webhook_secret: must NOT have fewer than 16 characters$/);
        await post({ ...base, webhook_url: 'ftp://hooks.example.com/x', webhook_secret: SECRET }, /^webhook_url: must match pattern/);
        await post({ ...base, events: ['DRIFT'] }, /^events\[0\]: must be equal to one of the allowed values/);
        await post({ ...base, events: [] }, /^events: must NOT have fewer than 1 items$/);
        await post({ ...base, name: '   ' }, /^name: must not be blank$/);
        await post({ ...base, emails: ['not-an-address'] }, /^emails\[0\]: must match format "email"$/);
        await post({ ...base, topic_arn: 'arn:x' }, /topic_arn/);
      });

      it('replaces every field on PUT, keeps the stored webhook secret when none is sent, and drops it with the webhook', async () => {
        const [a, b] = [await createEnvironment('a-env'), await createEnvironment('b-env')];
        const created = await createNotification({
          name: 'before',
          events: ['drift'],
          environments: [a.id],
          emails: ['a@example.com'],
          webhook_url: receiver.url,
          webhook_secret: SECRET,
        });
        const id = created.notification_id;
        server.clock.advanceSeconds(60);
        const replaced = await server.request('PUT', `/v0/notifications/${id}`, {
          body: { name: 'after', events: ['compliance', 'remediation'], environments: [b.id, a.id], webhook_url: `${receiver.url}?v=2` },
        });
        expect(replaced.status, replaced.text).toBe(200);
        expect(replaced.body).toEqual({
          ...created,
          name: 'after',
          events: ['compliance', 'remediation'],
          environments: [{ [a.id]: 'a-env' }, { [b.id]: 'b-env' }],
          emails: [],
          webhook_url: `${receiver.url}?v=2`,
          updated_at: created.created_at + 60,
        });
        expect(await notificationNamed(id)).toEqual(replaced.body);
        // Deliveries go to the new URL, still signed with the secret given at creation.
        await scanWithDrift(a.id);
        const [request] = receiver.of(id);
        expect(request!.body.events.every((e: any) => e.event_type === 'COMPLIANCE')).toBe(true);
        expect(request!.headers['x-signature-256']).toBe(signature(request!.raw));
        expect((await deliveries(id))[0]).toMatchObject({ target: `${receiver.url}?v=2`, status: 'succeeded' });

        const withoutWebhook = await server.request('PUT', `/v0/notifications/${id}`, {
          body: { name: 'after', events: ['drift'], environments: ['*'], emails: ['b@example.com'] },
        });
        expect(withoutWebhook.body).toMatchObject({ webhook_url: null, emails: ['b@example.com'], environments: [{ '*': 'All environments' }] });
        // The secret went with the webhook: a new webhook needs a new secret.
        await expectInvalid('PUT', `/v0/notifications/${id}`, { name: 'x', events: ['drift'], environments: ['*'], webhook_url: receiver.url }, /^webhook_secret: is required/);
        await expectInvalid('PUT', `/v0/notifications/${id}`, { name: 'x', events: ['drift'], environments: [newId()], emails: ['a@example.com'] }, /does not exist/);
      });

      it('deletes a notification; unknown ids and other organizations’ notifications are 404', async () => {
        const created = await createNotification({ name: 'n', events: ['drift'], environments: ['*'], emails: ['a@example.com'] });
        const id = created.notification_id;
        const body = { name: 'n', events: ['drift'], environments: ['*'], emails: ['a@example.com'] };

        await server.useNewTenant();
        for (const [method, path, payload] of [
          ['PUT', `/v0/notifications/${id}`, body],
          ['DELETE', `/v0/notifications/${id}`, undefined],
          ['GET', `/v0/notifications/${id}/deliveries`, undefined],
        ] as const) {
          const res = await server.request(method, path, { body: payload });
          expect(res.status, `${method} ${path}`).toBe(404);
          expect(res.body).toEqual({ type: 'NotFound', code: 404, message: `notification ${id} not found` });
        }
        expect((await server.request('GET', '/v0/notifications')).body.items).toEqual([]);
        expect((await server.request('DELETE', `/v0/notifications/${newId()}`)).status).toBe(404);
      });

      it('deletes for good, and drops a deleted environment from the notifications that watched it', async () => {
        const [a, b] = [await createEnvironment('a-env'), await createEnvironment('b-env')];
        const created = await createNotification({ name: 'n', events: ['drift'], environments: [a.id, b.id], emails: ['a@example.com'] });
        expect((await server.request('DELETE', `/v0/environments/${a.id}`)).status).toBe(204);
        expect((await notificationNamed(created.notification_id)).environments).toEqual([{ [b.id]: 'b-env' }]);

        const deleted = await server.request('DELETE', `/v0/notifications/${created.notification_id}`);
        expect(deleted.status).toBe(204);
        expect(deleted.text).toBe('');
        expect(await notificationNamed(created.notification_id)).toBeUndefined();
        expect((await server.request('DELETE', `/v0/notifications/${created.notification_id}`)).status).toBe(404);
      });
    });

    describe('webhook deliveries', () => {
      it('POSTs the scan’s events of the watched kinds, signed with the secret, retrying a failed attempt after a backoff', async () => {
        const env = await createEnvironment();
        const notification = await createNotification({ name: 'drift hook', events: ['drift'], environments: [env.id], webhook_url: receiver.url, webhook_secret: SECRET });
        const id = notification.notification_id;
        receiver.answers = [500];

        const drifted = await scanWithDrift(env.id);
        // The first scan recorded no events, so only the second one delivered; its first attempt got a 500.
        expect(receiver.of(id)).toHaveLength(1);
        const [failedAttempt] = await deliveries(id);
        expect(failedAttempt).toMatchObject({
          notification_id: id,
          scan_id: drifted.id,
          environment_id: env.id,
          transport: 'webhook',
          target: receiver.url,
          attempt: 1,
          status: 'failed',
          will_retry: true,
          http_status: 500,
          smtp_response: null,
          error: 'HTTP 500 Internal Server Error',
          attempted_at: server.clock.nowSeconds(),
        });
        // A failure that will be retried is not the notification's last error yet.
        expect(await notificationNamed(id)).toMatchObject({ last_error: null, last_delivery_at: server.clock.nowSeconds() });

        // The retry waits for its backoff (one second for the first retry).
        server.clock.advanceSeconds(0.5);
        expect(await server.services.jobs.runOnce()).toBeUndefined();
        server.clock.advanceSeconds(0.5);
        expect(await server.services.jobs.runOnce()).toBeDefined();
        expect(await server.services.jobs.runOnce()).toBeUndefined();

        const requests = receiver.of(id);
        expect(requests).toHaveLength(2);
        for (const request of requests) {
          expect(request.headers['content-type']).toBe('application/json');
          expect(request.headers['x-signature-256']).toBe(signature(request.raw));
          expect(request.headers['x-signature-256']).not.toBe(signature(request.raw, 'another-secret-0123456789'));
        }
        expect(requests[1]!.raw).toBe(requests[0]!.raw);
        expect(requests[1]!.headers['x-delivery-id']).toBe(requests[0]!.headers['x-delivery-id']);

        const drift = (await eventsOf(env.id, drifted.id)).filter((e) => e.event_type === 'DRIFT');
        expect(drift.length).toBeGreaterThan(0);
        const body = requests[0]!.body;
        expect(Object.keys(body).sort()).toEqual(['environment_id', 'events', 'notification_id', 'scan_id']);
        expect(body).toMatchObject({ notification_id: id, environment_id: env.id, scan_id: drifted.id });
        // Every DRIFT event of the scan, nothing else (the scan also recorded COMPLIANCE events), as GET /events shows them.
        expect(body.events.map((e: any) => e.id).sort()).toEqual(drift.map((e) => e.id).sort());
        expect(body.events.find((e: any) => e.id === drift[0].id)).toEqual(drift[0]);

        const attempts = await deliveries(id);
        expect(attempts.map((a) => [a.attempt, a.status, a.will_retry, a.http_status])).toEqual([
          [2, 'succeeded', false, 200],
          [1, 'failed', true, 500],
        ]);
        expect(new Set(attempts.map((a) => a.delivery_id))).toEqual(new Set([requests[0]!.headers['x-delivery-id']]));
        expect(attempts[0].error).toBeNull();
        expect(await notificationNamed(id)).toMatchObject({ last_error: null, last_delivery_at: server.clock.nowSeconds() });
      });

      it('gives up after 5 attempts and keeps the last error on the notification; a later success clears it', async () => {
        const env = await createEnvironment();
        const notification = await createNotification({ name: 'down', events: ['drift'], environments: ['*'], webhook_url: receiver.url, webhook_secret: SECRET });
        const id = notification.notification_id;
        receiver.answers = [500, 503, 500, 502, 500];

        await scanWithDrift(env.id);
        for (let retry = 1; retry < 5; retry += 1) {
          server.clock.advanceSeconds(2 ** (retry - 1));
          expect(await server.services.jobs.runOnce(), `retry ${retry}`).toBeDefined();
        }
        server.clock.advanceSeconds(3600);
        expect(await server.services.jobs.runOnce()).toBeUndefined();

        expect(receiver.of(id)).toHaveLength(5);
        const attempts = await deliveries(id);
        expect(attempts.map((a) => [a.attempt, a.status, a.will_retry, a.http_status])).toEqual([
          [5, 'failed', false, 500],
          [4, 'failed', true, 502],
          [3, 'failed', true, 500],
          [2, 'failed', true, 503],
          [1, 'failed', true, 500],
        ]);
        const failed = await notificationNamed(id);
        expect(failed.last_error).toBe('webhook: HTTP 500 Internal Server Error (gave up after 5 attempts)');

        // The next scan's delivery succeeds and clears the error.
        await scan(env.id);
        expect(receiver.of(id)).toHaveLength(6);
        expect(await notificationNamed(id)).toMatchObject({ last_error: null, last_delivery_at: server.clock.nowSeconds() });
        expect((await deliveries(id)).length).toBe(6);
      });

      it('pages the recorded attempts newest first', async () => {
        const env = await createEnvironment();
        const { notification_id: id } = await createNotification({ name: 'paged', events: ['drift'], environments: [env.id], webhook_url: receiver.url, webhook_secret: SECRET });
        receiver.answers = [500, 500];
        await scanWithDrift(env.id);
        for (const wait of [1, 2]) {
          server.clock.advanceSeconds(wait);
          await server.services.jobs.runOnce();
        }
        const page = await server.request('GET', `/v0/notifications/${id}/deliveries?max_items=2`);
        expect(page.body).toMatchObject({ count: 2, is_truncated: true, next_offset: 2 });
        expect(page.body.items.map((a: any) => a.attempt)).toEqual([3, 2]);
        const rest = await server.request('GET', `/v0/notifications/${id}/deliveries?offset=2`);
        expect(rest.body).toMatchObject({ count: 1, is_truncated: false });
        expect(rest.body.items[0].attempt).toBe(1);
      });

      it('records an unreachable webhook as a failed attempt without an HTTP status', async () => {
        const env = await createEnvironment();
        // A port that was free a moment ago: nothing listens there, so the connection is refused.
        const closed = createServer();
        await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
        const port = (closed.address() as AddressInfo).port;
        await new Promise((resolve) => closed.close(resolve));
        const { notification_id: id } = await createNotification({ name: 'nowhere', events: ['drift'], environments: [env.id], webhook_url: `http://127.0.0.1:${port}/hooks`, webhook_secret: SECRET });
        await scanWithDrift(env.id);
        const [attempt] = await deliveries(id);
        expect(attempt).toMatchObject({ attempt: 1, status: 'failed', will_retry: true, http_status: null, error: expect.stringMatching(/^could not reach the webhook: /) });
      });

      it('drops the deliveries of a deleted notification that are still waiting for a retry', async () => {
        const env = await createEnvironment();
        const { notification_id: id } = await createNotification({ name: 'deleted', events: ['drift'], environments: [env.id], webhook_url: receiver.url, webhook_secret: SECRET });
        receiver.answers = [500];
        await scanWithDrift(env.id);
        expect(receiver.of(id)).toHaveLength(1);
        expect((await server.request('DELETE', `/v0/notifications/${id}`)).status).toBe(204);
        server.clock.advanceSeconds(60);
        while (await server.services.jobs.runOnce());
        expect(receiver.of(id)).toHaveLength(1);
      });
    });

    describe('email deliveries', () => {
      it('mails the recipients through the SMTP server: the kinds of events in the subject, their counts and the scan in the text', async () => {
        const env = await createEnvironment('billing-eu');
        const recipients = [`ops-${newId()}@example.com`, `audit-${newId()}@example.com`];
        const { notification_id: id } = await createNotification({ name: 'Billing changes', events: ['drift', 'compliance'], environments: [env.id], emails: recipients });

        const drifted = await scanWithDrift(env.id);
        const events = await eventsOf(env.id, drifted.id);
        const count = (type: string) => events.filter((e) => e.event_type === type).length;
        expect(count('DRIFT')).toBeGreaterThan(0);
        expect(count('COMPLIANCE')).toBeGreaterThan(0);

        // The first scan recorded no events: one message in all, for the second scan.
        const messages = sink.to(recipients[0]!);
        expect(messages).toHaveLength(1);
        const mail = messages[0]!;
        expect(mail.to.sort()).toEqual([...recipients].sort());
        expect(mail.from).toBe('alerts@compliance.test');
        expect(mail.headers.get('subject')).toBe('[compliance] DRIFT, COMPLIANCE events in billing-eu');
        expect(mail.text).toContain(`The scan ${drifted.id} of environment billing-eu (${env.id}),`);
        expect(mail.text).toContain(`  DRIFT: ${count('DRIFT')} event`);
        expect(mail.text).toContain(`  COMPLIANCE: ${count('COMPLIANCE')} event`);
        expect(mail.text).not.toContain('REMEDIATION');
        expect(mail.text).toContain(`notification Billing changes (${id})`);

        const [attempt] = await deliveries(id);
        expect(attempt).toMatchObject({
          transport: 'email',
          target: recipients.join(', '),
          attempt: 1,
          status: 'succeeded',
          will_retry: false,
          http_status: null,
          smtp_response: expect.stringMatching(/^250 /),
          error: null,
        });
      });

      it('records the SMTP server’s refusal as a failed attempt with its answer', async () => {
        const env = await createEnvironment();
        const { notification_id: id } = await createNotification({ name: 'refused', events: ['drift'], environments: [env.id], emails: [`refused-${newId()}@example.com`] });
        await scanWithDrift(env.id);
        const [attempt] = await deliveries(id);
        expect(attempt).toMatchObject({ transport: 'email', status: 'failed', will_retry: true, smtp_response: expect.stringMatching(/^550 /), error: expect.stringMatching(/550/) });
      });
    });

    describe('which notifications a scan triggers', () => {
      it('triggers only the notifications that watch the scanned environment and a kind of event the scan recorded', async () => {
        const [a, b] = [await createEnvironment('a-env'), await createEnvironment('b-env')];
        const hook = { webhook_url: receiver.url, webhook_secret: SECRET };
        const named = async (name: string, events: string[], environments: string[]) =>
          (await createNotification({ name, events, environments, ...hook })).notification_id as string;
        const driftOfA = await named('drift of a', ['drift'], [a.id]);
        const driftOfB = await named('drift of b', ['drift'], [b.id]);
        const driftOfAll = await named('drift of all', ['drift'], ['*']);
        const remediationOfAll = await named('remediation of all', ['remediation'], ['*']);
        const complianceOfAOrB = await named('compliance of a or b', ['compliance'], [b.id, a.id]);

        const drifted = await scanWithDrift(a.id);
        const kinds = (id: string) => receiver.of(id).map((r) => [...new Set(r.body.events.map((e: any) => e.event_type))]);
        expect(kinds(driftOfA)).toEqual([['DRIFT']]);
        expect(kinds(driftOfAll)).toEqual([['DRIFT']]);
        expect(kinds(complianceOfAOrB)).toEqual([['COMPLIANCE']]);
        // Remediation is off, so the scan recorded no REMEDIATION event; b was not scanned.
        expect(receiver.of(remediationOfAll)).toEqual([]);
        expect(receiver.of(driftOfB)).toEqual([]);
        for (const id of [driftOfA, driftOfAll, complianceOfAOrB]) expect(receiver.of(id)[0]!.body.scan_id).toBe(drifted.id);
        expect(await deliveries(driftOfB)).toEqual([]);

        // Another organization's notifications for all environments see nothing of this one.
        await server.useNewTenant();
        const elsewhere = await named('drift elsewhere', ['drift'], ['*']);
        await server.useNewTenant();
        const c = await createEnvironment('c-env');
        await scanWithDrift(c.id);
        expect(receiver.of(elsewhere)).toEqual([]);
      });
    });
  },
  'suite',
);
