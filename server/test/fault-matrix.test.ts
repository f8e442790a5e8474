import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, openSync, readFileSync, readSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import type { Kysely } from 'kysely';
import { describe, it } from '@jest/globals';
import { Random } from '../src/domain/cloud/random.js';
import { accountKey, defaultAccountSize, listingError } from '../src/domain/cloud/simulator/simulated-cloud.js';
import { INVITE_DELIVERY_JOB } from '../src/domain/access/invitations.js';
import { hashSecret } from '../src/domain/auth/secrets.js';
import { claimedFile, type ArmedFault, type FaultTraceLine } from '../src/domain/jobs/fault-points.js';
import { PROJECT_ROOT } from '../src/paths.js';
import { openDatabase, type DatabaseHandle } from '../src/storage/database.js';
import type { Database } from '../src/storage/schema.js';
import { compositionTar } from './conductor.js';
import { expect } from './expect.js';
import { basic, startTestServer } from './server.js';
import { openTestDatabase } from './databases.js';
import { adminQuery } from './postgres.js';
import { WebhookReceiver } from './webhook-receiver.js';
import { invitationLink, SmtpSink } from './smtp-sink.js';
import { ServerProcess, serverEntry } from './server-process.js';

/**
 * The fault matrix: for each kind of background work, a server process kills itself with SIGKILL at a fault point
 * its work passes (server/src/domain/jobs/fault-points.ts: `job:<kind>:claimed`, `…:heartbeat`, `…:handled`,
 * `…:recorded` and the handlers' own), is restarted on the same database and left to finish; then the database and
 * the API must show every job settled, nothing recorded twice, nothing left pending, and the account still taking
 * new work. On PostgreSQL two servers share the database, and the other one must take the job over.
 *
 * A point of the code, not a moment in time: a calibration run without a fault traces the points the kind's work
 * passes and how often; each run then arms one (point, hit) of that trace, and the server that reaches it dies
 * there. So a failing run replays exactly: its message prints the command (FAULT_SEED and FAULT_ONLY).
 *
 * The give-up column has one run per kind of job (the kinds with `giveUp` below), in the SQLite cells after their
 * fault runs: the job is killed at its first point (`…:claimed`) in every attempt, until the queue gives it up; then
 * what it worked on must have ended with the reason (a scan ERROR, a dry-run FAILED, a kill left SUSPENDED, a
 * delivery recorded failed), and new work on the same environment, account or process must succeed at once.
 * FAULT_ONLY=give-up[/<kind>] runs it alone.
 *
 * FAULT_SEED picks the hits and the accounts' inventories (fixed by default). FAULT_RUNS sets the runs per kind;
 * by default one per distinct point of the trace, each point once (the queue's own points in the first kind only:
 * QUEUE_POINTS), on SQLite; two on PostgreSQL (`defaultRuns`). FAULT_ONLY=<target>[/<kind>[/<run>]] runs one
 * target, one kind of it, or one run of it (targets: sqlite, postgres, give-up; kinds: their `name` below).
 */
const SEED = process.env.FAULT_SEED || 'fault-matrix';
const RUNS = process.env.FAULT_RUNS ? Number(process.env.FAULT_RUNS) : undefined;
if (RUNS !== undefined && (!Number.isInteger(RUNS) || RUNS < 1)) throw new Error(`FAULT_RUNS must be a whole number above 0, got '${process.env.FAULT_RUNS}'`);
/** Runs a kind gets by default at most: every kind passes fewer distinct points than this today. */
const MAX_DEFAULT_RUNS = 8;
/**
 * The queue's own points, passed alike by every kind: before the handler starts (`…:claimed`) and once the outcome is
 * committed (`…:recorded`). A kill there leaves a job claimed and untouched, or a job settled, and what follows is the
 * queue's code alone; so by default only the first kind of each target arms them, and the others arm the points where
 * their own work is under way. With FAULT_RUNS every kind arms every point.
 */
const QUEUE_POINTS = ['claimed', 'recorded'];
const POSTGRES_URL = process.env.TEST_DATABASE_URL;

const ROOT_SECRET = 'fault-matrix-root-secret';
const ROOT = basic('root', ROOT_SECRET);
/**
 * Short leases, so that a job of a killed server is taken over soon after its replacement is up; long enough that a
 * live server's heartbeats keep them on a machine whose other processes hold both cores. A scan heartbeats between
 * batches, and its batches are evaluated on threads at a lower priority (`niceIncrement`), which such a machine
 * starves first: a 1-second lease, and once a 3-second one (with `yes` on one core and a scan bench beside `make
 * test`), ran out under a live scan, which was then taken over until given up.
 */
const LEASE_MS = 6_000;
const SETTLE_TIMEOUT_MS = 45_000;
/**
 * The last point of a job (`…:recorded`) is passed just after the job's success is committed, which the test may
 * see first: a run whose work looks settled is given this long to reach its point before it counts as a miss.
 */
const LAST_POINT_GRACE_MS = 100;
const run = promisify(execFile);

interface Reply {
  status: number;
  body: any;
  text: string;
}

async function request(port: number, method: string, path: string, options: { auth: string; body?: unknown }): Promise<Reply> {
  const headers: Record<string, string> = { authorization: options.auth };
  let body: string | Buffer | undefined;
  if (Buffer.isBuffer(options.body)) {
    body = options.body;
    headers['content-type'] = 'application/x-tar';
  } else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] = 'application/json';
  }
  const res = await fetch(`http://127.0.0.1:${port}${path}`, { method, headers, body });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.status, body: parsed, text };
}

// ---------------------------------------------------------------------------------------------------------------
// Databases: a SQLite file, or a PostgreSQL database of its own, per kind


async function freshDatabase(target: Target, dir: string): Promise<{ url: string; drop(): Promise<void> }> {
  if (target.name === 'sqlite') return { url: `sqlite:${join(dir, 'app.db')}`, drop: async () => undefined };
  const name = `fault_${randomBytes(6).toString('hex')}`;
  await adminQuery(POSTGRES_URL!, `create database ${name}`);
  const url = new URL(POSTGRES_URL!);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => adminQuery(POSTGRES_URL!, `drop database if exists ${name} with (force)`) };
}

// ---------------------------------------------------------------------------------------------------------------
// The kinds of work

interface Context {
  /** A request to a listening server (as root on the conductor API, as the API client on the compliance API). */
  call(method: string, path: string, body?: unknown): Promise<Reply>;
  db: Kysely<Database>;
  webhook: WebhookReceiver;
  /** Where the servers send email (SMTP_URL). */
  mail: SmtpSink;
  /** What setup leaves for the runs and the checks. */
  state: Record<string, any>;
}

interface Kind {
  /** As FAULT_ONLY names it. */
  name: string;
  title: string;
  /** The kinds of job whose fault points the runs arm (others the work passes are traced, never armed). */
  jobKinds: string[];
  /** Needs an API client (the compliance API). */
  compliance?: boolean;
  driftRate?: number;
  setup(ctx: Context): Promise<void>;
  /**
   * What a run (CALIBRATION_RUN and below: the calibration's; GIVE_UP_RUN: the give-up column's) works on, made before its fault is armed:
   * a run depends on nothing an earlier run did, so that it replays alone.
   */
  prepare?(ctx: Context, run: number): Promise<void>;
  /** Starts the run's work; resolves when its request is answered (or its server died). */
  begin(ctx: Context, run: number): Promise<unknown>;
  /** Work the domain still holds unfinished (scans in progress, dry-runs pending, process jobs open, …). */
  unfinished(db: Kysely<Database>): Promise<number>;
  check(ctx: Context): Promise<void>;
  newWork(ctx: Context): Promise<void>;
  /** The kind's cell of the give-up column, if it has one (one per kind of job). */
  giveUp?: GiveUp;
}

/** How a kind's job is given up in the give-up column, and what must show for it. */
interface GiveUp {
  /** The job killed in every attempt. */
  jobKind: string;
  /** What the job `jobId` worked on ended with `reason` (the job's error), and nothing waits on it. */
  check(ctx: Context, reason: string, jobId: string): Promise<void>;
}

const count = async (query: { executeTakeFirstOrThrow(): Promise<{ n: unknown }> }): Promise<number> => Number((await query.executeTakeFirstOrThrow()).n);

