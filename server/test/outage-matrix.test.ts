import { statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { sql, type Kysely } from 'kysely';
import pg from 'pg';
import { openDatabase, type DatabaseHandle } from '../src/storage/database.js';
import type { Database } from '../src/storage/schema.js';
import { compositionTar } from './conductor.js';
import { expect } from './expect.js';
import { accountOf, call, createEnvironment, prepareDatabase, ROOT, serverEnv, waitFor, withApiClient, type Answer } from './outage.js';
import { OwnPostgres, ownPostgresMissing } from './own-postgres.js';
import { WebhookReceiver } from './webhook-receiver.js';
import { ServerProcess } from './server-process.js';
import { fillUp, mountProblem, mountSmallDisk, unmountSmallDisk } from './small-disk.js';

/**
 * The outage matrix: for each kind of outage of the database (stopped and started again, one connection ended,
 * the server killed with SIGKILL, a table held locked, the disk under a SQLite file full) during each kind of work (a scan, a notification delivery,
 * a conductor dry-run, a conductor process operation) and during request traffic, a server process must stay up,
 * answer requests meanwhile with 200 or 503 (never a 500, never a hang), and once the database is back every
 * invariant of the fault matrix must hold: every job ended or waits for a retry it has attempts for, nothing is
 * recorded twice, nothing is left pending, the work in flight finished, and new work is accepted. One line per cell.
 *
 * The work is held in flight when the outage begins: a session of the test locks a table the work's job writes
 * (its "pin") before the work starts, and the outage begins once a session of the server waits on that lock. SQLite
 * has no lock of one table: there the disk fills up as soon as the work's request is answered, and the server must
 * have met the full disk (a write of the traffic answered 503) before space is freed.
 *
 * Run by `make test-faults` (FAULT_MATRIX=1, from the build); plain jest runs leave it out (jest.config.js).
 * OUTAGE_ONLY=<outage>[/<work>] runs one row or one cell.
 */
const missing = ownPostgresMissing();
if (missing) console.warn(`outage matrix skipped: ${missing}`);

/** The server's bounds: statements and waits short enough that a held table turns into 503s and retries quickly. */
const STATEMENT_TIMEOUT_MS = 1_500;
const ACQUIRE_TIMEOUT_MS = 1_000;
/**
 * A job whose outcome could not be written is taken up again once its lease runs out; long enough that a live
 * scan keeps it on a machine whose other processes hold both cores (as in the fault matrix, whose 3-second lease
 * once ran out under a live scan there).
 */
const LEASE_MS = 6_000;
/** How long a stopped or killed database stays down, and a table stays locked (past the statement timeout). */
const DOWN_MS = 2_000;
const LOCK_HOLD_MS = 2_000;
const SETTLE_TIMEOUT_MS = 90_000;
/** The filesystem under the disk-full row's SQLite file: room for the row's work, filled to the last byte by the outage. */
const SMALL_DISK_MB = 64;
const cannotMount = mountProblem();

// ---------------------------------------------------------------------------------------------------------------
// Outages

interface OutageContext {
  cluster: OwnPostgres;
  /** The session of the test holding the work's table locked, when the outage pins the work. */
  holder: pg.Client | undefined;
  /** The server's sessions waiting on that lock: the work in flight. */
  waiting: number[];
  /** The folder of the server's data (its SQLite file), on a filesystem of its own for the disk-full row. */
  dataDir: string;
  /** The server's database: its SQLite file, or its name on the cluster. */
  database: string;
  /** The test's own connection to the server's database. */
  handle: DatabaseHandle;
  /** What the traffic's requests were answered so far. */
  answers(): readonly TrafficAnswer[];
}

interface Outage {
  /** As OUTAGE_ONLY names it. */
  name: string;
  title: string;
  /** The database the server runs on. A SQLite kind makes its own file; PostgreSQL ones get a database of the cluster. */
  database: 'postgres' | 'sqlite';
  /** Whether the server's data folder is a small filesystem of its own (SMALL_DISK_MB), which the outage may fill. */
  smallDisk?: boolean;
  /** Why the row cannot run on this machine, if it cannot. */
  missing?: string;
  /** Holds the work in flight with a lock on its table until the outage begins (PostgreSQL). */
  pinsWork: boolean;
  /** Whether requests running through the outage must meet a 503 (not where only the work's own session is affected). */
  expects503(work: Work): boolean;
  /** Makes the database unavailable and brings it back; resolves once it is back, and the pin let go. */
  inflict(ctx: OutageContext): Promise<void>;
}

const releasePin = async (ctx: OutageContext) => {
  await ctx.holder?.query('rollback').catch(() => undefined);
};

const OUTAGES: Outage[] = [
  {
    name: 'stopped',
    title: 'database stopped and started again',
    database: 'postgres',
    pinsWork: true,
    expects503: () => true,
    async inflict(ctx) {
      await ctx.cluster.stop('fast');
      await sleep(DOWN_MS);
      await ctx.cluster.start();
    },
  },
  {
    name: 'terminated',
    title: 'one connection ended (pg_terminate_backend)',
    database: 'postgres',
    pinsWork: true,
    expects503: () => false,
    async inflict(ctx) {
      // The connection the work is waiting on.
      await ctx.cluster.query('select pg_terminate_backend($1)', [ctx.waiting[0]]);
      await releasePin(ctx);
    },
  },
  {
    name: 'killed',
    title: 'database killed (SIGKILL) and started again',
    database: 'postgres',
    pinsWork: true,
    expects503: () => true,
    async inflict(ctx) {
      await ctx.cluster.kill();
      await sleep(DOWN_MS);
      await ctx.cluster.start();
    },
  },
  {
    name: 'locked',
    title: `table locked for ${LOCK_HOLD_MS / 1000} s`,
    database: 'postgres',
    pinsWork: true,
    // Only the traffic's own requests read the table held.
    expects503: (work) => work.name === 'traffic',
    async inflict(ctx) {
      // The pin is the outage: held past the statement timeout, then let go before a retry of the work times out too.
      await sleep(LOCK_HOLD_MS);
      await releasePin(ctx);
    },
  },
  {
    name: 'disk-full',
    title: `the disk under a SQLite file full for ${DOWN_MS / 1000} s`,
    database: 'sqlite',
    smallDisk: true,
    missing: cannotMount,
    pinsWork: false,
    // Writes need room, reads do not: the traffic's writer meets the full disk.
    expects503: () => true,
    async inflict(ctx) {
      const ballast = join(ctx.dataDir, 'ballast');
      // The disk full with the write-ahead log empty, so that the next write needs room of its own: a log of any
      // length is reused from its start after each checkpoint, and small writes would never need more room. The log
      // is emptied with the disk already full and the room that frees taken at once, so that the server has little
      // time to write between the two; a checkpoint finding readers, or finding no room to copy the log into the
      // file, and a write in between are tried again.
      const wal = `${ctx.database}-wal`;
      fillUp(ballast);
      await waitFor(
        'the write-ahead log emptied with the disk full',
        async () => {
          const [result] = (
            await sql<{ busy: number }>`pragma wal_checkpoint(TRUNCATE)`.execute(ctx.handle.db).catch(async (error: unknown) => {
              // No room to copy the log into the file: room is made for the next try.
              await rm(ballast);
              throw error;
            })
          ).rows;
          fillUp(ballast);
          return result?.busy === 0 && statSync(wal).size === 0;
        },
        SETTLE_TIMEOUT_MS,
      );
      const filled = performance.now();
      await sleep(DOWN_MS);
      // Met: a write of the traffic answered 503 since. The log's SQLITE_FULL lines come at most one per ten seconds.
      await waitFor('the server to meet the full disk', async () => ctx.answers().some((a) => a.at >= filled && a.status === 503 && a.method !== 'GET'), SETTLE_TIMEOUT_MS);
      await rm(ballast);
    },
  },
];


// ---------------------------------------------------------------------------------------------------------------
// Work

interface WorkContext {
  baseUrl: string;
  auth: string;
  db: Kysely<Database>;
  webhook: WebhookReceiver;
  /** What setup leaves for the cells, and what a cell's work is about (`inFlight`). */
  state: Record<string, any>;
}

interface Work {
  name: string;
  title: string;
  /** The table whose lock holds the work in flight: its job waits on it, the request starting it does not. */
  pin: string;
  /** Once per server, before its first cell. */
  setup(ctx: WorkContext): Promise<void>;
  /** Starts the work; resolves once its request is answered (the work itself goes on in a job). */
  begin(ctx: WorkContext, cell: string): Promise<void>;
  /** Work the domain still holds unfinished. */
  unfinished(db: Kysely<Database>): Promise<number>;
  /** The invariants of the work after the outage, and how the work in flight ended. */
  check(ctx: WorkContext): Promise<string>;
  newWork(ctx: WorkContext, cell: string): Promise<void>;
}

const count = async (query: { executeTakeFirstOrThrow(): Promise<{ n: unknown }> }): Promise<number> => Number((await query.executeTakeFirstOrThrow()).n);

function expectCreated(answer: Answer, what: string): any {
  expect(answer.status, `${what}: ${answer.text}`).toBeLessThan(300);
  return answer.body;
}

/** Eight resources, so that a process job has many steps; `variant` 1 changes some. */
function composition(variant: 0 | 1 = 0): Promise<Buffer> {
  const resources = [];
  for (let i = 0; i < 4; i += 1) {
    resources.push({ name: `assets-${i}`, type: 'PROVA.S3.Bucket', properties: { versioning: variant === 0 ? 'Enabled' : 'Suspended' }, tags: { env: 'prod' } });
    resources.push({ name: `jobs-${i}`, type: 'PROVA.SQS.Queue', region: 'us-east-1', properties: { visibility_timeout_seconds: 30 + variant }, tags: { owner: 'web' } });
  }
  return compositionTar(resources);
}

async function scanFinished(ctx: WorkContext, scanId: string): Promise<{ status: string; message: string | null }> {
  await waitFor(`scan ${scanId} to finish`, async () => (await call(ctx.baseUrl, 'GET', `/v0/scans/${scanId}`, { auth: ctx.auth })).body?.status !== 'IN_PROGRESS', SETTLE_TIMEOUT_MS);
  const scan = await call(ctx.baseUrl, 'GET', `/v0/scans/${scanId}`, { auth: ctx.auth });
  return { status: scan.body.status, message: scan.body.message };
}

async function startScan(ctx: WorkContext, environment: string): Promise<string> {
  return expectCreated(await call(ctx.baseUrl, 'POST', `/v0/scans?environment_id=${environment}`, { auth: ctx.auth }), 'a scan').id as string;
}

/** How many attempts the job `id` took, and how it ended: `succeeded after 2 attempts`. */
async function jobOutcome(db: Kysely<Database>, id: string | null | undefined): Promise<string> {
  const job = id ? await db.selectFrom('jobs').select(['status', 'attempts']).where('id', '=', id).executeTakeFirst() : undefined;
  return job ? `its job ${job.status} after ${job.attempts} attempt${job.attempts === 1 ? '' : 's'}` : 'no job found';
}

/** No scan in progress; every successful scan stored each resource it counts once; no event twice. */
async function scansAreSettled(db: Kysely<Database>): Promise<void> {
  expect(await db.selectFrom('scans').select(['id']).where('status', '=', 'IN_PROGRESS').execute()).toEqual([]);
  for (const scan of await db.selectFrom('scans').select(['id', 'summary']).where('status', '=', 'SUCCESS').execute()) {
    const stored = await count(db.selectFrom('scan_resources').select((eb) => eb.fn.countAll().as('n')).where('scan_id', '=', scan.id));
    const distinct = await count(db.selectFrom('scan_resources').select((eb) => eb.fn.count('resource_id').distinct().as('n')).where('scan_id', '=', scan.id));
    const { total } = JSON.parse(scan.summary!) as { total: number };
    expect({ scan: scan.id, stored, distinct }).toEqual({ scan: scan.id, stored: total, distinct: total });
  }
  const duplicated = await db
    .selectFrom('events')
    .select(['scan_id', 'event_type', 'resource_id', (eb) => eb.fn.countAll().as('n')])
    .groupBy(['scan_id', 'event_type', 'resource_id'])
    .having((eb) => eb.fn.countAll(), '>', 1)
    .execute();
  expect(duplicated).toEqual([]);
}

/** No process job open; one history entry per step and one operation per step of a job; the cloud matches the processes. */
async function processesAreSettled(db: Kysely<Database>): Promise<void> {
  expect(await db.selectFrom('conductor_jobs').select(['id', 'status']).where('status', 'in', ['queued', 'running']).execute()).toEqual([]);
  const history = await db
    .selectFrom('conductor_history')
    .select(['fid', 'event', 'job_id', (eb) => eb.fn.countAll().as('n')])
    .where('job_id', 'is not', null)
    .groupBy(['fid', 'event', 'job_id'])
    .having((eb) => eb.fn.countAll(), '>', 1)
    .execute();
  expect(history).toEqual([]);
  const operations = await db
    .selectFrom('conductor_operations')
    .select(['job_id', 'seq', (eb) => eb.fn.countAll().as('n')])
    .groupBy(['job_id', 'seq'])
    .having((eb) => eb.fn.countAll(), '>', 1)
    .execute();
  expect(operations).toEqual([]);
  for (const process of await db.selectFrom('conductor_processes').select(['fid', 'state', 'account_id']).execute()) {
    const inCloud = await db
      .selectFrom('cloud_resources')
      .select(['resource_id'])
      .where('account_key', 'like', `%${process.account_id}`)
      .where('name', 'like', `%-${process.fid.slice(0, 8)}`)
      .execute();
    const present = await db.selectFrom('conductor_process_resources').select(['resource_id']).where('fid', '=', process.fid).where('retired', '=', 0).where('status', '=', 'present').execute();
    expect({ fid: process.fid, inCloud: inCloud.map((r) => r.resource_id).sort() }).toEqual({ fid: process.fid, inCloud: present.map((r) => r.resource_id).sort() });
  }
}

async function converged(ctx: WorkContext, fid: string): Promise<string> {
  await waitFor(
    `process ${fid} to converge`,
    async () => {
      const open = await count(ctx.db.selectFrom('conductor_jobs').select((eb) => eb.fn.countAll().as('n')).where('fid', '=', fid).where('status', 'in', ['queued', 'running']));
      return open === 0;
    },
    SETTLE_TIMEOUT_MS,
  );
  return (await call(ctx.baseUrl, 'GET', `/api/v0/processes/${fid}`, { auth: ROOT })).body.state as string;
}

async function addAccount(ctx: WorkContext, name: string): Promise<string> {
  expectCreated(await call(ctx.baseUrl, 'POST', '/api/v0/accounts', { auth: ROOT, body: { name, provider: 'provider_a', account_id: accountOf(name) } }), `account ${name}`);
  return name;
}

const WORKS: Work[] = [
  {
    name: 'scan',
    title: 'scan',
    pin: 'scan_resources',
    async setup() {},
    async begin(ctx, cell) {
      const environment = await createEnvironment(ctx.baseUrl, ctx.auth, `scanned-${cell}`);
      ctx.state.environment = environment;
      ctx.state.inFlight = await startScan(ctx, environment);
    },
    unfinished: (db) => count(db.selectFrom('scans').select((eb) => eb.fn.countAll().as('n')).where('status', '=', 'IN_PROGRESS')),
    async check(ctx) {
      await scansAreSettled(ctx.db);
      const scan = await scanFinished(ctx, ctx.state.inFlight);
      expect(scan, 'the scan in flight').toEqual({ status: 'SUCCESS', message: null });
      const row = await ctx.db.selectFrom('scans').select('job_id').where('id', '=', ctx.state.inFlight).executeTakeFirst();
      return `scan SUCCESS, ${await jobOutcome(ctx.db, row?.job_id)}`;
    },
    async newWork(ctx) {
      expect(await scanFinished(ctx, await startScan(ctx, ctx.state.environment))).toEqual({ status: 'SUCCESS', message: null });
    },
  },
  {
    name: 'notification',
    title: 'notification delivery',
    // The delivery reads what was delivered before it sends; the scan that causes it does not.
    pin: 'notification_deliveries',
    async setup(ctx) {
      const environment = await createEnvironment(ctx.baseUrl, ctx.auth, 'watched');
      expect(await scanFinished(ctx, await startScan(ctx, environment))).toEqual({ status: 'SUCCESS', message: null });
      const first = await call(ctx.baseUrl, 'GET', `/v0/scans?environment_id=${environment}`, { auth: ctx.auth });
      // Against a baseline, every scan of the drifting account records DRIFT events, and so notifies.
      const baseline = await call(ctx.baseUrl, 'PATCH', `/v0/environments/${environment}`, { auth: ctx.auth, body: { baseline_id: first.body.items[0].id } });
      expect(baseline.status, baseline.text).toBe(200);
      expectCreated(
        await call(ctx.baseUrl, 'POST', '/v0/notifications', {
          auth: ctx.auth,
          body: { name: 'drift hook', events: ['drift'], environments: [environment], webhook_url: `http://127.0.0.1:${ctx.webhook.port}/hook`, webhook_secret: 'outage-matrix-webhook-secret' },
        }),
        'a notification',
      );
      ctx.state.watched = environment;
    },
    async begin(ctx) {
      ctx.state.inFlight = await startScan(ctx, ctx.state.watched);
    },
    unfinished: async (db) =>
      (await count(db.selectFrom('scans').select((eb) => eb.fn.countAll().as('n')).where('status', '=', 'IN_PROGRESS'))) +
      (await count(db.selectFrom('jobs').select((eb) => eb.fn.countAll().as('n')).where('kind', 'like', '%notification%').where('status', 'in', ['queued', 'running']))),
    async check(ctx) {
      await scansAreSettled(ctx.db);
      const deliveries = await ctx.db.selectFrom('jobs').select(['id', 'status', 'payload', 'attempts']).where('kind', 'like', '%notification%').execute();
      const records = await ctx.db.selectFrom('notification_deliveries').select(['delivery_id', 'status']).execute();
      for (const delivery of deliveries) {
        const succeeded = records.filter((r) => r.delivery_id === delivery.id && r.status === 'succeeded').length;
        expect({ delivery: delivery.id, status: delivery.status, succeeded, sent: ctx.webhook.timesReceived(delivery.id) > 0 }).toEqual({
          delivery: delivery.id,
          status: 'succeeded',
          succeeded: 1,
          sent: true,
        });
      }
      const ofScan = deliveries.filter((d) => (JSON.parse(d.payload) as { scanId: string }).scanId === ctx.state.inFlight);
      expect(ofScan.length, 'deliveries of the scan in flight').toBe(1);
      return `delivery sent once, ${await jobOutcome(ctx.db, ofScan[0]!.id)}`;
    },
    async newWork(ctx) {
      const scanId = await startScan(ctx, ctx.state.watched);
      expect(await scanFinished(ctx, scanId)).toEqual({ status: 'SUCCESS', message: null });
      await waitFor('the new scan to be delivered', async () => (await ctx.db.selectFrom('notification_deliveries').select('status').where('scan_id', '=', scanId).where('status', '=', 'succeeded').execute()).length === 1, SETTLE_TIMEOUT_MS);
    },
  },
  {
    name: 'dry-run',
    title: 'conductor dry-run',
    // Evaluating the composition reads the validation libraries; requesting the dry-run does not.
    pin: 'conductor_validation_libraries',
    async setup(ctx) {
      ctx.state.composition = await composition();
    },
    async begin(ctx, cell) {
      const account = await addAccount(ctx, `dry-${cell}`);
      ctx.state.account = account;
      ctx.state.inFlight = expectCreated(await call(ctx.baseUrl, 'POST', `/api/v0/dry-run?command=RUN&account=${account}`, { auth: ROOT, body: ctx.state.composition }), 'a dry-run').id;
    },
    unfinished: (db) => count(db.selectFrom('conductor_dry_runs').select((eb) => eb.fn.countAll().as('n')).where('status', 'in', ['PENDING', 'RUNNING'])),
    async check(ctx) {
      const dryRuns = await ctx.db.selectFrom('conductor_dry_runs').select(['id', 'status', 'finished_at']).execute();
      expect(dryRuns.filter((d) => !['SUCCEEDED', 'FAILED'].includes(d.status) || d.finished_at === null)).toEqual([]);
      // An outage is not the dry-run's result: it was retried.
      const inFlight = await call(ctx.baseUrl, 'GET', `/api/v0/dry-run/${ctx.state.inFlight}`, { auth: ROOT });
      expect({ status: inFlight.body.status, errors: inFlight.body.errors }, 'the dry-run in flight').toEqual({ status: 'SUCCEEDED', errors: [] });
      const row = await ctx.db.selectFrom('conductor_dry_runs').select('job_id').where('id', '=', ctx.state.inFlight).executeTakeFirst();
      return `dry-run ${inFlight.body.status}, ${await jobOutcome(ctx.db, row?.job_id)}`;
    },
    async newWork(ctx) {
      const requested = expectCreated(await call(ctx.baseUrl, 'POST', `/api/v0/dry-run?command=RUN&account=${ctx.state.account}`, { auth: ROOT, body: ctx.state.composition }), 'a new dry-run');
      const answered = await call(ctx.baseUrl, 'GET', `/api/v0/dry-run/${requested.id}?timeout=30`, { auth: ROOT });
      expect(answered.body).toMatchObject({ status: 'SUCCEEDED', errors: [] });
    },
  },
  {
    name: 'process',
    title: 'conductor process operation',
    // Creating the process's resources generates the account's inventory and writes it.
    pin: 'cloud_resources',
    async setup(ctx) {
      ctx.state.composition = await composition();
    },
    async begin(ctx, cell) {
      const account = await addAccount(ctx, `proc-${cell}`);
      ctx.state.account = account;
      ctx.state.inFlight = expectCreated(await call(ctx.baseUrl, 'POST', `/api/v0/processes?account=${account}&alias=p-${cell}`, { auth: ROOT, body: ctx.state.composition }), 'a process').fid;
    },
    unfinished: (db) => count(db.selectFrom('conductor_jobs').select((eb) => eb.fn.countAll().as('n')).where('status', 'in', ['queued', 'running'])),
    async check(ctx) {
      await processesAreSettled(ctx.db);
      expect(await converged(ctx, ctx.state.inFlight), 'the process in flight').toBe('RUNNING');
      const row = await ctx.db.selectFrom('conductor_jobs').select('queue_job_id').where('fid', '=', ctx.state.inFlight).executeTakeFirst();
      return `process RUNNING, ${await jobOutcome(ctx.db, row?.queue_job_id)}`;
    },
    async newWork(ctx, cell) {
      const created = expectCreated(await call(ctx.baseUrl, 'POST', `/api/v0/processes?account=${ctx.state.account}&alias=after-${cell}`, { auth: ROOT, body: ctx.state.composition }), 'a new process');
      expect(await converged(ctx, created.fid)).toBe('RUNNING');
      await processesAreSettled(ctx.db);
    },
  },
  {
    name: 'traffic',
    title: 'request traffic',
    // The traffic's own reads of an environment wait on it.
    pin: 'environments',
    async setup() {},
    async begin() {},
    unfinished: async () => 0,
    check: async () => 'no work of its own',
    async newWork(ctx, cell) {
      await createEnvironment(ctx.baseUrl, ctx.auth, `after-${cell}`);
    },
  },
];

// ---------------------------------------------------------------------------------------------------------------
// Traffic and the cells

/** One answer of the traffic; `at` is when its request was sent (performance.now()). */
interface TrafficAnswer {
  method: string;
  path: string;
  status: number;
  ms: number;
  at: number;
}

/** Requests sent one after another by a few clients until stopped, every answer kept. */
class Traffic {
  readonly answers: TrafficAnswer[] = [];
  private running = true;
  private writes = 0;
  private readonly clients: Promise<void>[];

  constructor(baseUrl: string, auth: string, environment: string) {
    const requests: Array<{ method: string; path: string; auth: string | null; body?: () => unknown }> = [
      { method: 'GET', path: `/v0/environments/${environment}`, auth },
      { method: 'GET', path: '/api/v0/accounts', auth: ROOT },
      { method: 'GET', path: '/healthz', auth: null },
      // A writer: renames the environment the readers read.
      { method: 'PATCH', path: `/v0/environments/${environment}`, auth, body: () => ({ name: `traffic-${(this.writes += 1)}` }) },
    ];
    this.clients = requests.map(async ({ method, path, auth: credentials, body }) => {
      while (this.running) {
        const at = performance.now();
        try {
          const answer = await call(baseUrl, method, path, { auth: credentials, body: body?.() });
          this.answers.push({ method, path, status: answer.status, ms: answer.ms, at });
        } catch {
          // No answer within the hang guard, or the connection refused: counted as status 0.
          this.answers.push({ method, path, status: 0, ms: performance.now() - at, at });
        }
        await sleep(20);
      }
    });
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.clients);
  }
}

