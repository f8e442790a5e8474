import { afterAll, beforeAll, describe, it } from '@jest/globals';
import pg from 'pg';
import { SESSION_COOKIE } from '../src/http/console/cookies.js';
import { expect } from './expect.js';
import { call, createEnvironment, curl, pythonProbe, ROOT, serve, waitFor, type Answer, type Served } from './outage.js';
import { OwnPostgres, ownPostgresMissing } from './own-postgres.js';

/**
 * The server on a PostgreSQL that goes away or is held: a server process on a cluster of the test's own, which the
 * test stops, restarts and locks. The process must stay up, answer every request at once with the API's 503 and
 * Retry-After while the database cannot serve, keep /healthz, /readyz and /metrics answering, and serve again once
 * the database is back, without a restart; work in flight finishes or is retried, once.
 */
const missing = ownPostgresMissing();
if (missing) console.warn(`database outage tests skipped: ${missing}`);
const describeWithCluster = missing ? describe.skip : describe;

/** Each test starts a server process (compiled or from source, as `serverBuild` says) on a database of its own. */
const TEST_TIMEOUT_MS = 240_000;

function expectUnavailable(answer: Answer, shape: 'compliance' | 'conductor' | 'console', what: string): void {
  expect(answer.status, `${what}: ${answer.text}`).toBe(503);
  expect(Number(answer.headers.get('retry-after')), `${what}: Retry-After`).toBeGreaterThan(0);
  if (shape === 'conductor') expect(answer.body, what).toEqual({ code: 503, message: expect.any(String), errors: [] });
  else expect(answer.body, what).toEqual({ type: 'ServiceUnavailable', code: 503, message: expect.any(String) });
}

/** The server's own sessions on its database (not the test's, which name themselves). */
const serverSessions = (cluster: OwnPostgres, database: string, where = 'true') =>
  cluster.query<{ pid: number; state: string; wait_event_type: string | null; query: string }>(
    `select pid, state, wait_event_type, query from pg_stat_activity
     where datname = $1 and backend_type = 'client backend' and application_name not like 'own-postgres%' and ${where}`,
    [database],
  );