/** Eight resources, so that a process job has many steps to be killed between; `variant` 1 changes and drops some. */
function composition(variant: 0 | 1): Promise<Buffer> {
  const resources = [];
  for (let i = 0; i < 4; i += 1) {
    resources.push({ name: `assets-${i}`, type: 'PROVA.S3.Bucket', properties: { versioning: variant === 0 ? 'Enabled' : 'Suspended' }, tags: { env: 'prod' } });
    if (variant === 0 || i < 2) resources.push({ name: `jobs-${i}`, type: 'PROVA.SQS.Queue', region: 'us-east-1', properties: { visibility_timeout_seconds: 30 + variant }, tags: { owner: 'web' } });
  }
  return compositionTar(resources);
}

/**
 * The provider_a account number of a name (`acct-3`, `env-3`): one no other name of the cell uses, so its inventory
 * is generated by the first work that touches it, and the same one in a replay of the run. Of the sizes the
 * simulated cloud gives accounts (150–500 resources), one that lists in two pages of 200 even without the types
 * the account may not list: a scan passes its heartbeat as often as the calibration's did, so the hit armed is
 * reached.
 */
function accountNumber(name: string): string {
  for (let attempt = 0; ; attempt += 1) {
    const account = String(300_000_000_000 + new Random(`${SEED}:account:${name}:${attempt}`).int(0, 99_999_999_999));
    const size = defaultAccountSize(accountKey('provider_a', account));
    if (size >= 260 && size <= 390) return account;
  }
}

/** The give-up column's run, as `prepare` and `begin` are told. */
const GIVE_UP_RUN = -2;

/**
 * The calibration's run, as `prepare` and `begin` are told; one made again (see `calibrate`) is told the number below
 * the last.
 */
const CALIBRATION_RUN = -100;
/** Calibrations a cell makes at most before it gives up on a machine too busy to run a job once. */
const MAX_CALIBRATIONS = 3;

/** The run's name in names of things it works on: `calibration` (`calibration-2`, …), `give-up`, or its number. */
const runName = (run: number): string =>
  run === GIVE_UP_RUN ? 'give-up' : run === CALIBRATION_RUN ? 'calibration' : run < CALIBRATION_RUN ? `calibration-${CALIBRATION_RUN - run + 1}` : String(run);

async function addAccount(ctx: Context, name: string): Promise<string> {
  const res = await ctx.call('POST', '/api/v0/accounts', { name, provider: 'provider_a', account_id: accountNumber(name) });
  expect(res.status, res.text).toBe(201);
  return name;
}

async function createProcess(ctx: Context, account: string, alias: string): Promise<string> {
  const res = await ctx.call('POST', `/api/v0/processes?account=${account}&alias=${alias}`, await composition(0));
  expect(res.status, res.text).toBe(201);
  return res.body.fid as string;
}

/** Waits until the process has no job open and every resource is where its composition wants it. */
async function converged(ctx: Context, fid: string, state = 'RUNNING'): Promise<void> {
  await waitFor(`process ${fid} to converge`, async () => {
    const res = await ctx.call('GET', `/api/v0/processes/${fid}`);
    const open = await count(ctx.db.selectFrom('conductor_jobs').select((eb) => eb.fn.countAll().as('n')).where('fid', '=', fid).where('status', 'in', ['queued', 'running']));
    return res.status === 200 && res.body.state === state && open === 0;
  });
}

async function startScan(ctx: Context, environmentId: string): Promise<Reply> {
  return ctx.call('POST', `/v0/scans?environment_id=${environmentId}`);
}

async function createEnvironment(ctx: Context, name: string): Promise<string> {
  const res = await ctx.call('POST', '/v0/environments', {
    name,
    provider: 'provider_a',
    provider_options: { provider_a: { role_arn: `arn:prova:iam::${accountNumber(name)}:role/scanner`, regions: ['*'] } },
  });
  expect(res.status, res.text).toBe(201);
  return res.body.id as string;
}

async function scanSucceeds(ctx: Context, environmentId: string): Promise<void> {
  const started = await startScan(ctx, environmentId);
  expect(started.status, `a new scan of ${environmentId}: ${started.text}`).toBe(201);
  await waitFor(`scan ${started.body.id} to finish`, async () => (await ctx.call('GET', `/v0/scans/${started.body.id}`)).body.status !== 'IN_PROGRESS');
  const finished = await ctx.call('GET', `/v0/scans/${started.body.id}`);
  expect({ status: finished.body.status, message: finished.body.message }, finished.text).toEqual({ status: 'SUCCESS', message: null });
}

// Invariants shared by several kinds ------------------------------------------------------------------------------

/** Every generated inventory is whole: the resources generated for an account are all there (drift is off). */
async function inventoriesAreWhole(db: Kysely<Database>): Promise<void> {
  const accounts = await db.selectFrom('cloud_accounts').select(['account_key']).execute();
  const partial: string[] = [];
  for (const { account_key: key } of accounts) {
    const size = defaultAccountSize(key);
    const held = await count(db.selectFrom('cloud_resources').select((eb) => eb.fn.countAll().as('n')).where('account_key', '=', key).where('seq', '<', size));
    if (held !== size) partial.push(`${key}: ${held} of ${size} generated resources`);
  }
  expect(partial).toEqual([]);
}

async function scansAreSettled(db: Kysely<Database>, driftRate: number): Promise<void> {
  expect(await db.selectFrom('scans').select(['id', 'environment_id']).where('status', '=', 'IN_PROGRESS').execute()).toEqual([]);
  const environments = await db.selectFrom('environments').select(['id', 'last_scan_id', 'scan_status', 'provider_options', 'survey_resource_types']).execute();
  for (const env of environments) {
    const newest = await db.selectFrom('scans').select(['id', 'status']).where('environment_id', '=', env.id).orderBy('created_seq', 'desc').limit(1).executeTakeFirst();
    // The environment shows its newest scan (the last created: scans started in one second share created_at) and
    // how it ended.
    expect({ env: env.id, last_scan_id: env.last_scan_id, scan_status: env.scan_status }).toEqual({ env: env.id, last_scan_id: newest?.id ?? null, scan_status: newest?.status ?? null });
  }
  // One result set per scan: the resources it stored are the ones its summary counts, each once.
  const scans = await db.selectFrom('scans').select(['id', 'environment_id', 'summary']).where('status', '=', 'SUCCESS').execute();
  for (const scan of scans) {
    const stored = await count(db.selectFrom('scan_resources').select((eb) => eb.fn.countAll().as('n')).where('scan_id', '=', scan.id));
    const distinct = await count(db.selectFrom('scan_resources').select((eb) => eb.fn.count('resource_id').distinct().as('n')).where('scan_id', '=', scan.id));
    const summary = JSON.parse(scan.summary!) as { total: number };
    expect({ scan: scan.id, stored, distinct }).toEqual({ scan: scan.id, stored: summary.total, distinct: summary.total });
    if (driftRate > 0) continue;
    // Without drift, the scan saw the account's whole inventory of the types it could list.
    const env = environments.find((e) => e.id === scan.environment_id)!;
    const account = /::(\d+):role/.exec(env.provider_options)![1]!;
    const types = (JSON.parse(env.survey_resource_types) as string[]).filter((t) => !listingError('provider_a', account, t));
    const inventory = await count(
      db.selectFrom('cloud_resources').select((eb) => eb.fn.countAll().as('n')).where('account_key', '=', accountKey('provider_a', account)).where('type', 'in', types),
    );
    expect({ scan: scan.id, total: summary.total }).toEqual({ scan: scan.id, total: inventory });
  }
  // One event per change: a resource appears at most once per kind of event in a scan.
  const duplicated = await db
    .selectFrom('events')
    .select(['scan_id', 'event_type', 'resource_id', (eb) => eb.fn.countAll().as('n')])
    .groupBy(['scan_id', 'event_type', 'resource_id'])
    .having((eb) => eb.fn.countAll(), '>', 1)
    .execute();
  expect(duplicated).toEqual([]);
}

