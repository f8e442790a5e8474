import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import type { Kysely } from 'kysely';
import { describe, it } from '@jest/globals';
import { Random } from '../src/domain/cloud/random.js';
import { accountKey, defaultAccountSize, listingError } from '../src/domain/cloud/simulator/simulated-cloud.js';
import { PROJECT_ROOT } from '../src/paths.js';
import { openDatabase, type DatabaseHandle } from '../src/storage/database.js';
import type { Database } from '../src/storage/schema.js';
import { compositionTar } from './conductor.js';
import { expect } from './expect.js';
import { basic } from './server.js';
import { adminQuery } from './postgres.js';

/**
 * The fault matrix: for each kind of background work, the server is killed with SIGKILL at a random point of the
 * work many times, restarted on the same database, and left to finish; then the database and the API must show
 * every job settled, nothing recorded twice, nothing left pending, and the account still taking new work. On
 * PostgreSQL the same runs on two servers sharing the database, killing the one holding the job's lease, and the
 * other must take the job over.
 *
 * FAULT_SEED picks the kill points (fixed by default, so a failure can be replayed); FAULT_RUNS the kills per kind.
 */
const SEED = process.env.FAULT_SEED || 'fault-matrix';
const RUNS = Number(process.env.FAULT_RUNS || 20);
if (!Number.isInteger(RUNS) || RUNS < 1) throw new Error(`FAULT_RUNS must be a whole number above 0, got '${process.env.FAULT_RUNS}'`);
const POSTGRES_URL = process.env.TEST_DATABASE_URL;

const ROOT_SECRET = 'fault-matrix-root-secret';
const ROOT = basic('root', ROOT_SECRET);
/** Short leases: a job of a killed server is taken over about as soon as its replacement is up. */
const LEASE_MS = 1_000;
const SETTLE_TIMEOUT_MS = 45_000;
/**
 * How a server or the admin command is started: from the build FAULT_BUILD names (`make test-faults` builds dist/
 * first; a compiled server starts several times faster than one compiled on the fly), otherwise from source.
 */
const BUILD = process.env.FAULT_BUILD;
const entry = (script: 'main' | 'admin'): string[] => (BUILD ? [join(BUILD, `server/src/${script}.js`)] : ['--import', 'tsx', `server/src/${script}.ts`]);
const run = promisify(execFile);

// ---------------------------------------------------------------------------------------------------------------
// Server processes

class ServerProcess {
  readonly child: ChildProcess;
  /** Resolves with the port once the server listens; rejects when it exits first (e.g. killed while starting). */
  readonly ready: Promise<number>;
  readonly exited: Promise<void>;
  port: number | undefined;
  killed = false;
  output = '';

  constructor(env: NodeJS.ProcessEnv) {
    this.child = spawn(process.execPath, entry('main'), { cwd: PROJECT_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    this.exited = new Promise((resolve) => this.child.once('exit', () => resolve()));
    this.ready = new Promise((resolve, reject) => {
      this.child.stdout!.on('data', (chunk: Buffer) => {
        this.output += chunk.toString();
        const match = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(this.output);
        if (match && this.port === undefined) {
          this.port = Number(match[1]);
          resolve(this.port);
        }
      });
      this.child.stderr!.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
      this.child.once('exit', (code, signal) => reject(new Error(`server exited (${code ?? signal}) before listening:\n${this.output}`)));
    });
    // A server killed while starting is expected; whoever needs it listening awaits `ready` and sees the failure.
    this.ready.catch(() => undefined);
  }

  get pid(): number {
    return this.child.pid!;
  }

  get listening(): boolean {
    return this.port !== undefined && !this.killed;
  }

  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    this.killed = true;
    this.child.kill(signal);
    await this.exited;
  }
}

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

/** A webhook receiver that answers after a random delay, so that kills land while deliveries are in flight. */
class WebhookReceiver {
  readonly received = new Map<string, number>();
  private server: Server | undefined;
  port = 0;

  constructor(private readonly rng: Random) {}

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const id = String(req.headers['x-delivery-id']);
        this.received.set(id, (this.received.get(id) ?? 0) + 1);
        setTimeout(() => res.writeHead(204).end(), this.rng.int(0, 300));
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as { port: number }).port;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
  }
}

interface Context {
  /** A request to a listening server (as root on the conductor API, as the API client on the compliance API). */
  call(method: string, path: string, body?: unknown): Promise<Reply>;
  db: Kysely<Database>;
  webhook: WebhookReceiver;
  /** What setup leaves for the runs and the checks. */
  state: Record<string, any>;
}

