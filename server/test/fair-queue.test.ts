import { beforeEach, it } from '@jest/globals';
import type { Job } from '../src/domain/repositories.js';
import { SCAN_JOB } from '../src/domain/scans/service.js';
import { DEFAULT_MAX_CONCURRENT_SCANS_PER_ORGANIZATION } from '../src/services.js';
import { KyselyJobRepository } from '../src/storage/repositories/jobs.js';
import { createEnvironment, type Body } from './compliance.js';
import { describeEachDatabase } from './databases.js';
import { expect } from './expect.js';
import { useTestServer, type TestServer } from './server.js';

/**
 * The job queue serves organizations in turn rather than first in, first out, and caps each organization's running
 * scans: one organization's many scans no longer hold another's back. Scans start through the API; the test drives
 * the queue one job at a time, so the order jobs are claimed in is the order they finish in. One database for the
 * suite, each test in organizations of its own, every job it queued run before it ends.
 */
describeEachDatabase('a job queue fair across organizations', (db) => {
  const testServer = useTestServer(db);
  let server: TestServer;
  beforeEach(() => {
    server = testServer();
  });

  /** The organization the test works in now, and the credentials of its API client. */
  const currentOrganization = () => ({ orgId: server.orgId, auth: server.auth });

  const startScan = async (environmentId: string, auth: string): Promise<Body> => {
    const started = await server.request('POST', `/v0/scans?environment_id=${environmentId}`, { auth });
    expect(started.status, started.text).toBe(201);
    expect(started.body.status).toBe('IN_PROGRESS');
    return started.body as Body;
  };

  const scanStatus = async (scanId: string, auth: string): Promise<string> => {
    const res = await server.request('GET', `/v0/scans/${scanId}`, { auth });
    expect(res.status, res.text).toBe(200);
    return res.body.status as string;
  };

  /**
   * Runs due jobs one at a time, at most `limit` of them, until none is left; returns the scans in the order they
   * finished (one worker: each job ends before the next is claimed).
   */
  const runQueue = async (limit = Infinity): Promise<string[]> => {
    const finished: string[] = [];
    let job: Job | undefined;
    for (let run = 0; run < limit && (job = await server.services.jobs.runOnce()); run += 1) {
      expect(job.kind).toBe(SCAN_JOB);
      finished.push((job.payload as { scanId: string }).scanId);
    }
    return finished;
  };

  it('an organization’s scan started after another organization started 20 finishes among the first two, not after the 20', async () => {
    const first = currentOrganization();
    const backlog: string[] = [];
    for (let i = 0; i < 20; i += 1) {
      const env = await createEnvironment(server, { name: `backlog-${i}` });
      backlog.push((await startScan(env.id, first.auth)).id);
    }
    await server.useNewTenant();
    const second = currentOrganization();
    const env = await createEnvironment(server);
    const late = (await startScan(env.id, second.auth)).id;

    // Two jobs in, one of each organization (neither was served before, so either may go first): the second
    // organization's scan is done while 19 of the first's still wait.
    const firstTwo = await runQueue(2);
    expect(firstTwo).toContain(late);
    expect(await scanStatus(late, second.auth)).toBe('SUCCESS');
    const statuses = await Promise.all(backlog.map((id) => scanStatus(id, first.auth)));
    expect(statuses.filter((status) => status === 'IN_PROGRESS')).toHaveLength(19);

    const rest = await runQueue();
    expect([...firstTwo, ...rest].filter((id) => id !== late).sort()).toEqual([...backlog].sort());
    for (const id of backlog) expect(await scanStatus(id, first.auth), `scan ${id}`).toBe('SUCCESS');
  });

  it('an organization’s third scan is accepted and waits while two of its scans run; another organization’s runs first', async () => {
    expect(DEFAULT_MAX_CONCURRENT_SCANS_PER_ORGANIZATION).toBe(2);
    const first = currentOrganization();
    const envs = [];
    for (let i = 0; i < 3; i += 1) envs.push(await createEnvironment(server, { name: `capped-${i}` }));
    const running = [await startScan(envs[0]!.id, first.auth), await startScan(envs[1]!.id, first.auth)];
    // Another server process sharing the database claims both and is still running them.
    const elsewhere = new KyselyJobRepository(db().handle.db, db().handle.dialect);
    const held: Job[] = [];
    for (let i = 0; i < 2; i += 1) {
      const now = server.clock.nowMs();
      held.push((await elsewhere.claim('another-server', now, now + 600_000))!);
    }
    expect(held.map((job) => (job.payload as { scanId: string }).scanId).sort()).toEqual(running.map((scan) => scan.id).sort());

    const third = await startScan(envs[2]!.id, first.auth);
    await server.useNewTenant();
    const second = currentOrganization();
    const other = await startScan((await createEnvironment(server)).id, second.auth);

    // This server takes the other organization's scan, and then nothing: the third scan waits for a free slot.
    expect(await server.services.jobs.runOnce()).toMatchObject({ kind: SCAN_JOB, tenant: `org:${second.orgId}` });
    expect(await scanStatus(other.id, second.auth)).toBe('SUCCESS');
    expect(await server.services.jobs.runOnce()).toBeUndefined();
    expect(await scanStatus(third.id, first.auth)).toBe('IN_PROGRESS');
    const thirdJob = (await server.services.scans.get(first.orgId, third.id)).jobId!;
    expect(await server.services.jobs.get(thirdJob)).toMatchObject({ status: 'queued', attempts: 0 });

    // The other server stops and hands its scans back: all three run here now.
    for (const job of held) expect(await elsewhere.handBack(job.id, 'another-server', server.clock.nowMs())).toBe(true);
    expect((await runQueue()).sort()).toEqual([...running.map((scan) => scan.id), third.id].sort());
    for (const scan of [...running, third]) expect(await scanStatus(scan.id, first.auth), `scan ${scan.id}`).toBe('SUCCESS');
  });
}, 'suite');