async function processesAreSettled(db: Kysely<Database>): Promise<void> {
  expect(await db.selectFrom('conductor_jobs').select(['id', 'fid', 'purpose', 'status']).where('status', 'in', ['queued', 'running']).execute()).toEqual([]);
  expect(await db.selectFrom('conductor_processes').select(['fid', 'state']).where('state', '=', 'KILLING').execute()).toEqual([]);
  // One history entry per lifecycle step, one operation per step of a job.
  const history = await db
    .selectFrom('conductor_history')
    .select(['fid', 'event', 'job_id', (eb) => eb.fn.countAll().as('n')])
    .where('job_id', 'is not', null)
    .groupBy(['fid', 'event', 'job_id'])
    .having((eb) => eb.fn.countAll(), '>', 1)
    .execute();
  expect(history).toEqual([]);
  const positions = await db
    .selectFrom('conductor_history')
    .select(['fid', 'ordinal', 'seq', (eb) => eb.fn.countAll().as('n')])
    .groupBy(['fid', 'ordinal', 'seq'])
    .having((eb) => eb.fn.countAll(), '>', 1)
    .execute();
  expect(positions).toEqual([]);
  const operations = await db
    .selectFrom('conductor_operations')
    .select(['job_id', 'seq', (eb) => eb.fn.countAll().as('n')])
    .groupBy(['job_id', 'seq'])
    .having((eb) => eb.fn.countAll(), '>', 1)
    .execute();
  expect(operations).toEqual([]);
  const created = await db
    .selectFrom('conductor_operations')
    .select(['job_id', 'resource_name', (eb) => eb.fn.countAll().as('n')])
    .where('operation', '=', 'create')
    .where('status', '=', 'succeeded')
    .groupBy(['job_id', 'resource_name'])
    .having((eb) => eb.fn.countAll(), '>', 1)
    .execute();
  expect(created).toEqual([]);

  // The cloud matches the processes: a running process's resources are there once each, none pending; a killed
  // process left nothing behind.
  const processes = await db.selectFrom('conductor_processes').select(['fid', 'state', 'account_id']).execute();
  for (const process of processes) {
    const suffix = `-${process.fid.slice(0, 8)}`;
    const inCloud = await db
      .selectFrom('cloud_resources')
      .select(['resource_id', 'name'])
      .where('account_key', '=', accountKey('provider_a', process.account_id))
      .where('name', 'like', `%${suffix}`)
      .execute();
    const resources = await db.selectFrom('conductor_process_resources').select(['name', 'status', 'resource_id', 'retired']).where('fid', '=', process.fid).execute();
    if (process.state === 'KILLED') {
      expect({ fid: process.fid, inCloud }).toEqual({ fid: process.fid, inCloud: [] });
      continue;
    }
    const wanted = resources.filter((r) => r.retired === 0);
    // A RUNNING process has every resource; one SUSPENDED by a kill that was given up has some already deleted.
    const settledStatuses = process.state === 'RUNNING' ? ['present'] : ['present', 'deleted'];
    expect({ fid: process.fid, unsettled: wanted.filter((r) => !settledStatuses.includes(r.status)) }).toEqual({ fid: process.fid, unsettled: [] });
    const present = wanted.filter((r) => r.status === 'present').map((r) => r.resource_id);
    expect({ fid: process.fid, inCloud: inCloud.map((r) => r.resource_id).sort() }).toEqual({ fid: process.fid, inCloud: present.sort() });
  }
}

// The kinds --------------------------------------------------------------------------------------------------------

