import { copyFile, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { pinLoadGenerator, startBenchServer, type CaseName } from './setup.js';

/**
 * Where the server's time goes under the load of `make bench`: runs the compiled server with --cpu-prof, loads one
 * operation, and prints self time by area (each package under node_modules, the server's own layers, Node itself)
 * and the busiest functions, each as a share of the busy time and as time per answer (the sampled window's time
 * over the answers of the load, so roughly). `tsx bench/profile.ts [one|list|process|console]`; BENCH_SECONDS
 * (default 10), BENCH_DIST as for bench/http.ts; BENCH_PROFILE_OUT=<file> keeps the profile (for Chrome's DevTools).
 */
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const which = (process.argv[2] ?? 'one') as CaseName;

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

/**
 * A profile shows native code as self time of the JavaScript frame that called it: what the frames handing
 * statements to better-sqlite3 spend is SQLite reading and building the rows' values, whichever layer calls it.
 */
function isSqliteCall(functionName: string, url: string): boolean {
  return (
    (functionName === 'executeQuery' && url.endsWith('dialect/sqlite/sqlite-driver.js')) ||
    (['all', 'run', 'iterate'].includes(functionName) && (url.endsWith('storage/compiled-rows.js') || url.includes('node_modules/better-sqlite3/')))
  );
}

/** The package (or the server's layer) a script belongs to. */
function areaOf(url: string): string {
  if (url === '') return '(native / idle / gc)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  if (url.startsWith('node:')) return 'node';
  const own = /\/server\/src\/((?:[^/]+\/)?)/.exec(url);
  if (own) return `server/src/${own[1]}`;
  return url;
}

/** Prints where the time went; `answers` is how many answers the load got in the sampled window. */
function summarize(profile: Profile, answers: number): void {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  // Only the samples of the load itself: start-up (spec compilation) and shutdown would skew the shares.
  const from = profile.endTime - (SECONDS + 0.5) * 1e6;
  const to = profile.endTime - 0.5e6;
  const selfMicros = new Map<number, number>();
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    at += profile.timeDeltas[i] ?? 0;
    if (at >= from && at <= to) selfMicros.set(id, (selfMicros.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  const total = [...selfMicros.values()].reduce((a, b) => a + b, 0);
  const areas = new Map<string, number>();
  const functions = new Map<string, number>();
  for (const [id, micros] of selfMicros) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    if (functionName === '(idle)') continue;
    const area = functionName === '(garbage collector)' ? '(gc)' : isSqliteCall(functionName, url) ? 'SQLite (through better-sqlite3)' : areaOf(url);
    areas.set(area, (areas.get(area) ?? 0) + micros);
    const name = `${functionName || '(anonymous)'} ${url.replace(/^.*node_modules\//, '').replace(/^.*\/server\/src\//, 'server/src/')}:${lineNumber + 1}`;
    functions.set(name, (functions.get(name) ?? 0) + micros);
  }
  const busy = [...areas.values()].reduce((a, b) => a + b, 0);
  // Inclusive time: a function's own samples and those of everything it called (counted once per stack).
  const inclusive = new Map<string, number>();
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  for (const [id, micros] of selfMicros) {
    const names = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const { functionName, url, lineNumber } = byId.get(at)!.callFrame;
      if (functionName === '(root)' || functionName === '(idle)') continue;
      names.add(`${functionName || '(anonymous)'} ${url.replace(/^.*node_modules\//, '').replace(/^.*\/server\/src\//, 'server/src/')}:${lineNumber + 1}`);
    }
    for (const name of names) inclusive.set(name, (inclusive.get(name) ?? 0) + micros);
  }
  const print = (title: string, entries: Map<string, number>, n: number) => {
    console.log(`\n${title}`);
    for (const [name, micros] of [...entries].sort((a, b) => b[1] - a[1]).slice(0, n)) {
      console.log(`  ${((micros / busy) * 100).toFixed(1).padStart(5)} %  ${(micros / answers).toFixed(1).padStart(6)} µs/answer  ${name}`);
    }
  };
  console.log(`busy ${((busy / total) * 100).toFixed(0)} % of ${(total / 1e6).toFixed(1)} s sampled`);
  print('self time by area (share of busy time)', areas, 20);
  print('busiest functions (self time)', functions, 30);
  print('functions by inclusive time', inclusive, 40);
}

async function main(): Promise<void> {
  await pinLoadGenerator();
  const profileDir = await mkdtemp(join(tmpdir(), 'bench-profile-'));
  const bench = await startBenchServer(['--cpu-prof', `--cpu-prof-dir=${profileDir}`]);
  let answers = 0;
  try {
    const { path, connections, headers } = bench.cases[which];
    const result = await autocannon({ url: `${bench.base}${path}`, connections, duration: SECONDS, headers });
    answers = result.requests.total;
    console.log(`GET ${path} (${connections}c): ${result.requests.average.toFixed(0)} req/s, p99 ${result.latency.p99} ms, non-2xx ${result.non2xx}`);
  } finally {
    await bench.stop();
  }
  const [file] = (await readdir(profileDir)).filter((name) => name.endsWith('.cpuprofile'));
  if (!file) throw new Error('the server wrote no profile');
  if (process.env.BENCH_PROFILE_OUT) await copyFile(join(profileDir, file), process.env.BENCH_PROFILE_OUT);
  summarize(JSON.parse(await readFile(join(profileDir, file), 'utf8')) as Profile, answers);
  await rm(profileDir, { recursive: true, force: true });
}

await main();
