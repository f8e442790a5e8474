import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort, start, waitForHttp } from '../contract-tests/processes.js';
import { ROOT } from '../scripts/root.js';
import { systemClock } from '../server/src/domain/clock.js';
import { resourceTypesOf } from '../server/src/domain/cloud/catalog.js';
import { listingError } from '../server/src/domain/cloud/simulator/simulated-cloud.js';
import { DEFAULT_ORGANIZATION } from '../server/src/domain/organizations/service.js';
import { createServices } from '../server/src/services.js';
import { migrateToLatest, openDatabase } from '../server/src/storage/database.js';
import { adminQuery } from '../server/test/postgres.js';

/**
 * `make bench` (event-loop part): does the request thread stay free while the server works hard? The real server
 * (compiled, in its own process, on every core) scans an account of 150 000 resources while rule tests spend tens
 * of milliseconds of evaluation on every resource, one after another; meanwhile /healthz is requested every 20 ms.
 * Prints p99 and max latency of those requests against the targets (../shared/design/performance.md: p99 ≤ 20 ms,
 * max ≤ 50 ms), the scan's duration and the server's peak RSS. On SQLite, and on PostgreSQL when
 * BENCH_DATABASE_URL (or DATABASE_URL) names one (the run works in a schema of its own, dropped afterwards).
 *
 * BENCH_LARGE_ACCOUNT sets the scan's size (default 150000); BENCH_DIST the compiled server (default dist/, what
 * `make build` writes). Without a build there, the server runs from source under tsx, and says so.
 * BENCH_SERVER_NODE_ARGS adds arguments to the server's node (e.g. `--cpu-prof --cpu-prof-dir=/tmp/profile`).
 */
const LARGE = Number(process.env.BENCH_LARGE_ACCOUNT ?? 150_000);
const SAMPLE_EVERY_MS = 20;
const TARGET_P99_MS = 20;
const TARGET_MAX_MS = 50;
const MiB = 1024 * 1024;
const DIST = process.env.BENCH_DIST ?? 'dist';
const POSTGRES = process.env.BENCH_DATABASE_URL ?? (process.env.DATABASE_URL?.startsWith('postgres') ? process.env.DATABASE_URL : undefined);

/** Some 65 000 metered regular-expression matches per resource: tens of milliseconds each, within the budget. */
const HOSTILE = (() => {
  const list = `[${Array.from({ length: 256 }, (_, i) => i).join(',')}]`;
  return `${list}.all(x, ${list}.all(y, !resource.name.matches("q+x")))`;
})();

interface Row {
  store: string;
  resources: number;
  seconds: number;
  ruleTests: number;
  samples: number;
  p99: number;
  max: number;
  peakRssMiB: number;
}

/** An account whose role can list every type, so that the scan sees all of its resources. */
function fullyListableAccount(from: number): string {
  const types = resourceTypesOf('provider_a').map((t) => t.type);
  for (let n = from; ; n += 1) if (types.every((t) => !listingError('provider_a', String(n), t))) return String(n);
}

function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
}


/** A fresh database for one run: its URL for the server, the same for this process, and how to remove it. */
async function freshDatabase(store: 'sqlite' | 'postgres'): Promise<{ url: string; schema?: string; dispose(): Promise<void> }> {
  if (store === 'sqlite') {
    const dir = await mkdtemp(join(tmpdir(), 'bench-event-loop-'));
    return { url: `sqlite:${join(dir, 'app.db')}`, dispose: () => rm(dir, { recursive: true, force: true }) };
  }
  const schema = `bench_${randomBytes(6).toString('hex')}`;
  await adminQuery(POSTGRES!, `create schema ${schema}`);
  const url = new URL(POSTGRES!);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return { url: url.toString(), schema, dispose: () => adminQuery(POSTGRES!, `drop schema ${schema} cascade`) };
}

/**
 * Migrates the database and generates the accounts' inventories (the large one would otherwise take the
 * simulator's default size), and an API client of the default organization.
 */
async function prepare(url: string, schema: string | undefined, accounts: Array<[string, number]>): Promise<Record<string, string>> {
  const database = openDatabase(schema ? POSTGRES! : url, schema ? { schema } : {});
  try {
    await migrateToLatest(database);
    const services = createServices(database, systemClock);
    for (const [account, size] of accounts) await services.cloud.ensureAccount('provider_a', account, size);
    const org = await services.organizations.ensure(DEFAULT_ORGANIZATION);
    const { client, secret } = await services.apiClients.createWithSecret(org.id, 'bench');
    await services.evaluation.close();
    return { authorization: `Basic ${Buffer.from(`${client.clientId}:${secret}`).toString('base64')}` };
  } finally {
    await database.close();
  }
}

/** The server's peak resident set so far (Linux: VmHWM of the process, threads included), in MiB. */
async function peakRssMiB(pid: number | undefined): Promise<number> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
}