const KINDS: Kind[] = [
  {
    name: 'scan',
    title: 'scan',
    jobKinds: ['scan'],
    compliance: true,
    async setup(ctx) {
      ctx.state.environments = new Map<number, string>();
    },
    // Every run scans an environment whose account was never listed: the scan generates its inventory.
    async prepare(ctx, i) {
      ctx.state.environments.set(i, await createEnvironment(ctx, `env-${runName(i)}`));
    },
    begin: (ctx, i) => startScan(ctx, ctx.state.environments.get(i)),
    unfinished: (db) => count(db.selectFrom('scans').select((eb) => eb.fn.countAll().as('n')).where('status', '=', 'IN_PROGRESS')),
    async check(ctx) {
      await scansAreSettled(ctx.db, 0);
      await inventoriesAreWhole(ctx.db);
    },
    async newWork(ctx) {
      for (const environment of ctx.state.environments.values()) await scanSucceeds(ctx, environment);
    },
    giveUp: {
      jobKind: 'scan',
      async check(ctx, reason, jobId) {
        await scansAreSettled(ctx.db, 0);
        const scan = await ctx.db.selectFrom('scans').select(['id', 'environment_id']).where('job_id', '=', jobId).executeTakeFirstOrThrow();
        const answer = await ctx.call('GET', `/v0/scans/${scan.id}`);
        expect({ status: answer.body.status, message: answer.body.message }).toEqual({ status: 'ERROR', message: `the scan was given up: ${reason}` });
        const environment = await ctx.call('GET', `/v0/environments/${scan.environment_id}`);
        expect(environment.body.scan_status).toBe('ERROR');
      },
    },
  },
  {
    name: 'dry-run',
    title: 'dry-run',
    jobKinds: ['conductor.dry-run'],
    async setup(ctx) {
      ctx.state.accounts = new Map<number, string>();
      ctx.state.composition = await composition(0);
    },
    // Every run plans a process in an account never touched: planning generates its inventory.
    async prepare(ctx, i) {
      ctx.state.accounts.set(i, await addAccount(ctx, `acct-${runName(i)}`));
    },
    begin: (ctx, i) => ctx.call('POST', `/api/v0/dry-run?command=RUN&account=${ctx.state.accounts.get(i)}`, ctx.state.composition),
    unfinished: (db) => count(db.selectFrom('conductor_dry_runs').select((eb) => eb.fn.countAll().as('n')).where('status', 'in', ['PENDING', 'RUNNING'])),
    async check(ctx) {
      const dryRuns = await ctx.db.selectFrom('conductor_dry_runs').select(['id', 'status', 'finished_at']).execute();
      expect(dryRuns.filter((d) => !['SUCCEEDED', 'FAILED'].includes(d.status) || d.finished_at === null)).toEqual([]);
      await inventoriesAreWhole(ctx.db);
    },
    async newWork(ctx) {
      for (const account of ctx.state.accounts.values()) {
        const requested = await ctx.call('POST', `/api/v0/dry-run?command=RUN&account=${account}`, ctx.state.composition);
        expect(requested.status, requested.text).toBe(202);
        const answered = await ctx.call('GET', `/api/v0/dry-run/${requested.body.id}?timeout=30`);
        expect(answered.body).toMatchObject({ status: 'SUCCEEDED', errors: [] });
      }
      const [first] = ctx.state.accounts.values();
      await converged(ctx, await createProcess(ctx, first, 'after-faults'));
    },
    giveUp: {
      jobKind: 'conductor.dry-run',
      async check(ctx, reason, jobId) {
        const dryRun = await ctx.db.selectFrom('conductor_dry_runs').select('id').where('job_id', '=', jobId).executeTakeFirstOrThrow();
        const answer = await ctx.call('GET', `/api/v0/dry-run/${dryRun.id}`);
        expect(answer.body).toMatchObject({ status: 'FAILED', plan: [], errors: [{ code: 'dry_run.error', message: `the dry-run could not be completed: ${reason}` }] });
        await inventoriesAreWhole(ctx.db);
      },
    },
  },
  {
    name: 'process-create',
    title: 'process create',
    jobKinds: ['conductor.process'],
    async setup(ctx) {
      ctx.state.accounts = new Map<number, string>();
      ctx.state.composition = await composition(0);
    },
    // Every run creates a process in an account never touched: creating its resources generates the inventory.
    async prepare(ctx, i) {
      ctx.state.accounts.set(i, await addAccount(ctx, `acct-${runName(i)}`));
    },
    begin: (ctx, i) => ctx.call('POST', `/api/v0/processes?account=${ctx.state.accounts.get(i)}&alias=p-${runName(i)}`, ctx.state.composition),
    unfinished: (db) => count(db.selectFrom('conductor_jobs').select((eb) => eb.fn.countAll().as('n')).where('status', 'in', ['queued', 'running'])),
    async check(ctx) {
      await processesAreSettled(ctx.db);
      await inventoriesAreWhole(ctx.db);
    },
    async newWork(ctx) {
      for (const account of ctx.state.accounts.values()) await converged(ctx, await createProcess(ctx, account, `after-${account}`));
    },
  },
  {
    name: 'process-update',
    title: 'process update',
    jobKinds: ['conductor.process'],
    async setup(ctx) {
      ctx.state.account = await addAccount(ctx, 'acct-updated');
      ctx.state.fid = await createProcess(ctx, ctx.state.account, 'updated');
      await converged(ctx, ctx.state.fid);
      ctx.state.compositions = [await composition(0), await composition(1)];
      ctx.state.applied = 0;
    },
    // Every run (the calibration too) changes the process from the first composition to the second: the one
    // before is put back first, unless it is still there.
    async prepare(ctx) {
      if (ctx.state.applied === 0) return;
      const restored = await ctx.call('PUT', `/api/v0/processes/${ctx.state.fid}/composition`, ctx.state.compositions[0]);
      expect(restored.status, restored.text).toBe(202);
      ctx.state.applied = 0;
      await converged(ctx, ctx.state.fid);
    },
    begin(ctx) {
      ctx.state.applied = 1;
      return ctx.call('PUT', `/api/v0/processes/${ctx.state.fid}/composition`, ctx.state.compositions[1]);
    },
    unfinished: (db) => count(db.selectFrom('conductor_jobs').select((eb) => eb.fn.countAll().as('n')).where('status', 'in', ['queued', 'running'])),
    async check(ctx) {
      await processesAreSettled(ctx.db);
      await inventoriesAreWhole(ctx.db);
    },
    async newWork(ctx) {
      const updated = await ctx.call('PUT', `/api/v0/processes/${ctx.state.fid}/composition`, ctx.state.compositions[0]);
      expect(updated.status, updated.text).toBe(202);
      await converged(ctx, ctx.state.fid);
      await converged(ctx, await createProcess(ctx, ctx.state.account, 'after-faults'));
      await processesAreSettled(ctx.db);
    },
  },
  {
    name: 'process-kill',
    title: 'process kill',
    jobKinds: ['conductor.process'],
    async setup(ctx) {
      ctx.state.account = await addAccount(ctx, 'acct-doomed');
      ctx.state.fids = new Map<number, string>();
    },
    async prepare(ctx, i) {
      const fid = await createProcess(ctx, ctx.state.account, `doomed-${runName(i)}`);
      await converged(ctx, fid);
      ctx.state.fids.set(i, fid);
    },
    begin: (ctx, i) => ctx.call('DELETE', `/api/v0/processes/${ctx.state.fids.get(i)}?kill=true`),
    unfinished: (db) =>
      count(db.selectFrom('conductor_jobs').select((eb) => eb.fn.countAll().as('n')).where('status', 'in', ['queued', 'running'])),
    async check(ctx) {
      await processesAreSettled(ctx.db);
      const states = await ctx.db.selectFrom('conductor_processes').select(['fid', 'state']).where('fid', 'in', [...ctx.state.fids.values()]).execute();
      // A kill either went through or (its job given up) left the process SUSPENDED, to be killed again.
      expect(states.filter((p) => !['KILLED', 'SUSPENDED', 'RUNNING'].includes(p.state))).toEqual([]);
      await inventoriesAreWhole(ctx.db);
    },
    async newWork(ctx) {
      for (const fid of ctx.state.fids.values()) {
        const process = await ctx.call('GET', `/api/v0/processes/${fid}`);
        if (process.body.state === 'KILLED') continue;
        expect((await ctx.call('DELETE', `/api/v0/processes/${fid}?kill=true`)).status).toBe(202);
        await converged(ctx, fid, 'KILLED');
      }
      await converged(ctx, await createProcess(ctx, ctx.state.account, 'after-faults'));
      await processesAreSettled(ctx.db);
    },
    giveUp: {
      jobKind: 'conductor.process',
      async check(ctx, reason, jobId) {
        await processesAreSettled(ctx.db);
        const kill = await ctx.db.selectFrom('conductor_jobs').select(['fid', 'purpose', 'status', 'message']).where('queue_job_id', '=', jobId).executeTakeFirstOrThrow();
        expect(kill).toEqual({ fid: kill.fid, purpose: 'kill', status: 'failed', message: reason });
        const process = await ctx.call('GET', `/api/v0/processes/${kill.fid}`);
        expect(process.body.state).toBe('SUSPENDED');
        const history = await ctx.call('GET', `/api/v0/processes/${kill.fid}/history`);
        expect(history.body.items.at(-1)).toMatchObject({ event: 'kill_failed', details: { reason } });
      },
    },
  },
  {
    name: 'notification-delivery',
    title: 'notification delivery',
    // The scans that cause the deliveries are the scan kind's to kill.
    jobKinds: ['notification-delivery'],
    compliance: true,
    driftRate: 0.05,
    async setup(ctx) {
      ctx.state.environment = await createEnvironment(ctx, 'watched');
      await scanSucceeds(ctx, ctx.state.environment);
      const first = await ctx.call('GET', `/v0/scans?environment_id=${ctx.state.environment}`);
      // Against a baseline, every scan of the drifting account records DRIFT events, and so notifies.
      const baseline = await ctx.call('PATCH', `/v0/environments/${ctx.state.environment}`, { baseline_id: first.body.items[0].id });
      expect(baseline.status, baseline.text).toBe(200);
      const notification = await ctx.call('POST', '/v0/notifications', {
        name: 'drift hook',
        events: ['drift'],
        environments: [ctx.state.environment],
        webhook_url: `http://127.0.0.1:${ctx.webhook.port}/hook`,
        webhook_secret: 'fault-matrix-webhook-secret',
      });
      expect(notification.status, notification.text).toBe(201);
    },
    begin: (ctx) => startScan(ctx, ctx.state.environment),
    unfinished: (db) => count(db.selectFrom('scans').select((eb) => eb.fn.countAll().as('n')).where('status', '=', 'IN_PROGRESS')),
    async check(ctx) {
      await scansAreSettled(ctx.db, 0.05);
      const deliveries = await ctx.db.selectFrom('jobs').select(['id', 'status', 'payload', 'attempts']).where('kind', 'like', '%notification%').execute();
      // One delivery per successful scan that recorded events, each recorded as delivered once, and sent.
      const notified = await ctx.db
        .selectFrom('scans')
        .select('id')
        .where('status', '=', 'SUCCESS')
        .where('id', 'in', (eb) => eb.selectFrom('events').select('scan_id').where('event_type', '=', 'DRIFT'))
        .execute();
      const scansDelivered = deliveries.map((d) => (JSON.parse(d.payload) as { scanId: string }).scanId).sort();
      expect(scansDelivered).toEqual(notified.map((s) => s.id).sort());
      const records = await ctx.db.selectFrom('notification_deliveries').select(['delivery_id', 'attempt', 'status']).execute();
      for (const delivery of deliveries) {
        const succeeded = records.filter((r) => r.delivery_id === delivery.id && r.status === 'succeeded');
        expect({ delivery: delivery.id, status: delivery.status, succeeded: succeeded.length }).toEqual({
          delivery: delivery.id,
          status: 'succeeded',
          succeeded: 1,
        });
        expect({ delivery: delivery.id, sent: ctx.webhook.timesReceived(delivery.id) > 0 }).toEqual({ delivery: delivery.id, sent: true });
      }
    },
    async newWork(ctx) {
      await scanSucceeds(ctx, ctx.state.environment);
      await waitFor('the new scan to be delivered', async () => {
        const open = await count(ctx.db.selectFrom('jobs').select((eb) => eb.fn.countAll().as('n')).where('status', 'in', ['queued', 'running']));
        return open === 0;
      });
      const newest = await ctx.call('GET', `/v0/scans?environment_id=${ctx.state.environment}`);
      const delivered = await ctx.db.selectFrom('notification_deliveries').select('status').where('scan_id', '=', newest.body.items[0].id).execute();
      expect(delivered).toEqual([{ status: 'succeeded' }]);
    },
    giveUp: {
      jobKind: 'notification-delivery',
      async check(ctx, reason, jobId) {
        await scansAreSettled(ctx.db, 0.05);
        const notifications = await ctx.call('GET', '/v0/notifications');
        const [notification] = notifications.body.items;
        expect(notification.last_error).toBe(`webhook: ${reason} (gave up after 5 attempts)`);
        const deliveries = await ctx.call('GET', `/v0/notifications/${notification.notification_id}/deliveries?max_items=100`);
        // Killed before sending in every attempt: nothing went out, and the give-up is the one attempt recorded.
        expect(deliveries.body.items.filter((d: { delivery_id: string }) => d.delivery_id === jobId)).toEqual([
          expect.objectContaining({ attempt: 5, status: 'failed', will_retry: false, error: reason, http_status: null }),
        ]);
        expect(ctx.webhook.timesReceived(jobId)).toBe(0);
      },
    },
  },
  {
    name: 'invite-delivery',
    title: 'invite delivery',
    jobKinds: [INVITE_DELIVERY_JOB],
    compliance: true,
    async setup(ctx) {
      const group = await ctx.call('POST', '/v0/groups', { name: 'auditors', policy: 'builtin:AUDITOR', environment_ids: ['*'] });
      expect(group.status, group.text).toBe(201);
      ctx.state.group = group.body.id;
    },
    begin: (ctx, run) => ctx.call('POST', '/v0/invites', { email: `invited-${runName(run)}@example.com`, group_ids: [ctx.state.group] }),
    unfinished: (db) => count(unemailedInvites(db).select((eb) => eb.fn.countAll().as('n'))),
    async check(ctx) {
      // Each invite emailed at least once (a kill after sending sends again), and the link of the last email to its
      // address is the one that works: only its token's hash is kept.
      const invites = await ctx.db.selectFrom('invites').select(['id', 'email', 'token_hash', 'delivery_error']).execute();
      for (const invite of invites.filter((i) => i.delivery_error === null)) {
        const last = ctx.mail.to(invite.email).at(-1);
        expect({ invite: invite.email, emailed: last !== undefined }).toEqual({ invite: invite.email, emailed: true });
        expect({ invite: invite.email, latestLinkWorks: invite.token_hash === hashSecret(invitationLink(last!.text).token) }).toEqual({
          invite: invite.email,
          latestLinkWorks: true,
        });
      }
    },
    async newWork(ctx) {
      const invited = await ctx.call('POST', '/v0/invites', { email: 'invited-afterwards@example.com', group_ids: [ctx.state.group] });
      expect(invited.status, invited.text).toBe(201);
      await waitFor('the new invite to be emailed', async () => ctx.mail.to('invited-afterwards@example.com').length > 0);
    },
    giveUp: {
      jobKind: INVITE_DELIVERY_JOB,
      async check(ctx, reason, jobId) {
        const job = await ctx.db.selectFrom('jobs').select('payload').where('id', '=', jobId).executeTakeFirstOrThrow();
        const { inviteId } = JSON.parse(job.payload) as { inviteId: string };
        const invite = await ctx.call('GET', `/v0/invites/${inviteId}`);
        expect(invite.body).toMatchObject({ status: 'EXPIRED', delivery_error: reason });
        // Killed before sending in every attempt: nothing went out, and the address may be invited again at once.
        expect(ctx.mail.to(invite.body.email)).toEqual([]);
        const again = await ctx.call('POST', '/v0/invites', { email: invite.body.email, group_ids: [ctx.state.group] });
        expect(again.status, again.text).toBe(201);
      },
    },
  },
];

