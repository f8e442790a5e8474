import { afterAll, afterEach, beforeAll, describe, it, jest } from '@jest/globals';
import { INVITE_DELIVERY_ATTEMPTS, INVITE_DELIVERY_JOB, InvitationService } from '../src/domain/access/invitations.js';
import { DRY_RUN_JOB, DryRunService } from '../src/domain/conductor/dry-runs.js';
import { PROCESS_JOB } from '../src/domain/conductor/lifecycle.js';
import { ProcessJobRunner } from '../src/domain/conductor/process-jobs.js';
import { NOTIFICATION_DELIVERY_JOB, NotificationService } from '../src/domain/notifications/service.js';
import { ScanRunner } from '../src/domain/scans/runner.js';
import { SCAN_JOB } from '../src/domain/scans/service.js';
import { createEnvironment, runScan } from './compliance.js';
import { compositionTar, conductorClient, WEB_RESOURCES } from './conductor.js';
import { describeEachDatabase, type TestDatabase } from './databases.js';
import { expect } from './expect.js';
import { abandonNextJob, useTestServer, type TestServer, type TestServerOptions } from './server.js';
import { SmtpSink } from './smtp-sink.js';
import { WebhookReceiver } from './webhook-receiver.js';

/**
 * Every kind of job, given up, leaves what it worked on finished with the reason, and whatever waited on it takes
 * new work at once: a scan ends ERROR and its environment takes the next scan, a dry-run ends FAILED, a process job
 * ends failed and its process and account take new changes, a delivery is recorded failed on its notification, an
 * invite whose email was given up expires with the reason and its address may be invited again.
 * A job is given up when every attempt's worker vanished (each lease ran out with the job unfinished), or when its
 * last attempt failed; and should the worker giving it up die before settling, the next one settles it.
 */

/** Longer than any lease or retry backoff of the queue: whatever waits on time is due after it. */
const LATER_SECONDS = 3_600;

/** What one kind of job works on, and how a test looks at it. */
interface Work {
  /** The kind's attempts, each of which a vanished worker may use up. */
  attempts: number;
  /** The id of the work's job, once started. */
  jobId(): Promise<string>;
  /** Starts the work through the API; leaves its job due and not yet run. */
  start(): Promise<void>;
  /** What it worked on ended with the reason given (a pattern of it). */
  endedWith(reason: RegExp): Promise<void>;
  /** Still unfinished: the give-up has not settled it yet. */
  stillOpen(): Promise<void>;
  /** The next request for new work on the same thing succeeds at once, and that work succeeds. */
  newWorkSucceeds(): Promise<void>;
  /** Makes every attempt of the job fail with `message` (the method whose failure fails the attempt). */
  failAttempts(message: string): void;
  /** Makes the next give-up of this kind fail, as if its worker died while settling. */
  failNextGiveUp(): void;
}

const jobOf = async (db: () => TestDatabase, work: Work) =>
  db().handle.db.selectFrom('jobs').selectAll().where('id', '=', await work.jobId()).executeTakeFirstOrThrow();

/** Runs every due job once, again and again, moving the clock past every backoff, until none is left to run. */
async function runUntilIdle(server: TestServer): Promise<void> {
  for (let round = 0; round < 20; round += 1) {
    let ran = false;
    while (await server.services.jobs.runOnce()) ran = true;
    if (!ran && round > 0) return;
    server.clock.advanceSeconds(LATER_SECONDS);
  }
  throw new Error('jobs were still due after 20 rounds');
}

/** The kinds of job whose give-up the suite tries: every kind the server registers must be among them. */
const tried = new Set<string>();

