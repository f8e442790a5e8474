import { readFile } from 'node:fs/promises';
import autocannon from 'autocannon';
import { freePort, waitForHttp, type Started } from '../contract-tests/processes.js';
import { PINNED, pinLoadGenerator, serverProcess, startBenchServer } from './setup.js';

/**
 * `make bench`: HTTP load on the whole server (auth, request validation, database read, serialization) and on
 * bare Express serving the same JSON from memory, in one run, reported as ratios. The servers share one core and
 * the load generator takes the other, as in ../shared/design/performance.md. Never a pass/fail test: it prints.
 *
 * BENCH_SECONDS sets the length of each measurement (default 10); BENCH_DIST the compiled server to measure
 * (default dist/, what `make build` writes), so that two builds can be compared.
 */
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);

interface Measurement {
  requests: number;
  p99: number;
  non2xx: number;
  /** CPU time the server spent per answer, in µs: steadier than req/s when other work shares the machine. */
  cpuMicros: number;
}

/** User and system CPU time of a process so far, in µs (Linux; 0 elsewhere). */
async function cpuMicrosOf(pid: number | undefined): Promise<number> {
  try {
    const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).replace(/^.*\) /s, '').split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / 100; // utime, stime in USER_HZ (100 on Linux)
  } catch {
    return 0;
  }
}

async function measure(url: string, connections: number, headers: Record<string, string>, server: Started): Promise<Measurement> {
  await autocannon({ url, connections, duration: 2, headers }); // warm-up
  const cpuBefore = await cpuMicrosOf(server.child.pid);
  const result = await autocannon({ url, connections, duration: SECONDS, headers });
  const cpu = (await cpuMicrosOf(server.child.pid)) - cpuBefore;
  return { requests: result.requests.average, p99: result.latency.p99, non2xx: result.non2xx, cpuMicros: cpu / Math.max(result.requests.total, 1) };
}

async function main(): Promise<void> {
  await pinLoadGenerator();
  const { base, headers, paths, server, stop } = await startBenchServer();
  let bare: Started | undefined;
  try {
    const bodies: Record<string, unknown> = {};
    for (const path of Object.values(paths)) bodies[path] = await (await fetch(`${base}${path}`, { headers })).json();

    const barePort = await freePort();
    bare = serverProcess(['--import', 'tsx', 'bench/bare-express.ts'], { ...process.env, PORT: String(barePort), BENCH_BODIES: JSON.stringify(bodies) });
    await waitForHttp(`http://127.0.0.1:${barePort}/healthz`, bare);
    const bareBase = `http://127.0.0.1:${barePort}`;

    const cases = [
      { name: 'GET one environment', path: paths.one, connections: 10 },
      { name: 'GET list of 50', path: paths.list, connections: 50 },
    ];
    console.log(`each measurement ${SECONDS} s after a 2 s warm-up; servers on core 0, load on core 1: ${PINNED ? 'yes' : 'no (taskset missing)'}\n`);
    console.log(`${'operation'.padEnd(26)}${'server'.padEnd(36)}${'bare Express'.padEnd(36)}ratio  p99 ratio  CPU ratio`);
    for (const c of cases) {
      const ours = await measure(`${base}${c.path}`, c.connections, headers, server);
      const baseline = await measure(`${bareBase}${c.path}`, c.connections, {}, bare);
      if (ours.non2xx > 0) throw new Error(`${c.name}: ${ours.non2xx} answers were not 2xx`);
      const cell = (m: Measurement) => `${m.requests.toFixed(0)} req/s p99 ${m.p99} ms ${m.cpuMicros.toFixed(0)} µs CPU`.padEnd(36);
      const cpuRatio = ours.cpuMicros > 0 ? (baseline.cpuMicros / ours.cpuMicros).toFixed(2) : 'n/a';
      console.log(
        `${`${c.name} (${c.connections}c)`.padEnd(26)}${cell(ours)}${cell(baseline)}${(ours.requests / baseline.requests).toFixed(2).padEnd(7)}${(ours.p99 / Math.max(baseline.p99, 1)).toFixed(2).padEnd(11)}${cpuRatio}`,
      );
    }
    console.log('\nratio: req/s over bare Express; p99 ratio: p99 latency over bare Express; CPU ratio: bare Express CPU per answer over ours');
  } finally {
    await bare?.stop();
    await stop();
  }
}

await main();