// ---------------------------------------------------------------------------------------------------------------
// The runs

interface Target {
  name: 'sqlite' | 'postgres';
  /** Server processes sharing the database. */
  servers: 1 | 2;
  /** Its cells also run the give-up column's run of their kind (see giveUpInCell). */
  giveUpColumn: boolean;
  /**
   * Runs a kind gets by default at most. Every point of a kind is tried on SQLite; on PostgreSQL what a run adds is
   * the other server taking the job over from the dead one, the same code whichever point it died at, so two runs
   * (two points of the seed's order) show it. FAULT_RUNS overrides both.
   */
  defaultRuns: number;
}

const ALL_TARGETS: Target[] = [
  { name: 'sqlite', servers: 1, giveUpColumn: true, defaultRuns: MAX_DEFAULT_RUNS },
  { name: 'postgres', servers: 2, giveUpColumn: false, defaultRuns: 2 },
];
/** As FAULT_ONLY names the give-up column: its runs alone, in the cells of the target that has it. */
const GIVE_UP_COLUMN = 'give-up' as const;

/** FAULT_ONLY=<target>[/<kind>[/<run>]]: what to run alone; unset, everything. */
const ONLY = parseOnly(process.env.FAULT_ONLY);

function parseOnly(raw: string | undefined): { target: string; kind?: string; run?: number } | undefined {
  if (!raw) return undefined;
  const [target, kind, run, ...rest] = raw.split('/');
  const known = `targets: ${[...ALL_TARGETS.map((t) => t.name), GIVE_UP_COLUMN].join(', ')}; kinds: ${KINDS.map((k) => k.name).join(', ')}`;
  const giveUp = target === GIVE_UP_COLUMN;
  if (
    rest.length > 0 ||
    !(giveUp || ALL_TARGETS.some((t) => t.name === target)) ||
    (kind !== undefined && !KINDS.some((k) => k.name === kind && (!giveUp || k.giveUp))) ||
    (run !== undefined && (giveUp || !/^[0-9]+$/.test(run)))
  ) {
    throw new Error(`FAULT_ONLY must be <target>[/<kind>[/<run>]] or ${GIVE_UP_COLUMN}[/<kind>] (${known}), got '${raw}'`);
  }
  if (target === 'postgres' && !POSTGRES_URL) throw new Error(`FAULT_ONLY='${raw}' needs TEST_DATABASE_URL`);
  return { target: target!, ...(kind !== undefined && { kind }), ...(run !== undefined && { run: Number(run) }) };
}

const TARGETS = ALL_TARGETS.filter((t) => (t.name === 'sqlite' || POSTGRES_URL) && (!ONLY || ONLY.target === t.name || (ONLY.target === GIVE_UP_COLUMN && t.giveUpColumn)));

