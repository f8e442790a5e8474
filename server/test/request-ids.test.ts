import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, it } from '@jest/globals';
import { newId } from '../src/domain/ids.js';
import type { ServiceOptions } from '../src/services.js';
import { createEnvironment, runScan } from './compliance.js';
import { describeEachDatabase } from './databases.js';
import { useTestServer, type TestServer } from './server.js';
import { expect } from './expect.js';
import { WebhookReceiver } from './webhook-receiver.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const FRONTEND = 'http://localhost:5173';

/** One request with exactly these headers, raw: fetch would refuse some of the values sent here. */
function rawGet(url: string, headers: Record<string, string>): Promise<{ status: number; requestId: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { headers }, (res) => {
      res.resume();
      res.once('end', () => resolve({ status: res.statusCode ?? 0, requestId: res.headers['x-request-id'] as string | undefined }));
    });
    req.once('error', reject);
    req.end();
  });
}

describeEachDatabase(
  'request ids (X-Request-Id)',
  (db) => {
    const receiver = new WebhookReceiver();
    const options: ServiceOptions & { corsOrigins: string[] } = { simulator: { driftRate: 0.3 }, notifications: { webhookAllowPrivate: true }, corsOrigins: [FRONTEND] };
    beforeAll(() => receiver.start());
    afterAll(() => receiver.stop());
    const testServer = useTestServer(db, options);
    let server: TestServer;
    beforeEach(() => {
      server = testServer();
    });

    it('keeps an acceptable X-Request-Id and answers with it, on successes and on every kind of error', async () => {
      const cases: Array<{ name: string; method?: string; path: string; auth?: string | null; status: number; headers?: Record<string, string> }> = [
        { name: 'a compliance list', path: '/v0/environments', status: 200 },
        { name: 'missing credentials', path: '/v0/environments', auth: null, status: 401 },
        { name: 'a validator 400', path: '/v0/environments?max_items=0', status: 400 },
        { name: 'an unknown operation of an API', path: '/v0/no-such-thing', status: 404 },
        { name: 'an unknown id', path: `/v0/environments/${newId()}`, status: 404 },
        { name: 'a body that is not JSON', method: 'POST', path: '/v0/environments', status: 400, headers: { 'content-type': 'application/json' } },
        { name: 'the conductor without credentials', path: '/api/v0/accounts', auth: null, status: 401 },
        { name: 'the console without a session', path: '/console/api/session', auth: null, status: 401 },
        { name: 'the liveness probe', path: '/healthz', auth: null, status: 200 },
        { name: 'a path outside every API', path: '/no-such-page', auth: null, status: 404 },
        { name: 'the address of the server', path: '/', auth: null, status: 302 },
      ];
      for (const [index, { name, method = 'GET', path, auth, status, headers }] of cases.entries()) {
        const id = `case-${index}.sent:by_the-client`;
        const res = await fetch(`${server.baseUrl}${path}`, {
          method,
          redirect: 'manual',
          headers: { 'x-request-id': id, ...headers, ...(auth !== null && { authorization: auth ?? server.auth }) },
          ...(method === 'POST' && { body: '{not json' }),
        });
        await res.arrayBuffer();
        expect(res.status, name).toBe(status);
        expect(res.headers.get('x-request-id'), name).toBe(id);
      }
    });

    it('makes a new id (a UUID) when none is sent or the one sent is too long or holds other characters', async () => {
      const longest = 'a'.repeat(128);
      expect((await rawGet(`${server.baseUrl}/healthz`, { 'x-request-id': longest })).requestId).toBe(longest);
      const seen = new Set<string>();
      for (const sent of [undefined, '', 'a'.repeat(129), 'two words', 'semi;colon', 'slash/ed', '<script>', '"quoted"', 'tab\there']) {
        const res = await rawGet(`${server.baseUrl}/v0/environments`, sent === undefined ? {} : { 'x-request-id': sent });
        expect(res.status, JSON.stringify(sent)).toBe(401);
        expect(res.requestId, JSON.stringify(sent)).toMatch(UUID);
        seen.add(res.requestId!);
      }
      expect(seen.size).toBe(9);
    });

    it('answers a CORS preflight with the request id, and lets pages send and read it', async () => {
      const res = await fetch(`${server.baseUrl}/v0/environments`, {
        method: 'OPTIONS',
        headers: { origin: FRONTEND, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization,x-request-id', 'x-request-id': 'preflight-1' },
      });
      expect(res.status).toBe(204);
      expect(res.headers.get('x-request-id')).toBe('preflight-1');
      expect(res.headers.get('access-control-allow-headers')).toContain('X-Request-Id');
    });

    it('sends the id of the request that started a scan on its webhook deliveries; a scan no request started, the delivery’s own id', async () => {
      const env = await createEnvironment(server, { name: 'watched' });
      const created = await server.request('POST', '/v0/notifications', {
        body: { name: 'drift hook', events: ['drift'], environments: [env.id], webhook_url: receiver.url, webhook_secret: 'webhook-secret-0123456789' },
      });
      expect(created.status, created.text).toBe(201);
      const notificationId = created.body.notification_id as string;
      const baseline = await runScan(server, env.id as string);
      expect((await server.request('PATCH', `/v0/environments/${env.id}`, { body: { baseline_id: baseline.id } })).status).toBe(200);

      const started = await server.request('POST', `/v0/scans?environment_id=${env.id}`, { headers: { 'x-request-id': 'scan-started-by-ci-42' } });
      expect(started.status, started.text).toBe(201);
      expect(started.headers.get('x-request-id')).toBe('scan-started-by-ci-42');
      while (await server.services.jobs.runOnce());
      const [delivered] = receiver.of(notificationId);
      expect(delivered?.body.scan_id).toBe(started.body.id);
      expect(delivered!.headers['x-request-id']).toBe('scan-started-by-ci-42');

      // As the scheduler starts a scan: no request behind it.
      const scheduled = await server.services.scans.start(server.orgId, env.id as string);
      while (await server.services.jobs.runOnce());
      const fromSchedule = receiver.of(notificationId).find((r) => r.body.scan_id === scheduled.id);
      expect(fromSchedule, 'a delivery of the scheduled scan').toBeDefined();
      expect(fromSchedule!.headers['x-request-id']).toBe(fromSchedule!.headers['x-delivery-id']);
    });
  },
  'suite',
);
