import { execFile } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort, type Started } from '../contract-tests/processes.js';
import { ROOT } from '../scripts/root.js';
import { cpuMicrosOf, load, WRK } from './load.js';
import { PINNED, pinLoadGenerator, pinnedProcess, serverProcess, startBenchServer, type BenchCase, type CaseName } from './setup.js';

/**
 * `make bench`: HTTP load on the whole server (auth, request validation, database read, serialization), on bare
 * Express serving the same JSON from memory after a credentials check, on Express with the server's request
 * validation serving the same bytes (bench/validated-express.ts: the floor of a server that validates every
 * request), and on Prism's static and dynamic mocks of the same spec, in one run, interleaved, reported as ratios
 * to bare Express. The servers share core 0 and the
 * load generator takes core 1, as in ../shared/design/performance.md. Never a pass/fail test: it prints; but it
 * refuses to report on answers that are not 2xx, or on bodies that differ from the recorded ones (bench/golden/).
 *
 * BENCH_SECONDS: length of each measurement (default 10), after BENCH_WARMUP seconds of the same load (default 3);
 * BENCH_SWEEPS: how many times every server is measured, in alternating order (default 2);
 * BENCH_CASES: which operations (default one,list,process,console); BENCH_PRISM=false leaves the mocks out;
 * BENCH_PRISM_DYNAMIC=true adds Prism's dynamic mock: it makes each answer up from the schemas, every array up to its
 * maxItems, so an answer of nested bounded arrays takes it seconds of CPU (or all its memory), and the processes
 * still busy making them up slow every other measurement of the run down;
 * BENCH_DIST: the compiled server to measure (default dist/), so that two builds can be compared;
 * BENCH_RECORD=true: write the bodies the server answers as the new golden ones instead of checking them, noting
 * BENCH_COMMIT (default HEAD) as the commit they were answered by.
 */
const run = promisify(execFile);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3);
const SWEEPS = Number(process.env.BENCH_SWEEPS ?? 2);
const CASES = (process.env.BENCH_CASES ?? 'one,list,process,console').split(',') as CaseName[];
const WITH_PRISM = process.env.BENCH_PRISM !== 'false';
const WITH_PRISM_DYNAMIC = WITH_PRISM && process.env.BENCH_PRISM_DYNAMIC === 'true';
const PRISM_MODES = WITH_PRISM_DYNAMIC ? [false, true] : [false];
const RECORD = process.env.BENCH_RECORD === 'true';
const GOLDEN = join(ROOT, 'bench', 'golden');

type Target = 'server' | 'bare' | 'validated' | 'prism static' | 'prism dynamic';

interface Measurement {
  requestsPerSecond: number;
  p99: number;
  requests: number;
  non2xx: number;
  /** Bytes read per answer, headers included: shows a mock answering its short example instead of the page. */
  bytesPerAnswer: number;
  /** What the load generator printed (wrk), shown when something went wrong. */
  report?: string;
  /** CPU time the server spent per answer, in µs: steadier than req/s when other work shares the machine. */
  cpuMicros: number;
}


async function measure(url: string, connections: number, headers: Record<string, string>, target: Started): Promise<Measurement> {
  await load(url, connections, WARMUP, headers);
  const cpuBefore = await cpuMicrosOf(target.child.pid);
  const result = await load(url, connections, SECONDS, headers);
  const cpu = (await cpuMicrosOf(target.child.pid)) - cpuBefore;
  return { ...result, cpuMicros: cpu / Math.max(result.requests, 1) };
}

/**
 * A body with what this run made up (ids, the organization, times, ages) replaced by names, so that it can be
 * compared byte for byte with one another run recorded. Only those values change: a field in another order,
 * another spacing, a number written another way or a field more or less still makes the bodies differ.
 */
function comparable(body: string, c: BenchCase): string {
  let text = body;
  for (const [value, name] of [...c.placeholders].sort((a, b) => b[0].length - a[0].length)) text = text.replaceAll(value, name);
  return text.replace(/"([a-z_]+_at)":(\d{10})(?=[,}])/g, '"$1":"<time>"').replace(/"secret_age":(\d+)(?=[,}])/g, '"secret_age":"<age>"');
}