async function measure(store: 'sqlite' | 'postgres'): Promise<Row> {
  const database = await freshDatabase(store);
  const large = fullyListableAccount(300_000_000_001);
  const small = fullyListableAccount(400_000_000_001);
  const dir = await mkdtemp(join(tmpdir(), 'bench-event-loop-secrets-'));
  try {
    console.log(`${store}: generating ${LARGE} resources…`);
    const headers = await prepare(database.url, database.schema, [[large, LARGE], [small, 1500]]);
    const compiled = resolve(ROOT, DIST, 'server/src/main.js');
    const script = existsSync(compiled) ? [compiled] : ['--import', 'tsx', 'server/src/main.ts'];
    if (!existsSync(compiled)) console.log(`${store}: no build at ${DIST}/, the server runs from source under tsx`);
    const port = await freePort();
    const server = start(
      process.execPath,
      [...(process.env.BENCH_SERVER_NODE_ARGS?.split(' ').filter(Boolean) ?? []), ...script],
      {
        ...process.env,
        DATABASE_URL: database.url,
        PORT: String(port),
        CONDUCTOR_ROOT_SECRET_FILE: join(dir, 'root'),
        CONSOLE_ADMIN_PASSWORD_FILE: join(dir, 'admin'),
        DEMO_DATA: 'false',
        VALIDATE_RESPONSES: 'false',
      },
      ROOT,
    );
    const base = `http://127.0.0.1:${port}`;
    try {
      await waitForHttp(`${base}/healthz`, server);
      const call = async (method: string, path: string, body?: unknown) => {
        const res = await fetch(`${base}${path}`, {
          method,
          headers: { ...headers, ...(body !== undefined && { 'content-type': 'application/json' }) },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        const text = await res.text();
        return { status: res.status, body: text ? (JSON.parse(text) as Record<string, any>) : {}, text };
      };
      const environment = async (account: string, types: string[]) => {
        const res = await call('POST', '/v0/environments', {
          name: `bench-${account}`,
          provider: 'provider_a',
          provider_options: { provider_a: { role_arn: `arn:prova:iam::${account}:role/scanner`, regions: ['*'] } },
          survey_resource_types: types,
          scan_schedule_enabled: false,
        });
        if (res.status !== 201) throw new Error(`creating an environment: ${res.status} ${res.text}`);
        return res.body.id as string;
      };
      const scanned = async (scanId: string) => {
        for (;;) {
          const res = await call('GET', `/v0/scans/${scanId}`);
          if (res.body.status !== 'IN_PROGRESS') return res.body;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      };

      const bucketScan = await call('POST', `/v0/scans?environment_id=${await environment(small, ['PROVA.S3.Bucket'])}`);
      if ((await scanned(bucketScan.body.id)).status !== 'SUCCESS') throw new Error('the scan of buckets to test rules on failed');
      const largeEnvironment = await environment(large, resourceTypesOf('provider_a').map((t) => t.type));

      const samples: number[] = [];
      let scanning = true;
      const sampler = (async () => {
        let due = performance.now();
        while (scanning) {
          const res = await fetch(`${base}/healthz`);
          await res.arrayBuffer();
          samples.push(performance.now() - due);
          due = Math.max(due + SAMPLE_EVERY_MS, performance.now());
          await new Promise((resolve) => setTimeout(resolve, due - performance.now()));
        }
      })();
      const started = performance.now();
      const scan = await call('POST', `/v0/scans?environment_id=${largeEnvironment}`);
      if (scan.status !== 201) throw new Error(`starting the scan: ${scan.status} ${scan.text}`);
      let ruleTests = 0;
      const tests = (async () => {
        while (scanning) {
          const res = await call('POST', '/v0/rules/test', { scan_id: bucketScan.body.id, rule_text: HOSTILE, resource_type: 'PROVA.S3.Bucket' });
          // On a busy machine a resource may take the rule over its time budget, which refuses the test as a whole.
          if (res.status !== 200 && !(res.status === 400 && /exceeded its evaluation time budget/.test(res.text))) {
            throw new Error(`rule test: ${res.status} ${res.text}`);
          }
          ruleTests += 1;
        }
      })();
      const finished = await scanned(scan.body.id);
      const seconds = (performance.now() - started) / 1000;
      scanning = false;
      await Promise.all([sampler, tests]);
      if (finished.status !== 'SUCCESS') throw new Error(`the scan ended ${finished.status}: ${finished.message}`);
      return {
        store,
        resources: finished.resource_summary.total,
        seconds,
        ruleTests,
        samples: samples.length,
        p99: percentile(samples, 0.99),
        max: Math.max(...samples),
        peakRssMiB: await peakRssMiB(server.child.pid),
      };
    } catch (error) {
      console.error(server.output());
      throw error;
    } finally {
      await server.stop();
    }
  } finally {
    await database.dispose();
    await rm(dir, { recursive: true, force: true });
  }
}

const rows = [await measure('sqlite'), ...(POSTGRES ? [await measure('postgres')] : [])];
if (!POSTGRES) console.log('PostgreSQL skipped: set BENCH_DATABASE_URL (or DATABASE_URL) to measure it');
console.log(`/healthz every ${SAMPLE_EVERY_MS} ms during the scan; targets: p99 ≤ ${TARGET_P99_MS} ms, max ≤ ${TARGET_MAX_MS} ms`);
console.log(`${'store'.padEnd(10)}${'resources'.padStart(10)}${'scan s'.padStart(9)}${'rule tests'.padStart(12)}${'samples'.padStart(9)}${'p99 ms'.padStart(9)}${'max ms'.padStart(9)}${'peak RSS MiB'.padStart(14)}`);
for (const r of rows) {
  const mark = (value: number, target: number) => `${value.toFixed(1)}${value <= target ? ' ' : '!'}`;
  console.log(
    `${r.store.padEnd(10)}${String(r.resources).padStart(10)}${r.seconds.toFixed(2).padStart(9)}${String(r.ruleTests).padStart(12)}${String(r.samples).padStart(9)}${mark(r.p99, TARGET_P99_MS).padStart(9)}${mark(r.max, TARGET_MAX_MS).padStart(9)}${r.peakRssMiB.toFixed(0).padStart(14)}`,
  );
}
