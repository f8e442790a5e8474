import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, beforeEach, it } from '@jest/globals';
import { NOTIFICATION_DELIVERY_JOB } from '../src/domain/notifications/service.js';
import { SCAN_JOB } from '../src/domain/scans/service.js';
import { createEnvironment, runScan } from './compliance.js';
import { describeEachDatabase } from './databases.js';
import { useTestServer, type TestServer } from './server.js';
import { expect } from './expect.js';
import { listenInProcess } from './in-process-server.js';

/**
 * A scan job that runs again after its scan was already recorded as successful (its process died right after)
 * sends the notifications that were never queued, and never queues a notification of a scan twice.
 */
describeEachDatabase(
  'notifications after a crash',
  (db) => {
    // The receiver listens on 127.0.0.1, which webhooks may reach only with the allowance.
    const testServer = useTestServer(db, { simulator: { driftRate: 0.3 }, notifications: { webhookAllowPrivate: true } });
    let server: TestServer;
    let receiver: Server;
    let received = 0;
    let url = '';
    beforeAll(async () => {
      receiver = createServer((req, res) => {
        req.resume();
        req.on('end', () => {
          received += 1;
          res.end('ok');
        });
      });
      url = `${await listenInProcess(receiver)}/hook`;
    });
    afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));
    beforeEach(() => {
      server = testServer();
      received = 0;
    });

    it('a retried scan job delivers what was never queued, once', async () => {
      const env = await createEnvironment(server);
      const first = await runScan(server, env.id);
      await server.request('PATCH', `/v0/environments/${env.id}`, { body: { baseline_id: first.id } });
      const second = await runScan(server, env.id);
      // The notification exists only now, as if the process had died before queuing this scan's deliveries.
      const created = await server.request('POST', '/v0/notifications', {
        body: { name: 'drift', events: ['drift'], environments: [env.id], webhook_url: url, webhook_secret: 'a-secret-of-sixteen-chars' },
      });
      expect(created.status, created.text).toBe(201);
      expect(received).toBe(0);

      for (let retry = 0; retry < 2; retry += 1) {
        await server.services.jobs.enqueue(SCAN_JOB, { orgId: server.orgId, scanId: second.id });
        while (await server.services.jobs.runOnce());
      }
      expect(received).toBe(1);
      const deliveries = await server.request('GET', `/v0/notifications/${created.body.notification_id}/deliveries`);
      expect(deliveries.body.items.map((d: any) => [d.scan_id, d.status])).toEqual([[second.id, 'succeeded']]);
    });

    it('a delivery job run again after its success was recorded (its worker died before finishing the job) sends nothing', async () => {
      const env = await createEnvironment(server);
      const first = await runScan(server, env.id);
      await server.request('PATCH', `/v0/environments/${env.id}`, { body: { baseline_id: first.id } });
      const created = await server.request('POST', '/v0/notifications', {
        body: { name: 'drift', events: ['drift'], environments: [env.id], webhook_url: url, webhook_secret: 'a-secret-of-sixteen-chars' },
      });
      expect(created.status, created.text).toBe(201);
      await runScan(server, env.id);
      while (await server.services.jobs.runOnce());
      expect(received).toBe(1);

      // The job's own row still says running, as a worker killed after recording the success leaves it.
      const { db } = server.services.database;
      const job = await db.selectFrom('jobs').select('id').where('kind', '=', NOTIFICATION_DELIVERY_JOB).executeTakeFirstOrThrow();
      await db.updateTable('jobs').set({ status: 'queued', run_at: 0, lease_owner: null }).where('id', '=', job.id).execute();
      while (await server.services.jobs.runOnce());
      expect(received).toBe(1);
      const deliveries = await server.request('GET', `/v0/notifications/${created.body.notification_id}/deliveries`);
      expect(deliveries.body.items.map((d: any) => d.status)).toEqual(['succeeded']);
    });
  },
  'suite',
);