interface Answer {
  contentType: string;
  body: string;
}

/** The server's answer to each case, checked against (or, with BENCH_RECORD, recorded as) the golden one. */
async function checkBodies(base: string, cases: BenchCase[], when: string): Promise<Map<CaseName, Answer>> {
  const answers = new Map<CaseName, Answer>();
  const recordedPath = join(GOLDEN, 'recorded.json');
  const recorded = RECORD ? { contentTypes: {} as Record<string, string> } : (JSON.parse(await readFile(recordedPath, 'utf8')) as { contentTypes: Record<string, string> });
  for (const c of cases) {
    const res = await fetch(`${base}${c.path}`, { headers: c.headers });
    const answer = { contentType: res.headers.get('content-type') ?? '', body: await res.text() };
    if (res.status !== 200) throw new Error(`${c.title} ${when}: ${res.status} ${answer.body}`);
    answers.set(c.name, answer);
    const file = join(GOLDEN, `${c.name}.json`);
    if (RECORD) {
      await mkdir(GOLDEN, { recursive: true });
      await writeFile(file, comparable(answer.body, c));
      recorded.contentTypes[c.name] = answer.contentType;
      continue;
    }
    const golden = await readFile(file, 'utf8');
    const ours = comparable(answer.body, c);
    if (ours !== golden || answer.contentType !== recorded.contentTypes[c.name]) {
      let at = 0;
      while (at < ours.length && ours[at] === golden[at]) at += 1;
      throw new Error(
        `${c.title} ${when}: the body differs from bench/golden/${c.name}.json at character ${at}:\n  ours:   …${ours.slice(Math.max(0, at - 80), at + 80)}\n  golden: …${golden.slice(Math.max(0, at - 80), at + 80)}\n  content types: ${answer.contentType} / ${recorded.contentTypes[c.name]}`,
      );
    }
  }
  if (RECORD) {
    const commit = process.env.BENCH_COMMIT ?? (await run('git', ['rev-parse', 'HEAD'], { cwd: ROOT })).stdout.trim();
    await writeFile(recordedPath, `${JSON.stringify({ commit, ...recorded }, null, 2)}\n`);
  }
  return answers;
}

/** Prism on one API's generated Swagger 2.0 bundle, static (the spec's examples) or dynamic (made up from the schemas). */
async function startPrism(api: BenchCase['api'], dynamic: boolean, logFile: string): Promise<{ process: Started; base: string }> {
  const port = await freePort();
  const args = ['mock', '-h', '127.0.0.1', '-p', String(port), '-v', 'warn', '-d', String(dynamic), join(ROOT, 'generated', api, 'swagger.yaml')];
  const prism = await pinnedProcess(join(ROOT, 'node_modules/.bin/prism'), args, process.env, logFile);
  return { process: prism, base: `http://127.0.0.1:${port}` };
}