const percentile = (values: number[], p: number): number => {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};

/** Every job ended, or waits for a retry it has attempts left for; none is running. */
async function jobsAreSettled(db: Kysely<Database>): Promise<void> {
  const jobs = await db.selectFrom('jobs').select(['id', 'kind', 'status', 'attempts', 'max_attempts', 'last_error']).execute();
  expect(jobs.filter((j) => !(j.status === 'succeeded' || j.status === 'failed' || (j.status === 'queued' && j.attempts < j.max_attempts)))).toEqual([]);
}

/** Jobs due or running: work some server should be doing now. */
const busyJobs = (db: Kysely<Database>) =>
  db
    .selectFrom('jobs')
    .select(['id', 'kind', 'status', 'attempts'])
    .where((eb) => eb.or([eb('status', '=', 'running'), eb.and([eb('status', '=', 'queued'), eb('run_at', '<=', Date.now())])]))
    .execute();

/** A server on a database of the outage's kind, and what the cells of its row share. */
interface Row {
  server: ServerProcess;
  pid: number;
  database: string;
  handle: DatabaseHandle;
  ctx: WorkContext;
  trafficEnvironment: string;
  dir: string;
  /** Whether `dir` is a filesystem of its own, to unmount. */
  smallDisk: boolean;
}

async function startRow(outage: Outage, cluster: OwnPostgres, webhook: WebhookReceiver): Promise<Row> {
  const dir = outage.smallDisk ? mountSmallDisk('outage-matrix-', SMALL_DISK_MB) : await mkdtemp(join(tmpdir(), 'outage-matrix-'));
  let database: string;
  let url: string;
  let auth: string;
  if (outage.database === 'postgres') {
    ({ database, url, auth } = await prepareDatabase(cluster));
  } else {
    database = join(dir, 'app.db');
    url = `sqlite:${database}`;
    auth = await withApiClient(url);
  }
  const server = new ServerProcess(
    serverEnv(url, dir, {
      JOB_LEASE_MS: String(LEASE_MS),
      DATABASE_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS),
      DATABASE_ACQUIRE_TIMEOUT_MS: String(ACQUIRE_TIMEOUT_MS),
      SIM_DRIFT_RATE: '0.05',
    }),
  );
  await server.ready;
  // The test's own sessions name themselves, so that they are never taken for the server's.
  const handle = openDatabase(outage.database === 'postgres' ? `${url}?application_name=own-postgres%20checks` : url);
  const ctx: WorkContext = { baseUrl: server.baseUrl, auth, db: handle.db, webhook, state: {} };
  const trafficEnvironment = await createEnvironment(server.baseUrl, auth, 'traffic');
  return { server, pid: server.pid, database, handle, ctx, trafficEnvironment, dir, smallDisk: outage.smallDisk === true };
}