interface Kind {
  title: string;
  /** Needs an API client (the compliance API). */
  compliance?: boolean;
  driftRate?: number;
  setup(ctx: Context): Promise<void>;
  /** Starts the run's work; resolves when its request is answered (or its server died). */
  begin(ctx: Context, run: number): Promise<unknown>;
  /** Work the domain still holds unfinished (scans in progress, dry-runs pending, process jobs open, …). */
  unfinished(db: Kysely<Database>): Promise<number>;
  check(ctx: Context): Promise<void>;
  newWork(ctx: Context): Promise<void>;
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

let accountCounter = 0;
/** A provider_a account number no other run uses: its inventory is generated by the first work that touches it. */
function freshAccountId(): string {
  accountCounter += 1;
  return String(300_000_000_000 + (process.pid % 1000) * 100_000 + accountCounter);
}

async function addAccounts(ctx: Context, n: number): Promise<string[]> {
  const names: string[] = [];
  for (let i = 0; i < n; i += 1) {
    const name = `acct-${i}`;
    const res = await ctx.call('POST', '/api/v0/accounts', { name, provider: 'provider_a', account_id: freshAccountId() });
    expect(res.status, res.text).toBe(201);
    names.push(name);
  }
  return names;
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
    provider_options: { provider_a: { role_arn: `arn:prova:iam::${freshAccountId()}:role/scanner`, regions: ['*'] } },
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
    title: 'scan',
    compliance: true,
    async setup(ctx) {
      ctx.state.environments = [];
      for (let i = 0; i <= RUNS; i += 1) ctx.state.environments.push(await createEnvironment(ctx, `env-${i}`));
    },
    // Every run scans an environment whose account was never listed: the scan generates its inventory.
    begin: (ctx, i) => startScan(ctx, ctx.state.environments[i + 1]),
    unfinished: (db) => count(db.selectFrom('scans').select((eb) => eb.fn.countAll().as('n')).where('status', '=', 'IN_PROGRESS')),
    async check(ctx) {
      await scansAreSettled(ctx.db, 0);
      await inventoriesAreWhole(ctx.db);
    },
    async newWork(ctx) {
      for (const environment of ctx.state.environments) await scanSucceeds(ctx, environment);
    },
  },
  {
    title: 'dry-run',
    async setup(ctx) {
      ctx.state.accounts = await addAccounts(ctx, RUNS + 1);
      ctx.state.composition = await composition(0);
    },
    // Every run plans a process in an account never touched: planning generates its inventory.
    begin: (ctx, i) => ctx.call('POST', `/api/v0/dry-run?command=RUN&account=${ctx.state.accounts[i + 1]}`, ctx.state.composition),
    unfinished: (db) => count(db.selectFrom('conductor_dry_runs').select((eb) => eb.fn.countAll().as('n')).where('status', 'in', ['PENDING', 'RUNNING'])),
    async check(ctx) {
      const dryRuns = await ctx.db.selectFrom('conductor_dry_runs').select(['id', 'status', 'finished_at']).execute();
      expect(dryRuns.filter((d) => !['SUCCEEDED', 'FAILED'].includes(d.status) || d.finished_at === null)).toEqual([]);
      await inventoriesAreWhole(ctx.db);
    },
    async newWork(ctx) {
      for (const account of ctx.state.accounts) {
        const requested = await ctx.call('POST', `/api/v0/dry-run?command=RUN&account=${account}`, ctx.state.composition);
        expect(requested.status, requested.text).toBe(202);
        const answered = await ctx.call('GET', `/api/v0/dry-run/${requested.body.id}?timeout=30`);
        expect(answered.body).toMatchObject({ status: 'SUCCEEDED', errors: [] });
      }
      const fid = await createProcess(ctx, ctx.state.accounts[0], 'after-faults');
      await converged(ctx, fid);
    },
  },
  {
    title: 'process create',
    async setup(ctx) {
      ctx.state.accounts = await addAccounts(ctx, RUNS + 1);
      ctx.state.composition = await composition(0);
    },
    // Every run creates a process in an account never touched: creating its resources generates the inventory.
    begin: (ctx, i) => ctx.call('POST', `/api/v0/processes?account=${ctx.state.accounts[i + 1]}&alias=p-${i}`, ctx.state.composition),
    unfinished: (db) => count(db.selectFrom('conductor_jobs').select((eb) => eb.fn.countAll().as('n')).where('status', 'in', ['queued', 'running'])),
    async check(ctx) {
      await processesAreSettled(ctx.db);
      await inventoriesAreWhole(ctx.db);
    },
    async newWork(ctx) {
      for (const account of ctx.state.accounts) await converged(ctx, await createProcess(ctx, account, `after-${account}`));
    },
  },
  {
    title: 'process update',
    async setup(ctx) {
      [ctx.state.account] = await addAccounts(ctx, 1);
      ctx.state.fid = await createProcess(ctx, ctx.state.account, 'updated');
      await converged(ctx, ctx.state.fid);
      ctx.state.compositions = [await composition(0), await composition(1)];
    },
    begin: (ctx, i) => ctx.call('PUT', `/api/v0/processes/${ctx.state.fid}/composition`, ctx.state.compositions[(i + 1) % 2]),
    unfinished: (db) => count(db.selectFrom('conductor_jobs').select((eb) => eb.fn.countAll().as('n')).where('status', 'in', ['queued', 'running'])),
    async check(ctx) {
      await processesAreSettled(ctx.db);
      await inventoriesAreWhole(ctx.db);
    },
    async newWork(ctx) {
      const updated = await ctx.call('PUT', `/api/v0/processes/${ctx.state.fid}/composition`, ctx.state.compositions[RUNS % 2]);
      expect(updated.status, updated.text).toBe(202);
      await converged(ctx, ctx.state.fid);
      await converged(ctx, await createProcess(ctx, ctx.state.account, 'after-faults'));
      await processesAreSettled(ctx.db);
    },
  },
  {
    title: 'process kill',
    async setup(ctx) {
      [ctx.state.account] = await addAccounts(ctx, 1);
      ctx.state.fids = [];
      for (let i = 0; i <= RUNS; i += 1) ctx.state.fids.push(await createProcess(ctx, ctx.state.account, `doomed-${i}`));
      for (const fid of ctx.state.fids) await converged(ctx, fid);
    },
    begin: (ctx, i) => ctx.call('DELETE', `/api/v0/processes/${ctx.state.fids[i + 1]}?kill=true`),
    unfinished: (db) =>
      count(db.selectFrom('conductor_jobs').select((eb) => eb.fn.countAll().as('n')).where('status', 'in', ['queued', 'running'])),
    async check(ctx) {
      await processesAreSettled(ctx.db);
      const states = await ctx.db.selectFrom('conductor_processes').select(['fid', 'state']).where('fid', 'in', ctx.state.fids.slice(1)).execute();
      // A kill either went through or (its job given up) left the process SUSPENDED, to be killed again.
      expect(states.filter((p) => !['KILLED', 'SUSPENDED', 'RUNNING'].includes(p.state))).toEqual([]);
      await inventoriesAreWhole(ctx.db);
    },
    async newWork(ctx) {
      for (const fid of ctx.state.fids.slice(1)) {
        const process = await ctx.call('GET', `/api/v0/processes/${fid}`);
        if (process.body.state === 'KILLED') continue;
        expect((await ctx.call('DELETE', `/api/v0/processes/${fid}?kill=true`)).status).toBe(202);
        await converged(ctx, fid, 'KILLED');
      }
      await converged(ctx, await createProcess(ctx, ctx.state.account, 'after-faults'));
      await processesAreSettled(ctx.db);
    },
  },
  {
    title: 'notification delivery',
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
        expect({ delivery: delivery.id, sent: (ctx.webhook.received.get(delivery.id) ?? 0) > 0 }).toEqual({ delivery: delivery.id, sent: true });
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
  },
];