/** Waits until `url` answers 200 with these headers. */
async function waitFor200(url: string, headers: Record<string, string>, target: Started, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (target.child.exitCode !== null) throw new Error(`the process for ${url} exited:\n${target.output()}`);
    try {
      if ((await fetch(url, { headers })).status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url} did not answer 200 within ${timeoutMs} ms:\n${target.output()}`);
}

const BASE_PATHS: Record<BenchCase['api'], string> = { compliance: '/v0', conductor: '/api/v0', console: '/console/api' };

async function loadAverage(): Promise<string> {
  return (await readFile('/proc/loadavg', 'utf8').catch(() => '?')).split(' ').slice(0, 3).join(' ');
}

async function main(): Promise<void> {
  await pinLoadGenerator();
  const bench = await startBenchServer();
  const stops: Array<() => Promise<void>> = [bench.stop];
  try {
    const cases = CASES.map((name) => bench.cases[name]);
    const answers = await checkBodies(bench.base, cases, 'before the load');
    if (RECORD) {
      console.log(`recorded ${cases.length} bodies into bench/golden/`);
      return;
    }

    const barePort = await freePort();
    const bareAnswers = Object.fromEntries(
      cases.map((c) => {
        const [header, value] = Object.entries(c.headers)[0]!;
        return [c.path, { body: answers.get(c.name)!.body, header, value }];
      }),
    );
    const bare = await serverProcess(['--import', 'tsx', 'bench/bare-express.ts'], { ...process.env, PORT: String(barePort), BENCH_BODIES: JSON.stringify(bareAnswers) }, join(bench.dir, 'bare.log'));
    stops.push(() => bare.stop());
    const targets = new Map<Target, { base: (c: BenchCase) => string; stripBase: boolean; process: Started }>();
    targets.set('server', { base: () => bench.base, stripBase: false, process: bench.server });
    targets.set('bare', { base: () => `http://127.0.0.1:${barePort}`, stripBase: false, process: bare });
    await waitFor200(`http://127.0.0.1:${barePort}/healthz`, {}, bare);
    // The floor: Express with the server's request validation, answering the same bytes from memory.
    const validatedPort = await freePort();
    const validated = await serverProcess(
      ['--import', 'tsx', 'bench/validated-express.ts'],
      { ...process.env, PORT: String(validatedPort), BENCH_BODIES: JSON.stringify(bareAnswers) },
      join(bench.dir, 'validated.log'),
    );
    stops.push(() => validated.stop());
    targets.set('validated', { base: () => `http://127.0.0.1:${validatedPort}`, stripBase: false, process: validated });
    await waitFor200(`http://127.0.0.1:${validatedPort}/healthz`, {}, validated);

    // Prism serves a Swagger 2.0 document's paths without its base path: it is measured directly, without the
    // base-path adapter the contract tests put in front of it.
    const prisms = new Map<string, { process: Started; base: string }>();
    /** Targets that could not answer an operation at all, with why: left out of the measurements, named in the table. */
    const unanswered = new Map<string, string>();
    if (WITH_PRISM) {
      for (const dynamic of PRISM_MODES) {
        for (const api of new Set(cases.map((c) => c.api))) {
          const prism = await startPrism(api, dynamic, join(bench.dir, `prism-${api}-${dynamic}.log`));
          stops.push(() => prism.process.stop());
          prisms.set(`${api} ${dynamic}`, prism);
        }
      }
      for (const c of cases) {
        for (const dynamic of PRISM_MODES) {
          const prism = prisms.get(`${c.api} ${dynamic}`)!;
          const url = `${prism.base}${c.path.slice(BASE_PATHS[c.api].length)}`;
          if (!dynamic) {
            await waitFor200(url, c.headers, prism.process);
            continue;
          }
          // Prism's dynamic mock makes each answer up from the schema, arrays up to their maxItems: for an answer of
          // nested bounded arrays (a process's resources and their tags) it may run out of memory instead.
          await waitFor200(url, c.headers, prism.process, 30_000).catch((error: Error) => {
            const why = /heap out of memory|Allocation failed/.test(error.message) ? 'ran out of memory making the answer up' : 'did not answer 200 within 30 s';
            unanswered.set(`${c.name} prism dynamic`, why);
            console.log(`${c.title}: Prism's dynamic mock ${why}; left out`);
          });
        }
      }
    }
    const targetOf = (target: Target, c: BenchCase): { url: string; process: Started } => {
      if (target === 'server' || target === 'bare' || target === 'validated') return { url: `${targets.get(target)!.base(c)}${c.path}`, process: targets.get(target)!.process };
      const prism = prisms.get(`${c.api} ${target === 'prism dynamic'}`)!;
      return { url: `${prism.base}${c.path.slice(BASE_PATHS[c.api].length)}`, process: prism.process };
    };

    const order: Target[] = ['server', 'bare', 'validated', ...(WITH_PRISM ? (['prism static'] as const) : []), ...(WITH_PRISM_DYNAMIC ? (['prism dynamic'] as const) : [])];
    const loads: string[] = [await loadAverage()];
    const results = new Map<string, Measurement[]>();
    console.log(
      `load generator: ${WRK ? `wrk (${WRK}), one thread` : 'autocannon (wrk is not installed: apt-get install wrk)'}; ` +
        `servers on core 0, load on core 1: ${PINNED ? 'yes' : 'no (taskset missing)'}; ` +
        `${SECONDS} s per measurement after ${WARMUP} s of warm-up, ${SWEEPS} sweeps in alternating order`,
    );
    for (let sweep = 0; sweep < SWEEPS; sweep += 1) {
      const targetsInOrder = sweep % 2 === 0 ? order : [...order].reverse();
      for (const c of cases) {
        for (const target of targetsInOrder) {
          if (unanswered.has(`${c.name} ${target}`)) continue;
          const { url, process: measured } = targetOf(target, c);
          const m = await measure(url, c.connections, c.headers, measured);
          const key = `${c.name} ${target}`;
          results.set(key, [...(results.get(key) ?? []), m]);
          if (target === 'server' && m.non2xx > 0) throw new Error(`${c.title}: ${m.non2xx} answers of the server were not 2xx\n${m.report ?? ''}`);
        }
      }
      loads.push(await loadAverage());
    }
    await checkBodies(bench.base, cases, 'after the load');

    const mean = (ms: Measurement[], field: 'requestsPerSecond' | 'p99' | 'cpuMicros' | 'bytesPerAnswer') => ms.reduce((sum, m) => sum + m[field], 0) / ms.length;
    console.log(`load average (1, 5, 15 min) before and after each sweep: ${loads.join(' → ')}\n`);
    console.log(`${'operation'.padEnd(36)}${'target'.padEnd(15)}${'req/s'.padStart(8)}${'ratio'.padStart(7)}${'p99 ms'.padStart(9)}${'p99 ratio'.padStart(10)}${'CPU µs'.padStart(8)}${'bytes'.padStart(8)}${'non-2xx'.padStart(9)}  runs (req/s)`);
    for (const c of cases) {
      const bare = results.get(`${c.name} bare`)!;
      const bareRps = mean(bare, 'requestsPerSecond');
      const bareP99 = mean(bare, 'p99');
      for (const target of order) {
        const why = unanswered.get(`${c.name} ${target}`);
        if (why) {
          console.log(`${''.padEnd(36)}${target.padEnd(15)}  (${why})`);
          continue;
        }
        const ms = results.get(`${c.name} ${target}`)!;
        const rps = mean(ms, 'requestsPerSecond');
        const p99 = mean(ms, 'p99');
        const cpu = mean(ms, 'cpuMicros');
        const non2xx = ms.reduce((sum, m) => sum + m.non2xx, 0);
        console.log(
          `${(target === 'server' ? `${c.title} (${c.connections}c)` : '').padEnd(36)}${target.padEnd(15)}${rps.toFixed(0).padStart(8)}${(rps / bareRps).toFixed(2).padStart(7)}` +
            `${p99.toFixed(1).padStart(9)}${(p99 / bareP99).toFixed(2).padStart(10)}${cpu.toFixed(0).padStart(8)}${mean(ms, 'bytesPerAnswer').toFixed(0).padStart(8)}${String(non2xx).padStart(9)}  ${ms.map((m) => m.requestsPerSecond.toFixed(0)).join(' ')}`,
        );
      }
      const ours = mean(results.get(`${c.name} server`)!, 'requestsPerSecond');
      const versus = (target: Target) => (unanswered.has(`${c.name} ${target}`) ? '–' : (ours / mean(results.get(`${c.name} ${target}`)!, 'requestsPerSecond')).toFixed(2));
      const mocks = `${WITH_PRISM ? `, ${versus('prism static')}× Prism static` : ''}${WITH_PRISM_DYNAMIC ? `, ${versus('prism dynamic')}× Prism dynamic` : ''}`;
      console.log(`${''.padEnd(36)}the server: ${versus('validated')}× validated Express${mocks}`);
    }
    console.log(
      '\nratio: req/s over bare Express; p99 ratio: p99 latency over bare Express; CPU µs: CPU time of the answering process per answer;' +
        '\nvalidated: Express with the server\'s request validation answering the same bytes from memory (bench/validated-express.ts), the floor of a server that validates every request;' +
        '\nbytes: read per answer, headers included (Prism\'s static mock answers a list with its short example).' +
        `\nbodies: the server's answers before and after the load are byte-identical to bench/golden/ (recorded from commit ${(JSON.parse(await readFile(join(GOLDEN, 'recorded.json'), 'utf8')) as { commit: string }).commit.slice(0, 7)}) once ids and times are named.`,
    );
  } finally {
    for (const stop of stops.reverse()) await stop();
  }
}

await main();