function giveUpTests(db: () => TestDatabase, server: () => TestServer, jobKind: string, work: () => Work): void {
  tried.add(jobKind);
  afterEach(() => {
    jest.restoreAllMocks();
  });

  it('every attempt’s worker vanished: what it worked on ends with the reason, and new work is taken at once', async () => {
    const w = work();
    await w.start();
    await abandonNextJob(server(), db(), w.attempts);
    await w.stillOpen();
    await server().services.jobs.runOnce();
    expect(await jobOf(db, w)).toMatchObject({ status: 'failed', attempts: w.attempts, last_error: expect.stringMatching(/^abandoned: /) });
    await w.endedWith(/abandoned: the worker stopped before finishing/);
    await w.newWorkSucceeds();
  });

  it('its last attempt failed: what it worked on ends with the error, and new work is taken at once', async () => {
    const w = work();
    await w.start();
    w.failAttempts('the cloud is unreachable');
    await runUntilIdle(server());
    jest.restoreAllMocks();
    expect(await jobOf(db, w)).toMatchObject({ status: 'failed', attempts: w.attempts });
    await w.endedWith(/the cloud is unreachable/);
    await w.newWorkSucceeds();
  });

  it('the worker giving it up failed before settling it: the job is not failed until the next worker settles it', async () => {
    const w = work();
    await w.start();
    await abandonNextJob(server(), db(), w.attempts);
    w.failNextGiveUp();
    await server().services.jobs.runOnce();
    // Held by the worker that tried, until its lease runs out too.
    expect(await jobOf(db, w)).toMatchObject({ status: 'running' });
    await w.stillOpen();
    server().clock.advanceSeconds(LATER_SECONDS);
    await server().services.jobs.runOnce();
    expect(await jobOf(db, w)).toMatchObject({ status: 'failed' });
    await w.endedWith(/abandoned: the worker stopped before finishing/);
    await w.newWorkSucceeds();
  });
}