// ---------------------------------------------------------------------------------------------------------------
// The runs

interface Target {
  name: 'sqlite' | 'postgres';
  /** Server processes sharing the database. */
  servers: 1 | 2;
}

const TARGETS: Target[] = [{ name: 'sqlite', servers: 1 }, ...(POSTGRES_URL ? [{ name: 'postgres' as const, servers: 2 as const }] : [])];

async function waitFor(what: string, ready: () => Promise<boolean>, timeoutMs = SETTLE_TIMEOUT_MS): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await ready())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(25);
  }
}

/**
 * Polls the jobs closely until the request that queues them was answered and the work `settled`; answers how long
 * some job was seen running (0: never seen).
 */
async function leaseHeldMs(db: Kysely<Database>, requested: Promise<unknown>, settled: () => Promise<boolean>): Promise<number> {
  let answered = false;
  void requested.then(() => (answered = true));
  let first: number | undefined;
  let last = 0;
  const deadline = Date.now() + SETTLE_TIMEOUT_MS;
  while (Date.now() < deadline) {
    const wasAnswered = answered;
    const running = (await busyJobs(db)).some((j) => j.status === 'running');
    if (running) last = Date.now();
    if (running && first === undefined) first = last;
    if (!running && wasAnswered && (await settled())) break;
    await sleep(1);
  }
  return first === undefined ? 0 : last - first;
}

