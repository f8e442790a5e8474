import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { ROOT } from '../scripts/root.js';

/**
 * The server's modules as operators run them: the build's JavaScript (`make bench` builds it first), whose rule
 * evaluation threads load the build too. From source, tsx's loader (a thread of its own, in the process and in each
 * evaluation thread) and the transformed sources added some 20 MiB to the peak RSS that no server pays.
 */
const fromBuild = <T>(module: string): Promise<T> => import(new URL(`../dist/server/src/${module}.js`, import.meta.url).href) as Promise<T>;
const { systemClock } = await fromBuild<typeof import('../server/src/domain/clock.js')>('domain/clock');
const { resourceTypesOf } = await fromBuild<typeof import('../server/src/domain/cloud/catalog.js')>('domain/cloud/catalog');
const { listingError } = await fromBuild<typeof import('../server/src/domain/cloud/simulator/simulated-cloud.js')>('domain/cloud/simulator/simulated-cloud');
const { createApp } = await fromBuild<typeof import('../server/src/http/app.js')>('http/app');
const { httpServerFor } = await fromBuild<typeof import('../server/src/http/http-server.js')>('http/http-server');
const { createServices } = await fromBuild<typeof import('../server/src/services.js')>('services');
const { migrateToLatest, openDatabase } = await fromBuild<typeof import('../server/src/storage/database.js')>('storage/database');

/**
 * `make bench` (scan part): a scan of an account with 100 000 resources beside a small account, in one run.
 * Prints resources per second, the peak RSS of the process during the scan, and p99 latency of result pages
 * read over HTTP by a client in a process of its own (see `latenciesFromOwnProcess`) and, as the figures before
 * it were taken, by a client in the server's thread. Targets (../shared/design/performance.md): ≤ 10 s,
 * RSS < 500 MiB, page p99 ≤ 20 ms.
 *
 * The accounts are generated beforehand by the command operators use (`admin simulator accounts create`), in a
 * process of its own, and garbage is collected before the scan starts: the peak RSS is the scan's and the result
 * pages', not what generating 100 000 resources left behind.
 *
 * BENCH_LARGE_ACCOUNT sets the large account's size (default 100000).
 */
const LARGE = Number(process.env.BENCH_LARGE_ACCOUNT ?? 100_000);
const PAGE_REQUESTS = 200;
const MiB = 1024 * 1024;

interface Row {
  label: string;
  resources: number;
  seconds: number;
  peakRssMiB: number;
  rulesP99: number;
  typesP99: number;
  rulesSameThreadP99: number;
  typesSameThreadP99: number;
}

function p99(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))]!;
}

/** Each URL read in turn, from this thread: how long each took, request to last byte. */
async function latencies(urls: readonly string[], headers: Record<string, string>): Promise<number[]> {
  const samples: number[] = [];
  for (const url of urls) {
    const t = performance.now();
    const res = await fetch(url, { headers });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
    samples.push(performance.now() - t);
  }
  return samples;
}

/**
 * `latencies` as a script of its own, which first reads the pages as many times again unmeasured: a client fresh
 * from start-up took 20–40 ms for its first pages.
 */
const LATENCIES_SCRIPT = `
const { urls, headers } = JSON.parse(require('node:fs').readFileSync(0, 'utf8'));
(async () => {
  const samples = [];
  for (const [i, url] of [...urls, ...urls].entries()) {
    const t = performance.now();
    const res = await fetch(url, { headers });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(url + ' answered ' + res.status);
    if (i >= urls.length) samples.push(performance.now() - t);
  }
  process.stdout.write(JSON.stringify(samples));
})();
`;

/**
 * `latencies` from a process of its own, as a client would read the pages. From the server's thread, the bench's
 * client read nothing while the server worked, so its acknowledgements waited on each page's work; with BBR, the
 * congestion control of this kind of machine, the connection then took the slow reads for the link's bandwidth
 * and paced a later page at tens of Mbit/s: now and then one page of 1 MB took 70–110 ms, idle. A process rather
 * than a worker thread, whose memory would have stayed in the peak RSS of the next scan.
 */
async function latenciesFromOwnProcess(urls: readonly string[], headers: Record<string, string>): Promise<number[]> {
  const child = spawn(process.execPath, ['-e', LATENCIES_SCRIPT], { stdio: ['pipe', 'pipe', 'inherit'] });
  child.stdin.end(JSON.stringify({ urls, headers }));
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  const [code] = (await once(child, 'close')) as [number | null];
  if (code !== 0) throw new Error(`the page reader ended with ${code}`);
  return JSON.parse(out) as number[];
}

/** Collects garbage now (the flag is set at run time, so that `tsx bench/scan.ts` needs no node options). */
function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

