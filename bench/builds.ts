import { cpuMicrosOf, load, WRK } from './load.js';
import { pinLoadGenerator, startBenchServer, type BenchServer, type CaseName } from './setup.js';

/**
 * Two (or more) compiled servers compared on one operation: `tsx bench/builds.ts <dist> <dist> [...]`, each a
 * directory `tsc -p tsconfig.build.json --outDir <dist>` wrote, optionally with settings of its environment after
 * a `?` (`dist?LOG_LEVEL=warn`) to compare one build with itself set otherwise. Every build runs at once over its
 * own data (the same as `make bench` makes), and rounds load them in turn, so that what the machine does meanwhile
 * falls on all of them alike. Prints the CPU time each spent per answer in every round and the median: on a machine that other
 * work shares, that is steadier than requests per second. BENCH_CASE (default one), BENCH_ROUNDS (default 6),
 * BENCH_SECONDS per round (default 4), after BENCH_WARMUP seconds of the same load once (default 3).
 */
const CASE = (process.env.BENCH_CASE ?? 'one') as CaseName;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3);

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main(): Promise<void> {
  const dists = process.argv.slice(2);
  if (dists.length < 2) throw new Error('usage: tsx bench/builds.ts <dist>[?NAME=value&...] <dist>[?...] [...]');
  await pinLoadGenerator();
  const servers: BenchServer[] = [];
  try {
    for (const argument of dists) {
      const [dist, settings = ''] = argument.split('?') as [string, string?];
      servers.push(await startBenchServer([], dist, Object.fromEntries(new URLSearchParams(settings))));
    }
    const target = (server: BenchServer) => {
      const c = server.cases[CASE];
      return { url: `${server.base}${c.path}`, connections: c.connections, headers: c.headers, pid: server.server.child.pid };
    };
    for (const server of servers) {
      const { url, connections, headers } = target(server);
      await load(url, connections, WARMUP, headers);
    }
    console.log(`${servers[0]!.cases[CASE].title}, ${WRK ? 'wrk' : 'autocannon'}, ${ROUNDS} rounds of ${SECONDS} s; CPU µs per answer (req/s)`);
    const cpu = dists.map(() => [] as number[]);
    for (let round = 0; round < ROUNDS; round += 1) {
      // Alternating order, so that neither build always follows the other.
      const order = round % 2 === 0 ? servers.map((_, i) => i) : servers.map((_, i) => i).reverse();
      const line: string[] = [];
      for (const i of order) {
        const { url, connections, headers, pid } = target(servers[i]!);
        const before = await cpuMicrosOf(pid);
        const result = await load(url, connections, SECONDS, headers);
        if (result.non2xx > 0) throw new Error(`${dists[i]}: ${result.non2xx} answers were not 2xx`);
        const micros = ((await cpuMicrosOf(pid)) - before) / Math.max(result.requests, 1);
        cpu[i]!.push(micros);
        line[i] = `${micros.toFixed(0).padStart(5)} (${result.requestsPerSecond.toFixed(0)})`;
      }
      console.log(`round ${round + 1}: ${dists.map((dist, i) => `${dist} ${line[i]}`).join('   ')}`);
    }
    const base = median(cpu[0]!);
    console.log(`median: ${dists.map((dist, i) => `${dist} ${median(cpu[i]!).toFixed(0)} µs (${(median(cpu[i]!) / base).toFixed(2)})`).join('   ')}`);
  } finally {
    for (const server of servers) await server.stop();
  }
}

await main();