describeWithCluster('the server on a PostgreSQL that goes away or is held', () => {
  let cluster: OwnPostgres;
  beforeAll(async () => {
    cluster = await OwnPostgres.create();
  }, 120_000);
  afterAll(async () => {
    await cluster?.remove();
  });

  /** Runs the test's body on a server of its own, and leaves the cluster running whatever the body did. */
  async function withServer(env: Record<string, string>, body: (served: Served) => Promise<void>): Promise<void> {
    const served = await serve(cluster, env);
    try {
      await body(served);
    } catch (error) {
      throw Object.assign(error as Error, { message: `${(error as Error).message}\n\nlast server output:\n${served.server.tail()}\n\nPostgreSQL log:\n${cluster.log()}` });
    } finally {
      await served.stop();
      if (cluster.postmasterPid() === undefined) await cluster.start();
    }
  }

  it(
    'one idle pool connection ended by pg_terminate_backend: the process stays up and answers as before',
    () =>
      withServer({}, async ({ server, database }) => {
        expect((await call(server.baseUrl, 'GET', '/api/v0/accounts', { auth: ROOT })).status).toBe(200);
        const idle = await serverSessions(cluster, database, "state = 'idle'");
        expect(idle.length, 'idle connections of the pool').toBeGreaterThan(0);
        const ended = await cluster.query<{ terminated: boolean }>('select pg_terminate_backend($1) as terminated', [idle[0]!.pid]);
        expect(ended).toEqual([{ terminated: true }]);
        await waitFor('the ended session to go', async () => (await serverSessions(cluster, database, `pid = ${idle[0]!.pid}`)).length === 0);
        // The pool's clients heard the broken connection by now; each request takes a connection from the pool.
        for (let i = 0; i < 5; i += 1) {
          const answer = await call(server.baseUrl, 'GET', '/api/v0/accounts', { auth: ROOT });
          expect(answer.status, answer.text).toBe(200);
        }
        expect((await curl(`${server.baseUrl}/api/v0/accounts`, { authorization: ROOT })).status).toBe(200);
        expect(server.running, server.tail()).toBe(true);
      }),
    TEST_TIMEOUT_MS,
  );

  it(
    'the database stopped and started again: 503 with Retry-After meanwhile in each API’s shape, /healthz 200, /readyz 503, then serving again without a restart',
    () =>
      withServer({}, async ({ server, auth }) => {
        const { baseUrl } = server;
        expect((await call(baseUrl, 'GET', '/v0/environments', { auth })).status).toBe(200);
        await cluster.stop('fast');

        const compliance = await call(baseUrl, 'GET', '/v0/environments', { auth });
        expectUnavailable(compliance, 'compliance', 'compliance API');
        const conductor = await call(baseUrl, 'GET', '/api/v0/accounts', { auth: ROOT });
        expectUnavailable(conductor, 'conductor', 'conductor API');
        const console_ = await call(baseUrl, 'GET', '/console/api/session', { headers: { cookie: `${SESSION_COOKIE}=some-session-token` } });
        expectUnavailable(console_, 'console', 'console API');
        const created = await call(baseUrl, 'POST', '/api/v0/accounts', { auth: ROOT, body: { name: 'while-away', provider: 'provider_a', account_id: '300000000001' } });
        expectUnavailable(created, 'conductor', 'a write on the conductor API');
        const fromCurl = await curl(`${baseUrl}/v0/environments`, { authorization: auth });
        expect(fromCurl).toMatchObject({ status: 503, retryAfter: expect.stringMatching(/^[1-9][0-9]*$/) });
        const probes = await pythonProbe(baseUrl, ['/healthz', '/readyz', '/metrics']);
        expect(probes).toMatchObject({ '/healthz': { status: 200 }, '/readyz': { status: 503 }, '/metrics': { status: 200 } });
        console.log(
          `database stopped: answered in ${[compliance, conductor, console_, created].map((a) => `${Math.round(a.ms)} ms`).join(', ')}; ` +
            `python: ${Object.entries(probes).map(([path, p]) => `${path} ${p.status} in ${p.ms} ms`).join(', ')}`,
        );
        expect(server.running, server.tail()).toBe(true);

        await cluster.start();
        const restarted = performance.now();
        await waitFor('the server to serve again', async () => (await call(baseUrl, 'GET', '/v0/environments', { auth })).status === 200, 30_000);
        console.log(`database started again: serving after ${Math.round(performance.now() - restarted)} ms`);
        expect((await call(baseUrl, 'GET', '/readyz')).status).toBe(200);
        expect((await call(baseUrl, 'GET', '/api/v0/accounts', { auth: ROOT })).status).toBe(200);
        expect(server.running, server.tail()).toBe(true);
      }),
    TEST_TIMEOUT_MS,
  );

  it(
    'a table held by LOCK TABLE … ACCESS EXCLUSIVE: its requests get 503 within the statement timeout, those beyond the waiting bound at once, and /healthz, /readyz and /metrics answer meanwhile',
    () =>
      withServer(
        { DATABASE_POOL_SIZE: '2', DATABASE_STATEMENT_TIMEOUT_MS: '4000', DATABASE_ACQUIRE_TIMEOUT_MS: '1000', DATABASE_POOL_MAX_WAITING: '2' },
        async ({ server, database, auth }) => {
          const { baseUrl } = server;
          // One environment read by id: its row is read from the table at every request (a listing is kept).
          const path = `/v0/environments/${await createEnvironment(baseUrl, auth, 'held')}`;
          expect((await call(baseUrl, 'GET', path, { auth })).status).toBe(200);
          const holder = new pg.Client({ connectionString: cluster.url(database), application_name: 'own-postgres lock holder' });
          holder.on('error', () => undefined);
          await holder.connect();
          try {
            await holder.query('begin');
            await holder.query('lock table environments in access exclusive mode');
            const burst = Array.from({ length: 8 }, () => call(baseUrl, 'GET', path, { auth }));
            // Both connections of the pool wait on the lock: the pool is as busy as it gets.
            await waitFor('the pool to wait on the lock', async () => (await serverSessions(cluster, database, "wait_event_type = 'Lock'")).length === 2, 30_000);
            const probes = await pythonProbe(baseUrl, ['/healthz', '/readyz', '/metrics']);
            const answers = await Promise.all(burst);
            console.log(
              `table locked: ${answers.map((a) => `${a.status} in ${Math.round(a.ms)} ms`).join(', ')}; ` +
                `python while the pool waited: ${Object.entries(probes).map(([path, p]) => `${path} ${p.status} in ${p.ms} ms`).join(', ')}`,
            );
            expect(probes).toMatchObject({ '/healthz': { status: 200 }, '/readyz': { status: 200 }, '/metrics': { status: 200 } });
            for (const answer of answers) expectUnavailable(answer, 'compliance', 'a request on the locked table');
            const messages = answers.map((a) => a.body.message as string);
            expect(messages.some((m) => /did not answer in time/.test(m)), messages.join('\n')).toBe(true);
            expect(messages.some((m) => /no database connection came free/.test(m)), messages.join('\n')).toBe(true);
          } finally {
            await holder.query('rollback').catch(() => undefined);
            await holder.end().catch(() => undefined);
          }
          const after = await call(baseUrl, 'GET', path, { auth });
          expect(after.status, after.text).toBe(200);
          expect(server.running, server.tail()).toBe(true);
        },
      ),
    TEST_TIMEOUT_MS,
  );

  it(
    'a scan in flight when the database stops is retried exactly once after it is back, and its results are stored once',
    () =>
      // A statement may wait on the lock below for as long as the test needs; the lease outlasts the wait, so only
      // the outage ends the first attempt.
      withServer({ DATABASE_STATEMENT_TIMEOUT_MS: '120000', JOB_LEASE_MS: '15000' }, async ({ server, database, auth }) => {
        const { baseUrl } = server;
        const environment = await createEnvironment(baseUrl, auth, 'scanned-through-an-outage');
        const holder = new pg.Client({ connectionString: cluster.url(database), application_name: 'own-postgres lock holder' });
        holder.on('error', () => undefined);
        await holder.connect();
        await holder.query('begin');
        // The scan's first write of results waits here: the scan is in flight when the database stops.
        await holder.query('lock table scan_resources in access exclusive mode');
        const started = await call(baseUrl, 'POST', `/v0/scans?environment_id=${environment}`, { auth });
        expect(started.status, started.text).toBe(201);
        await waitFor('the scan to wait on the lock', async () => (await serverSessions(cluster, database, "wait_event_type = 'Lock'")).length > 0, 60_000);
        await cluster.stop('fast');
        await holder.end().catch(() => undefined);
        expectUnavailable(await call(baseUrl, 'GET', `/v0/scans/${started.body.id}`, { auth }), 'compliance', 'the scan while the database is away');
        expect(server.running, server.tail()).toBe(true);

        await cluster.start();
        await waitFor('the scan to finish', async () => {
          const scan = await call(baseUrl, 'GET', `/v0/scans/${started.body.id}`, { auth });
          return scan.status === 200 && scan.body.status !== 'IN_PROGRESS';
        }, 120_000);
        const scan = await call(baseUrl, 'GET', `/v0/scans/${started.body.id}`, { auth });
        expect({ status: scan.body.status, message: scan.body.message }).toEqual({ status: 'SUCCESS', message: null });
        const jobOfScan = async () =>
          (await cluster.query<{ status: string; attempts: number }>(
            'select j.status, j.attempts from jobs j join scans s on s.job_id = j.id where s.id = $1',
            [started.body.id],
            database,
          ))[0];
        // The job is recorded done just after the scan it ran is written: wait for that step too.
        await waitFor('the scan\'s job to be recorded as done', async () => (await jobOfScan())?.status !== 'running', 30_000);
        expect(await jobOfScan()).toEqual({ status: 'succeeded', attempts: 2 });
        const [stored] = await cluster.query<{ total: string; distinct: string; summary: string }>(
          'select count(*) as total, count(distinct resource_id) as distinct, (select summary from scans where id = $1) as summary from scan_resources where scan_id = $1',
          [started.body.id],
          database,
        );
        const { total } = JSON.parse(stored!.summary) as { total: number };
        expect({ stored: Number(stored!.total), distinct: Number(stored!.distinct) }).toEqual({ stored: total, distinct: total });
        expect(server.running, server.tail()).toBe(true);
      }),
    TEST_TIMEOUT_MS,
  );
});