/** The server's sessions on the row's database waiting on a lock. */
const waitingOnLock = async (cluster: OwnPostgres, database: string): Promise<number[]> =>
  (
    await cluster.query<{ pid: number }>(
      `select pid from pg_stat_activity where datname = $1 and backend_type = 'client backend' and wait_event_type = 'Lock' and application_name not like 'own-postgres%'`,
      [database],
    )
  ).map((row) => row.pid);

interface CellOutcome {
  line: string;
}

async function runCell(outage: Outage, work: Work, row: Row, cluster: OwnPostgres): Promise<CellOutcome> {
  const cell = `${outage.name}-${work.name}`;
  const { ctx, server } = row;
  ctx.state = { ...ctx.state };
  const started = performance.now();
  let holder: pg.Client | undefined;
  const traffic = new Traffic(server.baseUrl, ctx.auth, row.trafficEnvironment);
  let outageStarted = 0;
  let outageEnded = 0;
  try {
    if (outage.pinsWork) {
      holder = new pg.Client({ connectionString: cluster.url(row.database), application_name: 'own-postgres pin' });
      holder.on('error', () => undefined);
      await holder.connect();
      await holder.query('begin');
      await holder.query(`lock table ${work.pin} in access exclusive mode`);
    }
    await work.begin(ctx, cell);
    let waiting: number[] = [];
    if (outage.pinsWork) {
      await waitFor(`the ${work.title} to wait on ${work.pin}`, async () => (waiting = await waitingOnLock(cluster, row.database)).length > 0, SETTLE_TIMEOUT_MS);
    }
    outageStarted = performance.now();
    await outage.inflict({ cluster, holder, waiting, dataDir: row.dir, database: row.database, handle: row.handle, answers: () => traffic.answers });
    outageEnded = performance.now();
    await holder?.end().catch(() => undefined);
    holder = undefined;
    // Served again: an API request answered 200 after the database came back.
    await waitFor('the server to serve again', async () => traffic.answers.some((a) => a.at >= outageEnded && a.status === 200 && a.path !== '/healthz'), 60_000);
  } finally {
    await traffic.stop();
    await holder?.end().catch(() => undefined);
    if (cluster.postmasterPid() === undefined) await cluster.start();
  }
  const backAfter = Math.min(...traffic.answers.filter((a) => a.at >= outageEnded && a.status === 200 && a.path !== '/healthz').map((a) => a.at)) - outageEnded;

  expect(server.running, `the server process is up\n${server.tail()}`).toBe(true);
  expect(server.pid).toBe(row.pid);
  const statuses = new Map<string, number>();
  for (const answer of traffic.answers) statuses.set(`${answer.status}`, (statuses.get(`${answer.status}`) ?? 0) + 1);
  const unexpected = traffic.answers.filter((a) => (a.path === '/healthz' ? a.status !== 200 : a.status !== 200 && a.status !== 503));
  expect(unexpected, 'answers other than 200 and 503 (and /healthz other than 200)').toEqual([]);
  const unavailable = traffic.answers.filter((a) => a.status === 503).map((a) => a.ms);
  if (outage.expects503(work)) expect(unavailable.length, 'requests answered 503 during the outage').toBeGreaterThan(0);

  await waitFor(
    `the ${work.title} to settle`,
    async () => (await busyJobs(ctx.db)).length === 0 && (await work.unfinished(ctx.db)) === 0,
    SETTLE_TIMEOUT_MS,
  ).catch(async (error: Error) => {
    throw new Error(`${error.message}; jobs due or running: ${JSON.stringify(await busyJobs(ctx.db))}`);
  });
  await jobsAreSettled(ctx.db);
  const inFlight = await work.check(ctx);
  await work.newWork(ctx, cell);
  // The new work's result is recorded a moment before its job is.
  await waitFor('the new work’s jobs to settle', async () => (await busyJobs(ctx.db)).length === 0, SETTLE_TIMEOUT_MS);
  await jobsAreSettled(ctx.db);
  const counts = [...statuses].sort().map(([status, n]) => `${status}×${n}`).join(' ');
  return {
    line:
      `outage matrix [${outage.name} × ${work.name}]: process up; answers ${counts}; ` +
      `${unavailable.length === 0 ? 'no 503' : `503 p99 ${Math.round(percentile(unavailable, 99))} ms, max ${Math.round(Math.max(...unavailable))} ms`}; ` +
      `outage ${Math.round(outageEnded - outageStarted)} ms, served again ${Math.round(backAfter)} ms after; ${inFlight}; jobs settled, new work accepted; ${((performance.now() - started) / 1000).toFixed(1)} s`,
  };
}

