import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { describe, it } from '@jest/globals';
import { freePort, start, waitForHttp, type Started } from '../../contract-tests/processes.js';
import { PROJECT_ROOT } from '../src/paths.js';
import { systemClock } from '../src/domain/clock.js';
import { DEFAULT_ORGANIZATION } from '../src/domain/organizations/service.js';
import { createServices } from '../src/services.js';
import { migrateToLatest, openDatabase } from '../src/storage/database.js';
import { expect } from './expect.js';
import { adminQuery } from './postgres.js';
import { serverEntry } from './server-process.js';

/**
 * A server that stops (SIGTERM) hands the jobs it runs back: two server processes share one database (a SQLite file,
 * or PostgreSQL when TEST_DATABASE_URL is set), one of them is stopped in the middle of a large scan, and the other
 * takes the scan up and finishes it. The lease is ten minutes, far longer than the test waits: the other server can
 * only take the job because the stopping one handed it back, its attempt not counted, rather than letting it fail or
 * leaving it to its lease. Driven by curl, as any client would.
 */
const POSTGRES_URL = process.env.TEST_DATABASE_URL;
const run = promisify(execFile);
const LEASE_MS = 600_000;
/** Enough resources that the scan is still running when the server that runs it is told to stop. */
const RESOURCES = 10_000;
const ACCOUNT = '987650000001';
/** Stall detectors: far above what each step takes, far below the lease. */
const STEP_TIMEOUT_MS = 120_000;

const TARGETS = [{ name: 'sqlite' as const }, ...(POSTGRES_URL ? [{ name: 'postgres' as const }] : [])];

interface Server {
  started: Started;
  url: string;
  pid: number;
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = STEP_TIMEOUT_MS): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`still waiting for ${what} after ${timeoutMs / 1000} s`);
    await sleep(50);
  }
}

const ownerPid = (owner: string | null): number | undefined => {
  const match = owner && /:(\d+):[^:]+$/.exec(owner);
  return match ? Number(match[1]) : undefined;
};