describeEachDatabase(
  'jobs given up',
  (db) => {
    // The receiver listens on 127.0.0.1, which webhooks may reach only with the allowance; drift makes every scan
    // against a baseline notify.
    // Invites are emailed to the sink; its address is known once it listens, before the server starts (hooks run in
    // the order they are declared).
    const sink = new SmtpSink();
    const options: TestServerOptions = { simulator: { driftRate: 0.3 } };
    beforeAll(async () => {
      await sink.start();
      options.notifications = { webhookAllowPrivate: true, smtpUrl: sink.url, smtpFrom: 'Compliance <invites@compliance.test>' };
    });
    afterAll(() => sink.stop());
    const server = useTestServer(db, options);
    const conductor = conductorClient(server);
    const receiver = new WebhookReceiver();
    beforeAll(() => receiver.start());
    afterAll(() => receiver.stop());

    it('tries every kind of job the server registers', () => {
      expect([...tried].sort()).toEqual(server().services.jobs.kinds().sort());
    });
    // Nothing a test left due runs in the next one.
    afterEach(() => runUntilIdle(server()));

    describe('a scan', () => {
      giveUpTests(db, server, SCAN_JOB, () => {
        let environmentId = '';
        let scanId = '';
        return {
          attempts: 2,
          jobId: async () => (await db().handle.db.selectFrom('scans').select('job_id').where('id', '=', scanId).executeTakeFirstOrThrow()).job_id!,
          async start() {
            environmentId = (await createEnvironment(server())).id;
            const started = await server().request('POST', `/v0/scans?environment_id=${environmentId}`);
            expect(started.status, started.text).toBe(201);
            scanId = started.body.id;
          },
          async endedWith(reason) {
            const scan = await server().request('GET', `/v0/scans/${scanId}`);
            expect(scan.body).toMatchObject({ status: 'ERROR', message: expect.stringMatching(reason) });
            expect(scan.body.message).toMatch(/^the scan was given up: /);
            expect((await server().request('GET', `/v0/environments/${environmentId}`)).body).toMatchObject({ scan_status: 'ERROR' });
          },
          async stillOpen() {
            expect((await server().request('GET', `/v0/scans/${scanId}`)).body).toMatchObject({ status: 'IN_PROGRESS' });
          },
          async newWorkSucceeds() {
            expect(await runScan(server(), environmentId)).toMatchObject({ status: 'SUCCESS' });
          },
          failAttempts(message) {
            jest.spyOn(ScanRunner.prototype, 'run').mockRejectedValue(new Error(message));
          },
          failNextGiveUp() {
            jest.spyOn(ScanRunner.prototype, 'giveUp').mockRejectedValueOnce(new Error('the server died while settling'));
          },
        };
      });
    });

    describe('a notification delivery', () => {
      giveUpTests(db, server, NOTIFICATION_DELIVERY_JOB, () => {
        let notificationId = '';
        let environmentId = '';
        let scanId = '';
        const deliveries = async () => (await server().request('GET', `/v0/notifications/${notificationId}/deliveries?max_items=100`)).body.items as any[];
        // Read from the list: a notification has no GET of its own.
        const notification = async () => ((await server().request('GET', '/v0/notifications?max_items=1000')).body.items as any[]).find((n) => n.notification_id === notificationId);
        return {
          attempts: 5,
          async jobId() {
            const jobs = await db().handle.db.selectFrom('jobs').select(['id', 'payload']).where('kind', '=', 'notification-delivery').execute();
            return jobs.find((job) => (JSON.parse(job.payload) as { scanId: string }).scanId === scanId)!.id;
          },
          async start() {
            environmentId = (await createEnvironment(server())).id;
            const first = await runScan(server(), environmentId);
            expect((await server().request('PATCH', `/v0/environments/${environmentId}`, { body: { baseline_id: first.id } })).status).toBe(200);
            const created = await server().request('POST', '/v0/notifications', {
              body: { name: 'drift', events: ['drift'], environments: [environmentId], webhook_url: receiver.url, webhook_secret: 'a-secret-of-sixteen-chars' },
            });
            expect(created.status, created.text).toBe(201);
            notificationId = created.body.notification_id;
            const started = await server().request('POST', `/v0/scans?environment_id=${environmentId}`);
            expect(started.status, started.text).toBe(201);
            scanId = started.body.id;
            // The scan only: its delivery is queued, not yet made.
            await server().services.jobs.runOnce();
            expect((await server().request('GET', `/v0/scans/${started.body.id}`)).body).toMatchObject({ status: 'SUCCESS' });
          },
          async endedWith(reason) {
            const [last] = await deliveries();
            expect(last).toMatchObject({ status: 'failed', will_retry: false, attempt: 5, error: expect.stringMatching(reason) });
            const { last_error: lastError } = await notification();
            expect(lastError).toMatch(reason);
            expect(lastError).toMatch(/\(gave up after 5 attempts\)$/);
          },
          async stillOpen() {
            expect((await deliveries()).filter((d) => !d.will_retry)).toEqual([]);
          },
          async newWorkSucceeds() {
            const before = receiver.of(notificationId).length;
            const next = await runScan(server(), environmentId);
            expect(receiver.of(notificationId)).toHaveLength(before + 1);
            expect((await deliveries()).filter((d) => d.scan_id === next.id)).toEqual([expect.objectContaining({ status: 'succeeded', attempt: 1 })]);
            expect((await notification()).last_error).toBeNull();
          },
          failAttempts(message) {
            jest.spyOn(NotificationService.prototype, 'deliver').mockRejectedValue(new Error(message));
          },
          failNextGiveUp() {
            jest.spyOn(NotificationService.prototype, 'giveUp').mockRejectedValueOnce(new Error('the server died while settling'));
          },
        };
      });
    });

    describe('a dry-run', () => {
      giveUpTests(db, server, DRY_RUN_JOB, () => {
        let account = '';
        let dryRunId = '';
        const request = async () => {
          const requested = await conductor.call('POST', `/dry-run?command=RUN&account=${account}`, await compositionTar(WEB_RESOURCES));
          expect(requested.status, requested.text).toBe(202);
          return requested.body.id as string;
        };
        return {
          attempts: 3,
          jobId: async () => (await db().handle.db.selectFrom('conductor_dry_runs').select('job_id').where('id', '=', dryRunId).executeTakeFirstOrThrow()).job_id!,
          async start() {
            account = (await conductor.addAccount()).name;
            dryRunId = await request();
          },
          async endedWith(reason) {
            const dryRun = await conductor.call('GET', `/dry-run/${dryRunId}`);
            expect(dryRun.body).toMatchObject({ status: 'FAILED', plan: [], errors: [{ code: 'dry_run.error', message: expect.stringMatching(reason) }] });
          },
          async stillOpen() {
            expect((await conductor.call('GET', `/dry-run/${dryRunId}`)).body.status).toMatch(/^(PENDING|RUNNING)$/);
          },
          async newWorkSucceeds() {
            const id = await request();
            await conductor.runJobs();
            expect((await conductor.call('GET', `/dry-run/${id}`)).body).toMatchObject({ status: 'SUCCEEDED', errors: [] });
          },
          failAttempts(message) {
            jest.spyOn(DryRunService.prototype, 'run').mockRejectedValue(new Error(message));
          },
          failNextGiveUp() {
            jest.spyOn(DryRunService.prototype, 'giveUp').mockRejectedValueOnce(new Error('the server died while settling'));
          },
        };
      });
    });

    describe('a process job (a composition update)', () => {
      giveUpTests(db, server, PROCESS_JOB, () => {
        let account = '';
        let fid = '';
        const processJobs = () => db().handle.db.selectFrom('conductor_jobs').selectAll().where('fid', '=', fid).orderBy('ordinal', 'desc').execute();
        return {
          attempts: 3,
          jobId: async () => (await processJobs())[0]!.id,
          async start() {
            account = (await conductor.addAccount()).name;
            fid = (await conductor.createProcess(account)).fid;
            const updated = await conductor.call('PUT', `/processes/${fid}/composition`, await compositionTar([{ ...WEB_RESOURCES[0]!, properties: { versioning: 'Suspended' } }, WEB_RESOURCES[1]]));
            expect(updated.status, updated.text).toBe(202);
          },
          async endedWith(reason) {
            const [update] = await processJobs();
            expect(update).toMatchObject({ purpose: 'update', status: 'failed', message: expect.stringMatching(reason) });
            expect(update!.finished_at).not.toBeNull();
            expect((await conductor.getProcess(fid)).state).toBe('RUNNING');
          },
          async stillOpen() {
            expect((await processJobs())[0]).toMatchObject({ purpose: 'update', status: expect.stringMatching(/^(queued|running)$/) });
          },
          async newWorkSucceeds() {
            const again = await conductor.call('PUT', `/processes/${fid}/composition`, await compositionTar(WEB_RESOURCES));
            expect(again.status, again.text).toBe(202);
            await conductor.runJobs();
            expect((await processJobs())[0]).toMatchObject({ status: 'succeeded' });
            const another = await conductor.createProcess(account);
            expect((await conductor.getProcess(another.fid)).resources.every((r) => r.status === 'present')).toBe(true);
          },
          failAttempts(message) {
            jest.spyOn(ProcessJobRunner.prototype, 'run').mockRejectedValue(new Error(message));
          },
          failNextGiveUp() {
            jest.spyOn(ProcessJobRunner.prototype, 'giveUp').mockRejectedValueOnce(new Error('the server died while settling'));
          },
        };
      });
    });

    describe('an invite delivery', () => {
      giveUpTests(db, server, INVITE_DELIVERY_JOB, () => {
        let email = '';
        let inviteId = '';
        let invites = 0;
        const invite = async (address: string) => {
          invites += 1;
          const group = await server().request('POST', '/v0/groups', { body: { name: `auditors ${invites}`, policy: 'builtin:AUDITOR', environment_ids: ['*'] } });
          expect(group.status, group.text).toBe(201);
          const created = await server().request('POST', '/v0/invites', { body: { email: address, group_ids: [group.body.id] } });
          expect(created.status, created.text).toBe(201);
          return created.body.id as string;
        };
        const current = async () => (await server().request('GET', `/v0/invites/${inviteId}`)).body;
        return {
          attempts: INVITE_DELIVERY_ATTEMPTS,
          async jobId() {
            const jobs = await db().handle.db.selectFrom('jobs').select(['id', 'payload']).where('kind', '=', INVITE_DELIVERY_JOB).execute();
            return jobs.find((job) => (JSON.parse(job.payload) as { inviteId: string }).inviteId === inviteId)!.id;
          },
          async start() {
            email = `invited-${invites}@example.com`;
            inviteId = await invite(email);
          },
          async endedWith(reason) {
            const now = server().clock.nowSeconds();
            expect(await current()).toMatchObject({ status: 'EXPIRED', delivery_error: expect.stringMatching(reason), expires_at: expect.any(Number) });
            expect((await current()).expires_at).toBeLessThanOrEqual(now);
          },
          async stillOpen() {
            expect(await current()).toMatchObject({ status: 'PENDING', delivery_error: null });
          },
          async newWorkSucceeds() {
            const before = sink.to(email).length;
            const again = await invite(email);
            expect(again).not.toBe(inviteId);
            await runUntilIdle(server());
            expect(sink.to(email)).toHaveLength(before + 1);
            expect((await server().request('GET', `/v0/invites/${again}`)).body).toMatchObject({ status: 'PENDING', delivery_error: null });
          },
          failAttempts(message) {
            jest.spyOn(InvitationService.prototype, 'deliver').mockRejectedValue(new Error(message));
          },
          failNextGiveUp() {
            jest.spyOn(InvitationService.prototype, 'giveUp').mockRejectedValueOnce(new Error('the server died while settling'));
          },
        };
      });
    });
  },
  'suite',
);