/**
 * Polls the jobs closely until one is running. False when none is within `timeoutMs`, or when none is left once
 * the request that queues them was answered: the run's jobs finished between two looks.
 */
async function leaseTaken(db: Kysely<Database>, requested: Promise<unknown>, timeoutMs: number): Promise<boolean> {
  let answered = false;
  void requested.then(() => (answered = true));
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const wasAnswered = answered;
    const busy = await busyJobs(db);
    if (busy.some((j) => j.status === 'running')) return true;
    if (wasAnswered && busy.length === 0) return false;
    await sleep(1);
  }
  return false;
}

/** Everything the domain holds unfinished, to say what a run that never settles is waiting for. */
async function unfinishedWork(db: Kysely<Database>) {
  return {
    scans: await db.selectFrom('scans').select(['id', 'job_id', 'created_at']).where('status', '=', 'IN_PROGRESS').execute(),
    dryRuns: await db.selectFrom('conductor_dry_runs').select(['id', 'status', 'job_id', 'created_at']).where('status', 'in', ['PENDING', 'RUNNING']).execute(),
    processJobs: await db.selectFrom('conductor_jobs').select(['id', 'fid', 'purpose', 'status', 'queue_job_id']).where('status', 'in', ['queued', 'running']).execute(),
  };
}

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