describe.each(TARGETS)('a stopping server hands its jobs back [$name, two server processes]', ({ name }) => {
  it(
    'SIGTERM during a scan: the stopping server records nothing of it, and the other takes it up as the same attempt and finishes it',
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'handed-back-'));
      const database = name === 'sqlite' ? { url: `sqlite:${join(dir, 'app.db')}`, drop: async () => undefined } : await postgresDatabase();
      const servers: Server[] = [];
      const handle = openDatabase(database.url);
      try {
        const env: NodeJS.ProcessEnv = {
          ...process.env,
          DATABASE_URL: database.url,
          HOST: '127.0.0.1',
          CONDUCTOR_ROOT_SECRET_FILE: join(dir, 'root-secret'),
          CONSOLE_ADMIN_PASSWORD_FILE: join(dir, 'admin-password'),
          DEMO_DATA: 'false',
          VALIDATE_RESPONSES: 'true',
          JOB_LEASE_MS: String(LEASE_MS),
          // Far longer than handing back takes on a busy machine: what is shown is the hand-back, not a deadline.
          SHUTDOWN_TIMEOUT_MS: '60000',
          SIM_DRIFT_RATE: '0',
        };
        // What `admin api-clients create` and `admin simulator accounts create` do, without starting two more
        // processes: an API client, and the account the scan lists.
        await migrateToLatest(handle);
        const services = createServices(handle, systemClock);
        const org = await services.organizations.ensure(DEFAULT_ORGANIZATION);
        const { client, secret } = await services.apiClients.createWithSecret(org.id, 'curl');
        await services.cloud.ensureAccount('provider_a', ACCOUNT, RESOURCES);
        await services.evaluation.close();
        for (let i = 0; i < 2; i += 1) {
          const port = await freePort();
          const started = start(process.execPath, serverEntry('main'), { ...env, PORT: String(port) }, PROJECT_ROOT);
          servers.push({ started, url: `http://127.0.0.1:${port}`, pid: started.child.pid! });
        }
        await Promise.all(servers.map((s) => waitForHttp(`${s.url}/readyz`, s.started, STEP_TIMEOUT_MS)));

        const curl = async (base: string, method: string, path: string, body?: unknown) => {
          const args = ['--silent', '--user', `${client.clientId}:${secret}`, '--request', method, '--write-out', '\n%{http_code}', `${base}${path}`];
          if (body !== undefined) args.push('--header', 'Content-Type: application/json', '--data', JSON.stringify(body));
          const { stdout: out } = await run('curl', args);
          const cut = out.lastIndexOf('\n');
          const text = out.slice(0, cut);
          return { status: Number(out.slice(cut + 1)), body: text === '' ? undefined : (JSON.parse(text) as Record<string, any>), text };
        };

        const created = await curl(servers[0]!.url, 'POST', '/v0/environments', {
          name: 'large',
          provider: 'provider_a',
          provider_options: { provider_a: { role_arn: `arn:prova:iam::${ACCOUNT}:role/scanner`, regions: ['*'] } },
        });
        expect(created.status, created.text).toBe(201);
        const scan = await curl(servers[0]!.url, 'POST', `/v0/scans?environment_id=${created.body!.id}`);
        expect(scan.status, scan.text).toBe(201);
        const scanId = scan.body!.id as string;
        const { db } = handle;
        const jobId = (await db.selectFrom('scans').select('job_id').where('id', '=', scanId).executeTakeFirstOrThrow()).job_id!;
        const job = () => db.selectFrom('jobs').selectAll().where('id', '=', jobId).executeTakeFirstOrThrow();
        const stored = async () => Number((await db.selectFrom('scan_resources').select((eb) => eb.fn.countAll().as('n')).where('scan_id', '=', scanId).executeTakeFirstOrThrow()).n);

        // The scan is under way: some of its results are written.
        const holder = await until('the scan to be under way', async () => {
          const row = await job();
          const pid = ownerPid(row.lease_owner);
          return row.status === 'running' && pid !== undefined && (await stored()) > 0 ? servers.find((s) => s.pid === pid) : undefined;
        });
        const other = servers.find((s) => s !== holder)!;
        const exited = once(holder.started.child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
        holder.started.child.kill('SIGTERM');
        const [code, signal] = await exited;
        const output = holder.started.output();
        expect({ code, signal }, output).toEqual({ code: 0, signal: null });

        // Handed back, not failed, not finished, not retried later: queued now with the attempt not counted, or
        // already taken up by the other server.
        const afterStop = await job();
        expect(afterStop.status === 'queued' || (afterStop.status === 'running' && ownerPid(afterStop.lease_owner) === other.pid), JSON.stringify(afterStop)).toBe(true);
        expect(afterStop).toMatchObject({ attempts: afterStop.status === 'queued' ? 0 : 1, last_error: null });
        expect(await db.selectFrom('scans').select(['status', 'message']).where('id', '=', scanId).executeTakeFirstOrThrow()).toEqual({ status: 'IN_PROGRESS', message: null });
        // Its log: the job's last line says it was handed back, and no line says anything failed.
        const lines = output
          .split('\n')
          .filter((line) => line.startsWith('{'))
          .map((line) => JSON.parse(line) as { level: number; msg: string; jobId?: string });
        const ofJob = lines.filter((line) => line.jobId === jobId);
        expect(ofJob.at(-1)?.msg, output).toMatch(/^job handed back/);
        expect(ofJob.filter((line) => line.level >= 40)).toEqual([]);
        expect(output).not.toContain('driver has already been destroyed');

        // The other server finishes it, as the first attempt.
        const finished = await until('the other server to finish the scan', async () => {
          const res = await curl(other.url, 'GET', `/v0/scans/${scanId}`);
          return res.body?.status === 'IN_PROGRESS' ? undefined : res.body;
        });
        expect({ status: finished!.status, message: finished!.message }).toEqual({ status: 'SUCCESS', message: null });
        // The job is recorded done just after the scan it ran is written: wait for that step too.
        const done = await until('the job to be recorded as done', async () => {
          const row = await job();
          return row.status === 'running' ? undefined : row;
        });
        expect(done).toMatchObject({ status: 'succeeded', attempts: 1, last_error: null });
        const total = finished!.resource_summary.total as number;
        expect(total).toBeGreaterThan(0);
        const distinct = Number((await db.selectFrom('scan_resources').select((eb) => eb.fn.count('resource_id').distinct().as('n')).where('scan_id', '=', scanId).executeTakeFirstOrThrow()).n);
        expect({ stored: await stored(), distinct }).toEqual({ stored: total, distinct: total });
        // And the environment takes the next scan.
        const next = await curl(other.url, 'POST', `/v0/scans?environment_id=${created.body!.id}`);
        expect(next.status, next.text).toBe(201);
      } finally {
        await Promise.all(servers.map((s) => s.started.stop()));
        await handle.close();
        await database.drop();
        await rm(dir, { recursive: true, force: true });
      }
    },
    600_000,
  );
});

async function postgresDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const database = `handed_back_${randomBytes(6).toString('hex')}`;
  await adminQuery(POSTGRES_URL!, `create database ${database}`);
  const url = new URL(POSTGRES_URL!);
  url.pathname = `/${database}`;
  return { url: url.toString(), drop: () => adminQuery(POSTGRES_URL!, `drop database if exists ${database} with (force)`) };
}
