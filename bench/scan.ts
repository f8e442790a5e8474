import { execFileSync, spawn, type ChildProcessByStdio } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { ROOT } from '../scripts/root.js';

/**
 * `make bench` (scan part): a scan of an account with 100 000 resources beside a small account, in one run.
 * Prints resources per second, the peak RSS of the server's process during the scan, and p99 latency of result
 * pages read over HTTP by a client in a process of its own (see `latenciesFromOwnProcess`). Targets
 * (../shared/design/performance.md): ≤ 10 s, RSS < 500 MiB (now 270 MiB), page p99 ≤ 20 ms.
 *
 * The server runs as operators run it: the build's JavaScript (`make bench` builds it first) in a plain node
 * process of its own (`SERVER_SCRIPT`), whose rule evaluation threads load the build too. Run in this process, the
 * peak RSS held what no server has: tsx's loader, a thread of its own, and (from source) the transformed sources,
 * in the process and in each evaluation thread — some 20–30 MiB.
 *
 * The accounts are generated beforehand by the command operators use (`admin simulator accounts create`), in a
 * process of its own, and garbage is collected before the scan starts: the peak RSS is the scan's, not what
 * generating 100 000 resources left behind.
 *
 * BENCH_LARGE_ACCOUNT sets the large account's size (default 100000).
 */
const LARGE = Number(process.env.BENCH_LARGE_ACCOUNT ?? 100_000);
const PAGE_REQUESTS = 200;
const MiB = 1024 * 1024;
const BUILD = new URL('../dist/', import.meta.url);

const fromBuild = <T>(module: string): Promise<T> => import(new URL(`server/src/${module}.js`, BUILD).href) as Promise<T>;
const { resourceTypesOf } = await fromBuild<typeof import('../server/src/domain/cloud/catalog.js')>('domain/cloud/catalog');
const { listingError } = await fromBuild<typeof import('../server/src/domain/cloud/simulator/simulated-cloud.js')>('domain/cloud/simulator/simulated-cloud');

/** What the server's process tells once its scan has ended and it serves the results. */
interface Scanned {
  status: string;
  message?: string;
  resources: number;
  seconds: number;
  peakRss: number;
  port: number;
  scanId: string;
  authorization: string;
}

/**
 * The server's process (`node --expose-gc --input-type=module -e`, the build imported by URL): sets up an
 * organization, an API client and an environment over the account, collects garbage, scans while sampling its RSS
 * every 50 ms, then serves the API and prints `Scanned` as one JSON line; it stops when its stdin ends.
 */
const SERVER_SCRIPT = `
const { build, url, label, account } = JSON.parse(process.env.BENCH_SCAN);
const from = (module) => import(new URL('server/src/' + module + '.js', build).href);
const { systemClock } = await from('domain/clock');
const { resourceTypesOf } = await from('domain/cloud/catalog');
const { createApp } = await from('http/app');
const { httpServerFor } = await from('http/http-server');
const { createServices } = await from('services');
const { migrateToLatest, openDatabase } = await from('storage/database');
const database = openDatabase(url);
await migrateToLatest(database);
const services = createServices(database, systemClock, { simulator: { driftRate: 0.02 } });
const org = await services.organizations.ensure('bench');
const { client, secret } = await services.apiClients.createWithSecret(org.id, 'bench');
const env = await services.environments.create(org.id, {
  name: label,
  provider: 'provider_a',
  provider_options: { provider_a: { role_arn: 'arn:prova:iam::' + account + ':role/scanner', regions: ['*'] } },
  survey_resource_types: resourceTypesOf('provider_a').map((t) => t.type),
  scan_schedule_enabled: false,
});
globalThis.gc();
let peakRss = process.memoryUsage().rss;
const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 50);
const started = performance.now();
const scan = await services.scans.start(org.id, env.id);
while (await services.jobs.runOnce());
const seconds = (performance.now() - started) / 1000;
clearInterval(sampler);
const finished = await services.scans.get(org.id, scan.id);
const app = createApp({ services, validateResponses: false });
const server = httpServerFor(app.express).listen(0, '127.0.0.1');
await new Promise((resolve) => server.once('listening', resolve));
const authorization = 'Basic ' + Buffer.from(client.clientId + ':' + secret).toString('base64');
process.stdout.write(JSON.stringify({ status: finished.status, message: finished.message, resources: finished.summary?.total ?? 0, seconds, peakRss, port: server.address().port, scanId: scan.id, authorization }) + '\\n');
process.stdin.resume();
await new Promise((resolve) => process.stdin.once('end', resolve));
await new Promise((resolve) => server.close(resolve));
await services.evaluation.close();
await database.close();
`;