/** Runs one kind through its kills on one target; returns how many jobs another server took over (two servers). */
async function faultMatrix(target: Target, kind: Kind): Promise<{ kills: number; takeovers: number; wallMs: number }> {
  const started = Date.now();
  const phase = (name: string) => process.env.FAULT_VERBOSE && console.log(`${kind.title}: ${name} at ${Date.now() - started} ms`);
  const rng = new Random(`${SEED}:${target.name}:${kind.title}`);
  const dir = await mkdtemp(join(tmpdir(), 'fault-matrix-'));
  const database = await freshDatabase(target, dir);
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
    SHUTDOWN_TIMEOUT_MS: '2000',
  };
  const webhook = new WebhookReceiver(new Random(`${SEED}:webhook`));
  const servers: ServerProcess[] = [];
  let handle: DatabaseHandle | undefined;
  let kills = 0;
  let takeovers = 0;
  let auth = '';
  try {
    await webhook.start();
    if (kind.compliance) {
      const { stdout } = await run(process.execPath, [...entry('admin'), 'api-clients', 'create', '--name', 'fault-matrix', '--json'], { cwd: PROJECT_ROOT, env });
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
        await Promise.race(servers.map((s) => s.ready.catch(() => sleep(50))));
      }
    };
    const ctx: Context = {
      async call(method, path, body) {
        return request(await listening(), method, path, { auth: path.startsWith('/api/') ? ROOT : auth, body });
      },
      db,
      webhook,
      state: {},
    };
    const settled = async () => (await busyJobs(db)).length === 0 && (await kind.unfinished(db)) === 0;
    const untilSettled = (what: string) => waitFor(what, settled);

    await kind.setup(ctx);
    await untilSettled('the setup to finish');
    phase('set up');
    // One run without a fault measures the window the kills are spread over, from the request to the work done,
    // and how long a job of it holds a lease.
    const calibrationStart = Date.now();
    const calibration = kind.begin(ctx, -1).catch(() => undefined);
    const runningMs = Math.max(5, await leaseHeldMs(db, calibration, settled));
    await calibration;
    await untilSettled('the calibration run');
    const windowMs = Math.max(50, Date.now() - calibrationStart);
    phase(`calibrated: ${windowMs} ms, a lease held ${runningMs} ms`);

    for (let i = 0; i < RUNS; i += 1) {
      const work = kind.begin(ctx, i).catch(() => undefined);
      const delay = rng.next();
      // On two servers every other kill falls while a job of the run holds its lease, so that the survivor's
      // takeover is exercised on every run of the suite, not only when a point in the whole window happens to
      // land on the (often short) part of it a job runs in; the others fall anywhere in the window.
      const aimed = target.servers === 2 && i % 2 === 1 && (await leaseTaken(db, work, windowMs * 4 + 2_000));
      await sleep(Math.floor(aimed ? delay * runningMs : delay * windowMs * 1.2));
      if (target.servers === 1) {
        await servers[0]!.kill();
        kills += 1;
        await work;
        const restart = Date.now();
        servers[0] = new ServerProcess(env);
        await servers[0].ready;
        const up = Date.now();
        // Let the new server take over what the old one left before the next fault.
        await waitFor(`the work of run ${i} to be taken over and finished`, async () => (await busyJobs(db)).length === 0);
        phase(`run ${i}: restarted in ${up - restart} ms, settled in ${Date.now() - up} ms`);
        continue;
      }
      // Two servers: kill the one holding the lease of a job of this run (or, with none running, the one that
      // took the request), and see the other take the job over before its replacement starts.
      const running = (await busyJobs(db)).filter((j) => j.status === 'running');
      const victimPid = ownerPid(running[0]?.lease_owner ?? null);
      const victim = servers.findIndex((s) => s.pid === victimPid && !s.killed);
      const index = victim >= 0 ? victim : rng.int(0, servers.length - 1);
      const orphaned = running.filter((j) => ownerPid(j.lease_owner) === servers[index]!.pid).map((j) => j.id);
      await servers[index]!.kill();
      kills += 1;
      const survivor = servers.find((s, n) => n !== index)!;
      for (const id of orphaned) {
        await waitFor(`job ${id} to be taken over`, async () => {
          const job = await db.selectFrom('jobs').select(['status', 'lease_owner']).where('id', '=', id).executeTakeFirstOrThrow();
          return job.status !== 'running' || ownerPid(job.lease_owner) === survivor.pid;
        });
        takeovers += 1;
      }
      await work;
      servers[index] = new ServerProcess(env);
      await waitFor(`the work of run ${i} to finish`, async () => (await busyJobs(db)).length === 0);
    }
    await Promise.all(servers.map((s) => s.ready));
    phase('faults done');
    await untilSettled('every job to finish after the last fault').catch(async (error: Error) => {
      const unfinished = await unfinishedWork(db);
      throw new Error(`${error.message}; jobs due or running: ${JSON.stringify(await busyJobs(db))}; unfinished: ${JSON.stringify(unfinished)}`);
    });
    phase('settled');
    const jobs = await db.selectFrom('jobs').select(['id', 'kind', 'status', 'attempts', 'max_attempts', 'lease_owner', 'last_error']).execute();
    // Every job ended, or waits for a retry it has attempts left for; none is held by a dead worker.
    expect(jobs.filter((j) => !(j.status === 'succeeded' || j.status === 'failed' || (j.status === 'queued' && j.attempts < j.max_attempts)))).toEqual([]);
    await kind.check(ctx);
    phase('checked');
    await kind.newWork(ctx);
    phase('new work done');
    return { kills, takeovers, wallMs: Date.now() - started };
  } catch (error) {
    const logs = servers.map((s) => s.output.split('\n').filter((l) => !/^listening/.test(l)).slice(-20).join('\n')).join('\n---\n');
    throw Object.assign(error as Error, { message: `${(error as Error).message}\n\nlast server output:\n${logs}` });
  } finally {
    await Promise.all(servers.map((s) => (s.killed ? undefined : s.kill())));
    await handle?.close();
    await webhook.stop();
    await database.drop();
    await rm(dir, { recursive: true, force: true });
  }
}

describe('fault matrix', () => {
  for (const target of TARGETS) {
    describe(`[${target.name}, ${target.servers === 1 ? 'one server' : 'two servers'}]`, () => {
      for (const kind of KINDS) {
        it(
          `${kind.title}: after ${RUNS} SIGKILLs at random points, every job settles, nothing is recorded twice or left pending, and new work succeeds`,
          async () => {
            const outcome = await faultMatrix(target, kind);
            expect(outcome.kills).toBe(RUNS);
            if (target.servers === 2) expect(outcome.takeovers).toBeGreaterThan(0);
            console.log(`fault matrix [${target.name}] ${kind.title}: ${outcome.kills} kills, ${outcome.takeovers} takeovers, ${(outcome.wallMs / 1000).toFixed(1)} s`);
          },
          RUNS * 10_000 + 120_000,
        );
      }
    });
  }
});