async function measure(label: string, size: number, account: string): Promise<Row> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-scan-'));
  const url = `sqlite:${join(dir, 'app.db')}`;
  const create = ['simulator', 'accounts', 'create', '--provider', 'provider_a', '--resources', String(size), '--account', account, '--json'];
  execFileSync(process.execPath, ['dist/server/src/admin.js', ...create], { cwd: ROOT, env: { ...process.env, DATABASE_URL: url }, stdio: 'ignore' });
  const database = openDatabase(url);
  try {
    await migrateToLatest(database);
    const services = createServices(database, systemClock, { simulator: { driftRate: 0.02 } });
    const org = await services.organizations.ensure('bench');
    const { client, secret } = await services.apiClients.createWithSecret(org.id, 'bench');
    const env = await services.environments.create(org.id, {
      name: label,
      provider: 'provider_a',
      provider_options: { provider_a: { role_arn: `arn:prova:iam::${account}:role/scanner`, regions: ['*'] } },
      survey_resource_types: resourceTypesOf('provider_a').map((t) => t.type),
      scan_schedule_enabled: false,
    });

    collectGarbage();
    let peak = process.memoryUsage().rss;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
    const started = performance.now();
    const scan = await services.scans.start(org.id, env.id);
    while (await services.jobs.runOnce());
    const seconds = (performance.now() - started) / 1000;
    clearInterval(sampler);
    const finished = await services.scans.get(org.id, scan.id);
    if (finished.status !== 'SUCCESS') throw new Error(`${label}: scan ended ${finished.status}: ${finished.message}`);

    const app = createApp({ services, validateResponses: false });
    const server = httpServerFor(app.express).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v0/scans/${scan.id}`;
    const headers = { authorization: `Basic ${Buffer.from(`${client.clientId}:${secret}`).toString('base64')}` };
    const sizes = async (path: string) => (await (await fetch(`${base}${path}`, { headers })).arrayBuffer()).byteLength;
    console.log(`${label}: by_rules page ${await sizes('/compliance_by_rules?max_items=20')} bytes, by_types page ${await sizes('/compliance_by_resource_types?max_items=10')} bytes`);
    const rulePages = Array.from({ length: PAGE_REQUESTS }, (_, i) => `${base}/compliance_by_rules?max_items=20&offset=${(i * 20) % 200}`);
    const typePages = Array.from({ length: PAGE_REQUESTS }, (_, i) => `${base}/compliance_by_resource_types?max_items=10&offset=${(i * 10) % 30}`);
    const rulesP99 = p99(await latenciesFromOwnProcess(rulePages, headers));
    const typesP99 = p99(await latenciesFromOwnProcess(typePages, headers));
    const rulesSameThreadP99 = p99(await latencies(rulePages, headers));
    const typesSameThreadP99 = p99(await latencies(typePages, headers));
    await new Promise((resolve) => server.close(resolve));
    await services.evaluation.close();
    return { label, resources: finished.summary!.total, seconds, peakRssMiB: peak / MiB, rulesP99, typesP99, rulesSameThreadP99, typesSameThreadP99 };
  } finally {
    await database.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/** An account whose role can list every type, so that the scan sees all of its resources. */
function fullyListableAccount(from: number): string {
  const types = resourceTypesOf('provider_a').map((t) => t.type);
  for (let n = from; ; n += 1) if (types.every((t) => !listingError('provider_a', String(n), t))) return String(n);
}

const rows = [
  await measure('small account', 300, fullyListableAccount(100_000_000_001)),
  await measure(`${LARGE} resources`, LARGE, fullyListableAccount(200_000_000_001)),
];
// The pages' p99 as read from a process of the bench's own, and, after it, as read from the server's thread.
console.log(
  `${'account'.padEnd(20)}${'resources'.padStart(10)}${'scan s'.padStart(9)}${'resources/s'.padStart(13)}${'peak RSS MiB'.padStart(14)}` +
    `${'by_rules p99 ms'.padStart(17)}${'by_types p99 ms'.padStart(17)}${'same thread: rules'.padStart(20)}${'types'.padStart(7)}`,
);
for (const r of rows) {
  console.log(
    `${r.label.padEnd(20)}${String(r.resources).padStart(10)}${r.seconds.toFixed(2).padStart(9)}${(r.resources / r.seconds).toFixed(0).padStart(13)}${r.peakRssMiB.toFixed(0).padStart(14)}` +
      `${r.rulesP99.toFixed(1).padStart(17)}${r.typesP99.toFixed(1).padStart(17)}${r.rulesSameThreadP99.toFixed(1).padStart(20)}${r.typesSameThreadP99.toFixed(1).padStart(7)}`,
  );
}