const shellWord = (word: string): string => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`);

/** The command that runs a cell, one run of it, or its give-up run, again as it ran. */
function replayCommand(target: Target, kind: Kind, run?: number, column?: typeof GIVE_UP_COLUMN): string {
  const only = column ? [column, kind.name] : [target.name, kind.name, ...(run === undefined ? [] : [String(run)])];
  const words = [`FAULT_SEED=${shellWord(SEED)}`, `FAULT_ONLY=${shellWord(only.join('/'))}`];
  if (run === undefined && column === undefined && RUNS !== undefined) words.push(`FAULT_RUNS=${RUNS}`);
  if (target.name === 'postgres') words.push(`TEST_DATABASE_URL=${shellWord(POSTGRES_URL!)}`);
  return `${words.join(' ')} make test-faults`;
}

async function waitFor(what: string, ready: () => Promise<boolean>, timeoutMs = SETTLE_TIMEOUT_MS): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await ready())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(25);
  }
}

/** The passes of fault points the servers of a cell append to its trace file, read as they come. */
class Trace {
  private offset = 0;

  constructor(readonly file: string) {}

  /** The passes appended since the last call; whole lines only, as a server may be writing one. */
  take(): FaultTraceLine[] {
    let fd: number;
    try {
      fd = openSync(this.file, 'r');
    } catch {
      return [];
    }
    try {
      const chunks: Buffer[] = [];
      const buffer = Buffer.alloc(64 * 1024);
      for (let position = this.offset; ; ) {
        const n = readSync(fd, buffer, 0, buffer.length, position);
        if (n === 0) break;
        chunks.push(Buffer.from(buffer.subarray(0, n)));
        position += n;
      }
      const text = Buffer.concat(chunks);
      const end = text.lastIndexOf(10) + 1;
      this.offset += end;
      return text
        .subarray(0, end)
        .toString('utf8')
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as FaultTraceLine);
    } finally {
      closeSync(fd);
    }
  }

  /**
   * Waits until no pass was appended for a moment, and answers the passes since the last call. The work looks
   * settled in the database a moment before its last job passes `…:recorded`: a fault armed in between would
   * count that pass as its first.
   */
  async quiet(): Promise<FaultTraceLine[]> {
    const lines = this.take();
    for (;;) {
      await sleep(LAST_POINT_GRACE_MS);
      const more = this.take();
      if (more.length === 0) return lines;
      lines.push(...more);
    }
  }
}

/**
 * How often the work passed each point of the kind's jobs, sorted by point, all servers together: an armed hit is
 * counted across the servers sharing the armed file (fault-points.ts), as the scheduler may hand the jobs of one
 * piece of work to either.
 */
function passesOf(lines: FaultTraceLine[], kind: Kind): Map<string, number> {
  const passes = new Map<string, number>();
  for (const line of lines) {
    if (kind.jobKinds.some((jobKind) => line.point.startsWith(`job:${jobKind}:`))) passes.set(line.point, (passes.get(line.point) ?? 0) + 1);
  }
  return new Map([...passes].sort(([a], [b]) => a.localeCompare(b)));
}

const describePasses = (passes: Map<string, number>): string => [...passes].map(([point, n]) => `${point}×${n}`).join(' ') || 'none';

/** What each server passed of the kind's points during a run, and where one died: `pid 123: …:claimed×1 …`. */
function describeRun(lines: FaultTraceLine[], kind: Kind): string {
  const pids = [...new Set(lines.map((line) => line.pid))];
  const servers = pids.map((pid) => {
    const own = lines.filter((line) => line.pid === pid);
    const died = own.find((line) => line.fault !== undefined);
    return `pid ${pid}: ${describePasses(passesOf(own, kind))}${died ? ` (died at ${died.point}#${died.hit})` : ''}`;
  });
  return servers.join('; ') || 'none';
}

/** Arms a fault for the servers of a cell: written beside and renamed, so that a server never reads half of it. */
function arm(file: string, fault: ArmedFault): void {
  rmSync(claimedFile(file), { force: true });
  writeFileSync(`${file}.next`, JSON.stringify(fault));
  renameSync(`${file}.next`, file);
}

/** Takes an armed fault back; false when a server claimed it first (and is dying). */
function withdraw(file: string): boolean {
  try {
    renameSync(file, `${file}.withdrawn`);
    return true;
  } catch {
    return false;
  }
}

/**
 * Waits until a server dies at the armed fault, and answers it; or until the run's request was answered and its
 * work settled without any server reaching the fault (a miss), and answers undefined.
 */
async function faultReached(servers: ServerProcess[], armedFile: string, fault: ArmedFault, work: Promise<unknown>, settled: () => Promise<boolean>): Promise<ServerProcess | undefined> {
  let answered = false;
  void work.then(() => (answered = true));
  const deadline = Date.now() + SETTLE_TIMEOUT_MS;
  const dead = () => servers.find((s) => s.exit !== undefined && !s.killed);
  for (;;) {
    const server = dead();
    if (server) {
      const claimed = JSON.parse(readFileSync(claimedFile(armedFile), 'utf8')) as ArmedFault;
      if (server.exit!.signal !== 'SIGKILL' || claimed.id !== fault.id) {
        throw new Error(`server ${server.pid} exited (${server.exit!.code ?? server.exit!.signal}) without reaching ${fault.point}#${fault.hit}:\n${server.output}`);
      }
      return server;
    }
    if (answered && (await settled())) {
      // The last point of a job is passed just after the job is recorded: give it its moment.
      await sleep(LAST_POINT_GRACE_MS);
      if (dead()) continue;
      if (withdraw(armedFile)) return undefined;
      // A server claimed the fault meanwhile: it is dying.
      await Promise.race([...servers.map((s) => s.exited), sleep(5_000)]);
      continue;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${SETTLE_TIMEOUT_MS} ms waiting for ${fault.point}#${fault.hit} to be reached or the work to settle`);
    await sleep(10);
  }
}

/** Everything the domain holds unfinished, to say what a run that never settles is waiting for. */
async function unfinishedWork(db: Kysely<Database>) {
  return {
    scans: await db.selectFrom('scans').select(['id', 'job_id', 'created_at']).where('status', '=', 'IN_PROGRESS').execute(),
    dryRuns: await db.selectFrom('conductor_dry_runs').select(['id', 'status', 'job_id', 'created_at']).where('status', 'in', ['PENDING', 'RUNNING']).execute(),
    invitesNotEmailed: await unemailedInvites(db).select(['id', 'email']).execute(),
    processJobs: await db.selectFrom('conductor_jobs').select(['id', 'fid', 'purpose', 'status', 'queue_job_id']).where('status', 'in', ['queued', 'running']).execute(),
  };
}

/** Invites neither emailed (no link's token kept) nor given up. */
const unemailedInvites = (db: Kysely<Database>) => db.selectFrom('invites').where('token_hash', 'is', null).where('delivery_error', 'is', null);

/** Jobs due or running: work some server should be doing now. */
const busyJobs = (db: Kysely<Database>) =>
  db
    .selectFrom('jobs')
    .select(['id', 'kind', 'status', 'lease_owner', 'attempts', 'max_attempts', 'run_at'])
    .where((eb) => eb.or([eb('status', '=', 'running'), eb.and([eb('status', '=', 'queued'), eb('run_at', '<=', Date.now())])]))
    .execute();

const ownerPid = (owner: string | null): number | undefined => {
  const match = owner && /:(\d+):[^:]+$/.exec(owner);
  return match ? Number(match[1]) : undefined;
};

/** Every job ended, or waits for a retry it has attempts left for; none is held by a dead worker. */
async function jobsAreSettled(db: Kysely<Database>): Promise<void> {
  const jobs = await db.selectFrom('jobs').select(['id', 'kind', 'status', 'attempts', 'max_attempts', 'lease_owner', 'last_error']).execute();
  expect(jobs.filter((j) => !(j.status === 'succeeded' || j.status === 'failed' || (j.status === 'queued' && j.attempts < j.max_attempts)))).toEqual([]);
}

interface RunOutcome {
  run: number;
  fault: ArmedFault;
  /** The server reached the fault and died there; false: the work settled without reaching it (a miss). */
  killed: boolean;
}

interface CellOutcome {
  /** The points the calibration run passed, and how often. */
  calibration: Map<string, number>;
  runs: RunOutcome[];
  /** Jobs another server took over (two servers). */
  takeovers: number;
  /** The give-up column's run, when the target has the column. */
  giveUp?: GiveUpOutcome;
  wallMs: number;
}

/** What a cell runs in: a database of its own, the target's servers on it, a client, and the kind set up. */
interface Cell {
  armedFile: string;
  trace: Trace;
  env: NodeJS.ProcessEnv;
  /** A server that died is replaced in place. */
  servers: ServerProcess[];
  db: Kysely<Database>;
  ctx: Context;
  /** No job due or running, and nothing of the kind's unfinished. */
  settled(): Promise<boolean>;
  untilSettled(what: string): Promise<void>;
  phase(name: string): void;
}

/**
 * Sets a cell up, runs `body` in it and takes it down. A failure's message says where it happened (`where`), the
 * command that replays it, and what the servers printed last.
 */