// ---------------------------------------------------------------------------------------------------------------

/** OUTAGE_ONLY=<outage>[/<work>]: one row or one cell; unset, every cell. */
const ONLY = (() => {
  const raw = process.env.OUTAGE_ONLY;
  if (!raw) return undefined;
  const [outage, work, ...rest] = raw.split('/');
  if (rest.length > 0 || !OUTAGES.some((o) => o.name === outage) || (work !== undefined && !WORKS.some((w) => w.name === work))) {
    throw new Error(`OUTAGE_ONLY must be <outage>[/<work>] (outages: ${OUTAGES.map((o) => o.name).join(', ')}; works: ${WORKS.map((w) => w.name).join(', ')}), got '${raw}'`);
  }
  return { outage: outage!, work };
})();

(missing ? describe.skip : describe)('outage matrix', () => {
  let cluster: OwnPostgres;
  const webhook = new WebhookReceiver();
  beforeAll(async () => {
    cluster = await OwnPostgres.create();
    await webhook.start();
  }, 120_000);
  afterAll(async () => {
    await webhook.stop();
    await cluster?.remove();
  });

  for (const outage of OUTAGES.filter((o) => !ONLY || ONLY.outage === o.name)) {
    const works = WORKS.filter((w) => !ONLY?.work || ONLY.work === w.name);
    if (outage.missing) console.warn(`outage matrix: the row '${outage.name}' is skipped: ${outage.missing}`);
    (outage.missing ? it.skip : it)(
      `${outage.title}: during ${works.map((w) => w.title).join(', ')}, the process stays up, answers 200 or 503, and every job settles once with nothing recorded twice`,
      async () => {
        const row = await startRow(outage, cluster, webhook);
        const lines: string[] = [];
        try {
          for (const work of works) await work.setup(row.ctx);
          for (const work of works) {
            try {
              lines.push((await runCell(outage, work, row, cluster)).line);
              console.log(lines.at(-1));
            } catch (error) {
              throw Object.assign(error as Error, {
                message: `[${outage.name} × ${work.name}] ${(error as Error).message}\nreplay: OUTAGE_ONLY=${outage.name}/${work.name} make test-faults\n\nlast server output:\n${row.server.tail()}\n\nPostgreSQL log:\n${cluster.log()}`,
              });
            }
          }
        } finally {
          await row.server.stop('SIGKILL');
          await row.handle.close();
          if (row.smallDisk) unmountSmallDisk(row.dir);
          else await rm(row.dir, { recursive: true, force: true });
        }
      },
      works.length * 150_000 + 120_000,
    );
  }
});