/** Resolves with the first line the process prints; rejects when it ends first. */
function firstLine(child: ChildProcessByStdio<Writable, Readable, null>): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      if (out.includes('\n')) resolve(out.slice(0, out.indexOf('\n')));
    });
    child.once('close', (code) => reject(new Error(`the server's process ended (${code}) before its scan did`)));
  });
}

interface Row {
  label: string;
  resources: number;
  seconds: number;
  peakRssMiB: number;
  rulesP99: number;
  typesP99: number;
}

function p99(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))]!;
}

/**
 * Each URL read in turn, request to last byte, by a script of its own, which first reads the pages as many times
 * again unmeasured: a client fresh from start-up took 20–40 ms for its first pages.
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
 * `LATENCIES_SCRIPT` in a process of its own, as a client would read the pages. From the server's thread, the bench's
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

async function measure(label: string, size: number, account: string): Promise<Row> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-scan-'));
  const url = `sqlite:${join(dir, 'app.db')}`;
  const create = ['simulator', 'accounts', 'create', '--provider', 'provider_a', '--resources', String(size), '--account', account, '--json'];
  execFileSync(process.execPath, ['dist/server/src/admin.js', ...create], { cwd: ROOT, env: { ...process.env, DATABASE_URL: url }, stdio: 'ignore' });
  const server = spawn(process.execPath, ['--expose-gc', '--input-type=module', '-e', SERVER_SCRIPT], {
    cwd: ROOT,
    env: { ...process.env, BENCH_SCAN: JSON.stringify({ build: BUILD.href, url, label, account }) },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const closed = once(server, 'close');
  try {
    const scanned = JSON.parse(await firstLine(server)) as Scanned;
    if (scanned.status !== 'SUCCESS') throw new Error(`${label}: scan ended ${scanned.status}: ${scanned.message}`);
    const base = `http://127.0.0.1:${scanned.port}/v0/scans/${scanned.scanId}`;
    const headers = { authorization: scanned.authorization };
    const sizes = async (path: string) => (await (await fetch(`${base}${path}`, { headers })).arrayBuffer()).byteLength;
    console.log(`${label}: by_rules page ${await sizes('/compliance_by_rules?max_items=20')} bytes, by_types page ${await sizes('/compliance_by_resource_types?max_items=10')} bytes`);
    const rulePages = Array.from({ length: PAGE_REQUESTS }, (_, i) => `${base}/compliance_by_rules?max_items=20&offset=${(i * 20) % 200}`);
    const typePages = Array.from({ length: PAGE_REQUESTS }, (_, i) => `${base}/compliance_by_resource_types?max_items=10&offset=${(i * 10) % 30}`);
    const rulesP99 = p99(await latenciesFromOwnProcess(rulePages, headers));
    const typesP99 = p99(await latenciesFromOwnProcess(typePages, headers));
    return { label, resources: scanned.resources, seconds: scanned.seconds, peakRssMiB: scanned.peakRss / MiB, rulesP99, typesP99 };
  } finally {
    server.stdin.end();
    await closed;
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
// The pages' p99 as read by a process of the bench's own.
console.log(
  `${'account'.padEnd(20)}${'resources'.padStart(10)}${'scan s'.padStart(9)}${'resources/s'.padStart(13)}${'peak RSS MiB'.padStart(14)}` +
    `${'by_rules p99 ms'.padStart(17)}${'by_types p99 ms'.padStart(17)}`,
);
for (const r of rows) {
  console.log(
    `${r.label.padEnd(20)}${String(r.resources).padStart(10)}${r.seconds.toFixed(2).padStart(9)}${(r.resources / r.seconds).toFixed(0).padStart(13)}${r.peakRssMiB.toFixed(0).padStart(14)}` +
      `${r.rulesP99.toFixed(1).padStart(17)}${r.typesP99.toFixed(1).padStart(17)}`,
  );
}