async function inCell<T>(
  target: Target,
  kind: Kind,
  body: (cell: Cell) => Promise<T>,
  where: (trace: Trace) => { text: string; run?: number; column?: typeof GIVE_UP_COLUMN },
): Promise<T> {
  const started = Date.now();
  const phase = (name: string) => process.env.FAULT_VERBOSE && console.log(`${kind.title}: ${name} at ${Date.now() - started} ms`);
  const dir = await mkdtemp(join(tmpdir(), 'fault-matrix-'));
  const armedFile = join(dir, 'fault.json');
  const trace = new Trace(join(dir, 'fault-trace.jsonl'));
  const database = await freshDatabase(target, dir);
  const mail = new SmtpSink();
  await mail.start();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: database.url,
    CONDUCTOR_ROOT_SECRET: ROOT_SECRET,
    CONDUCTOR_ROOT_SECRET_FILE: join(dir, 'root-secret'),
    CONSOLE_ADMIN_PASSWORD_FILE: join(dir, 'admin-password'),
    PORT: '0',
    DEMO_DATA: 'false',
    JOB_LEASE_MS: String(LEASE_MS),
    SCHEDULER_INTERVAL_MS: '500',
    ENFORCEMENT_INTERVAL_MS: '500',
    SIM_DRIFT_RATE: String(kind.driftRate ?? 0),
    WEBHOOK_ALLOW_PRIVATE: 'true',
    SMTP_URL: mail.url,
    SHUTDOWN_TIMEOUT_MS: '2000',
    FAULT_POINTS_FILE: armedFile,
    FAULT_TRACE_FILE: trace.file,
  };
  const webhook = new WebhookReceiver();
  const servers: ServerProcess[] = [];
  let handle: DatabaseHandle | undefined;
  let auth = '';
  try {
    await webhook.start();
    if (kind.compliance) {
      const { stdout } = await run(process.execPath, [...serverEntry('admin'), 'api-clients', 'create', '--name', 'fault-matrix', '--json'], { cwd: PROJECT_ROOT, env });
      const credentials = JSON.parse(stdout) as { client_id: string; client_secret: string };
      auth = basic(credentials.client_id, credentials.client_secret);
    }
    for (let i = 0; i < target.servers; i += 1) servers.push(new ServerProcess(env));
    await Promise.all(servers.map((s) => s.ready));
    phase('servers up');
    handle = openDatabase(database.url);
    const db = handle.db;
    let turn = 0;
    const listening = async (): Promise<number> => {
      for (;;) {
        const up = servers.filter((s) => s.listening);
        if (up.length > 0) return up[turn++ % up.length]!.port!;
        // A server that died listening has its `ready` settled long ago: only the ones starting are waited for.
        await Promise.race([sleep(50), ...servers.filter((s) => s.exit === undefined && !s.killed).map((s) => s.ready.catch(() => undefined))]);
      }
    };
    const ctx: Context = {
      async call(method, path, body) {
        return request(await listening(), method, path, { auth: path.startsWith('/api/') ? ROOT : auth, body });
      },
      db,
      webhook,
      mail,
      state: {},
    };
    const settled = async () => (await busyJobs(db)).length === 0 && (await kind.unfinished(db)) === 0;
    const untilSettled = (what: string) =>
      waitFor(what, settled).catch(async (error: Error) => {
        throw new Error(`${error.message}; jobs due or running: ${JSON.stringify(await busyJobs(db))}; unfinished: ${JSON.stringify(await unfinishedWork(db))}`);
      });

    await kind.setup(ctx);
    await untilSettled('the setup to finish');
    phase('set up');
    return await body({ armedFile, trace, env, servers, db, ctx, settled, untilSettled, phase });
  } catch (error) {
    const logs = servers.map((s) => s.output.split('\n').filter((l) => !/^listening/.test(l)).slice(-20).join('\n')).join('\n---\n');
    const { text, run: failedRun, column } = where(trace);
    throw Object.assign(error as Error, {
      message: `${(error as Error).message}\n\n${text}\nreplay: ${replayCommand(target, kind, failedRun, column)}\n\nlast server output:\n${logs}`,
    });
  } finally {
    await Promise.all(servers.map((s) => (s.killed || s.exit !== undefined ? undefined : s.kill())));
    await handle?.close();
    await webhook.stop();
    await mail.stop();
    await database.drop();
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Runs one kind through its faults on one target, then, on a target with the give-up column, its give-up run (in
 * the same servers and database: a cell of its own would start them and set the kind up again for one run). Under
 * FAULT_ONLY=give-up only the give-up run.
 */
async function faultMatrix(target: Target, kind: Kind): Promise<CellOutcome> {
  const started = Date.now();
  const faultRuns = ONLY?.target !== GIVE_UP_COLUMN;
  const giveUpRun = target.giveUpColumn && kind.giveUp !== undefined && ONLY?.run === undefined;
  const runs: RunOutcome[] = [];
  let takeovers = 0;
  /** The run under way, with what its servers passed once it settled, for the message of a failure. */
  let current: { run: number; fault: ArmedFault; passed?: FaultTraceLine[] } | undefined;
  const giving: GiveUpProgress = { kills: [] };
  const where = (trace: Trace) =>
    giving.point !== undefined
      ? { text: `give-up run: killed at ${giving.point} in attempts ${giving.kills.join(', ') || 'none yet'} of job ${giving.jobId ?? '(not claimed yet)'}`, column: GIVE_UP_COLUMN }
      : current
        ? { text: `run ${current.run}: fault at ${current.fault.point}#${current.fault.hit}; passed since it was armed: ${describeRun(current.passed ?? trace.take(), kind)}`, run: current.run }
        : { text: `outside the runs (runs done: ${runs.map((r) => `${r.run} ${r.fault.point}#${r.fault.hit}${r.killed ? '' : ' missed'}`).join(', ') || 'none'})` };
  return inCell(
    target,
    kind,
    async (cell) => {
      const { armedFile, trace, env, servers, db, ctx, settled, untilSettled, phase } = cell;
      let calibration = new Map<string, number>();
      // One run without a fault traces the points the kind's work passes, and how often: a run in which every job
      // ran once. An attempt that lost its lease (the machine too busy for its heartbeat) and was taken up again
      // passes its points twice — the lost attempt sometimes to its end, its success then left unrecorded — and runs
      // armed from those counts would miss: a calibration in which a job of the kind was claimed more than once is
      // made again.
      for (let attempt = 0; faultRuns; attempt += 1) {
        const run = CALIBRATION_RUN - attempt;
        await kind.prepare?.(ctx, run);
        await untilSettled(`the ${runName(run)} run to be prepared`);
        await trace.quiet();
        const earlier = new Set((await db.selectFrom('jobs').select('id').execute()).map((job) => job.id));
        await kind.begin(ctx, run).catch(() => undefined);
        await untilSettled(`the ${runName(run)} run`);
        calibration = passesOf(await trace.quiet(), kind);
        if (calibration.size === 0) throw new Error(`the calibration run passed no fault point of ${kind.jobKinds.join(', ')}`);
        const ranAgain = await db.selectFrom('jobs').select(['id', 'kind']).where('kind', 'in', kind.jobKinds).where('attempts', '>', 1).execute();
        const retried = [
          ...new Set([
            ...kind.jobKinds.filter((jobKind) => calibration.get(`job:${jobKind}:claimed`) !== calibration.get(`job:${jobKind}:recorded`)),
            ...ranAgain.filter((job) => !earlier.has(job.id)).map((job) => job.kind),
          ]),
        ];
        if (retried.length === 0) {
          phase(`calibrated: ${describePasses(calibration)}`);
          break;
        }
        phase(`${runName(run)}: a job of ${retried.join(', ')} was claimed again (an attempt was taken up again): ${describePasses(calibration)}`);
        if (attempt + 1 === MAX_CALIBRATIONS) throw new Error(`no calibration run in ${MAX_CALIBRATIONS} ran each job once: ${describePasses(calibration)}`);
      }
      const points = [...calibration.keys()].filter(
        (point) => RUNS !== undefined || kind === KINDS[0] || !QUEUE_POINTS.some((name) => kind.jobKinds.some((jobKind) => point === `job:${jobKind}:${name}`)),
      );

      // Each distinct point once, in an order of the seed's, then round again with other hits when FAULT_RUNS asks
      // for more; the hit of each run is drawn from a generator of its own, so that one run replays alone.
      const order = new Random(`${SEED}:${target.name}:${kind.name}`).sample(points, points.length);
      const runCount = faultRuns ? (RUNS ?? Math.min(points.length, target.defaultRuns)) : 0;
      const indexes = ONLY?.run !== undefined ? [ONLY.run] : Array.from({ length: runCount }, (_, i) => i);
      for (const i of indexes) {
        const point = order[i % order.length]!;
        const fault: ArmedFault = { id: `${SEED}:${target.name}/${kind.name}/${i}`, point, hit: new Random(`${SEED}:${target.name}:${kind.name}:${i}`).int(1, calibration.get(point)!) };
        current = { run: i, fault };
        await kind.prepare?.(ctx, i);
        await untilSettled(`run ${i} to be prepared`);
        await trace.quiet();
        arm(armedFile, fault);
        const work = kind.begin(ctx, i).catch(() => undefined);
        const dead = await faultReached(servers, armedFile, fault, work, settled);
        if (!dead) {
          await work;
        } else if (target.servers === 1) {
          await work;
          const restart = Date.now();
          servers[0] = new ServerProcess(env);
          await servers[0].ready;
          phase(`run ${i}: ${point}#${fault.hit} reached, restarted in ${Date.now() - restart} ms`);
        } else {
          // Two servers: the other must take over the jobs whose lease the dead one held, before its replacement
          // starts.
          const index = servers.indexOf(dead);
          const survivor = servers.find((s, n) => n !== index)!;
          const orphaned = (await busyJobs(db)).filter((j) => j.status === 'running' && ownerPid(j.lease_owner) === dead.pid).map((j) => j.id);
          for (const id of orphaned) {
            await waitFor(`job ${id} to be taken over`, async () => {
              const job = await db.selectFrom('jobs').select(['status', 'lease_owner']).where('id', '=', id).executeTakeFirstOrThrow();
              return job.status !== 'running' || ownerPid(job.lease_owner) === survivor.pid;
            });
            takeovers += 1;
          }
          await work;
          servers[index] = new ServerProcess(env);
          phase(`run ${i}: ${point}#${fault.hit} reached, ${orphaned.length} job(s) taken over`);
        }
        await untilSettled(`the work of run ${i} to be taken over and finished`);
        current.passed = trace.take();
        await jobsAreSettled(db);
        await kind.check(ctx);
        runs.push({ run: i, fault, killed: dead !== undefined });
        current = undefined;
      }
      await Promise.all(servers.map((s) => s.ready));
      phase('faults done');
      await untilSettled('every job to finish after the last fault');
      phase('settled');
      await jobsAreSettled(db);
      await kind.check(ctx);
      phase('checked');
      const giveUp = giveUpRun ? await giveUpInCell(cell, target, kind as Kind & { giveUp: GiveUp }, giving) : undefined;
      // New work on everything the runs worked on, the give-up run's too.
      await kind.newWork(ctx);
      phase('new work done');
      return { calibration, runs, takeovers, ...(giveUp && { giveUp }), wallMs: Date.now() - started };
    },
    where,
  );
}

/** How far the give-up run got, for the message of a failure. */
interface GiveUpProgress {
  point?: string;
  jobId?: string;
  /** The attempts killed so far. */
  kills: number[];
}

interface GiveUpOutcome {
  /** The point armed in every attempt, and the attempts it killed. */
  point: string;
  kills: number;
  /** The job's error once given up. */
  reason: string;
  wallMs: number;
}

/**
 * The give-up column's run: the kind's job is killed in every attempt, at its first point (`job:<kind>:claimed`,
 * armed anew for each attempt), until no attempt is left and the queue gives it up. Then the job must be failed with
 * the reason, every job settled, and what it worked on ended with the reason (kind.giveUp.check); the kind's new
 * work, after this, shows that it takes new work at once.
 */
async function giveUpInCell(cell: Cell, target: Target, kind: Kind & { giveUp: GiveUp }, progress: GiveUpProgress): Promise<GiveUpOutcome> {
  const started = Date.now();
  const { armedFile, env, servers, db, ctx, untilSettled, phase } = cell;
  const point = `job:${kind.giveUp.jobKind}:claimed`;
  progress.point = point;
  await kind.prepare?.(ctx, GIVE_UP_RUN);
  await untilSettled('the give-up run to be prepared');
  // Each attempt's fault is a new one, so that its hits count from the attempt's start.
  const faultOf = (attempt: number): ArmedFault => ({ id: `${SEED}:${GIVE_UP_COLUMN}/${target.name}/${kind.name}/attempt-${attempt}`, point, hit: 1 });
  let fault = faultOf(1);
  arm(armedFile, fault);
  const work = kind.begin(ctx, GIVE_UP_RUN).catch(() => undefined);
  for (;;) {
    const dead = (await faultReached(servers, armedFile, fault, work, async () => false))!;
    const held = await db.selectFrom('jobs').selectAll().where('kind', '=', kind.giveUp.jobKind).where('status', '=', 'running').execute();
    const job = held.find((j) => ownerPid(j.lease_owner) === dead.pid);
    if (!job) throw new Error(`server ${dead.pid} died at ${point} holding no ${kind.giveUp.jobKind} job: ${JSON.stringify(held)}`);
    progress.jobId ??= job.id;
    expect({ job: job.id, attempt: job.attempts }).toEqual({ job: progress.jobId, attempt: progress.kills.length + 1 });
    progress.kills.push(job.attempts);
    const last = job.attempts >= job.max_attempts;
    if (!last) {
      fault = faultOf(job.attempts + 1);
      arm(armedFile, fault);
    }
    // The replacement may take the job up, and die at the next attempt's fault, before it even listens.
    servers[servers.indexOf(dead)] = new ServerProcess(env);
    phase(`give-up run: attempt ${job.attempts} of ${job.max_attempts} killed at ${point}, server restarted`);
    if (last) break;
  }
  await work;
  await Promise.all(servers.map((s) => s.ready));
  await untilSettled('the job to be given up');
  const job = await db.selectFrom('jobs').select(['status', 'attempts', 'max_attempts', 'last_error']).where('id', '=', progress.jobId!).executeTakeFirstOrThrow();
  expect(job).toEqual({ status: 'failed', attempts: job.max_attempts, max_attempts: job.max_attempts, last_error: expect.stringMatching(/^abandoned: /) });
  await jobsAreSettled(db);
  await kind.giveUp.check(ctx, job.last_error!, progress.jobId!);
  phase('give-up run: given up and settled');
  return { point, kills: progress.kills.length, reason: job.last_error!, wallMs: Date.now() - started };
}

describe('fault matrix', () => {
  it('has a kind of work for every kind of job the server registers, and a give-up cell for each', async () => {
    const db = await openTestDatabase({ name: 'sqlite', url: 'sqlite::memory:' });
    const server = await startTestServer(db);
    try {
      const registered = server.services.jobs.kinds().sort();
      expect([...new Set(KINDS.flatMap((k) => k.jobKinds))].sort()).toEqual(registered);
      expect([...new Set(KINDS.flatMap((k) => (k.giveUp ? [k.giveUp.jobKind] : [])))].sort()).toEqual(registered);
    } finally {
      await server.close();
      await db.dispose();
    }
  });

  for (const target of TARGETS) {
    describe(`[${target.name}, ${target.servers === 1 ? 'one server' : 'two servers'}]`, () => {
      for (const kind of KINDS.filter((k) => (!ONLY?.kind || ONLY.kind === k.name) && (ONLY?.target !== GIVE_UP_COLUMN || k.giveUp))) {
        const giveUp = target.giveUpColumn && kind.giveUp !== undefined;
        it(
          `${kind.title}: a SIGKILL at each fault point its work passes${giveUp ? ', and in every attempt of one job until it is given up' : ''}, then every job settles, nothing is recorded twice or left pending${giveUp ? ', what was given up ended with the reason' : ''}, and new work succeeds`,
          async () => {
            const outcome = await faultMatrix(target, kind);
            const kills = outcome.runs.filter((r) => r.killed);
            const misses = outcome.runs.filter((r) => !r.killed);
            const hits = (runs: RunOutcome[]) => runs.map((r) => `${r.fault.point}#${r.fault.hit}`).join(', ') || 'none';
            const lines: string[] = [];
            if (ONLY?.target !== GIVE_UP_COLUMN) {
              lines.push(
                `fault matrix [${target.name}] ${kind.title}: ${outcome.runs.length} runs, ${kills.length} kills, ${misses.length} misses, ${outcome.takeovers} takeovers, ${((outcome.wallMs - (outcome.giveUp?.wallMs ?? 0)) / 1000).toFixed(1)} s`,
                `  calibration passed: ${describePasses(outcome.calibration)}`,
                `  killed at: ${hits(kills)}`,
                `  missed (the work settled first): ${hits(misses)}`,
              );
            }
            if (outcome.giveUp) {
              const { point, kills: attempts, reason, wallMs } = outcome.giveUp;
              lines.push(
                `fault matrix [${GIVE_UP_COLUMN}] ${kind.title}: 1 run, ${attempts} kills at ${point} (every attempt), given up, ${(wallMs / 1000).toFixed(1)} s`,
                `  reason: ${reason}`,
              );
            }
            console.log(lines.join('\n'));
            if (ONLY?.run !== undefined || ONLY?.target === GIVE_UP_COLUMN) return;
            expect(kills.length, `runs that reached their fault point; missed: ${hits(misses)}`).toBeGreaterThan(0);
            if (target.servers === 2) expect(outcome.takeovers).toBeGreaterThan(0);
          },
          (RUNS ?? MAX_DEFAULT_RUNS) * 20_000 + 180_000 + (giveUp ? 120_000 : 0),
        );
      }
    });
  }
});
