import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import autocannon from 'autocannon';

/** Load generation and CPU accounting shared by the HTTP benchmarks: wrk where installed, autocannon otherwise. */
const run = promisify(execFile);
export const WRK = ['/usr/bin/wrk', '/usr/local/bin/wrk'].find((path) => existsSync(path));

/** User and system CPU time of a process so far, in µs (Linux; 0 elsewhere). */
export async function cpuMicrosOf(pid: number | undefined): Promise<number> {
  try {
    const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).replace(/^.*\) /s, '').split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / 100; // utime, stime in USER_HZ (100 on Linux)
  } catch {
    return 0;
  }
}

export type Load = { requestsPerSecond: number; p99: number; requests: number; non2xx: number; bytesPerAnswer: number; report?: string };

const MILLISECONDS: Record<string, number> = { us: 0.001, ms: 1, s: 1000 };
const BYTES: Record<string, number> = { B: 1, KB: 1024, MB: 1024 ** 2, GB: 1024 ** 3 };

/** wrk with one thread on core 1 (this process is pinned there, and its children inherit that). */
async function wrk(url: string, connections: number, seconds: number, headers: Record<string, string>): Promise<Load> {
  // A slow answer counts in the latency, not as an error: wrk gives up on a request after 2 s by default.
  const args = ['-t1', `-c${connections}`, `-d${seconds}s`, '--timeout', '10s', '--latency', ...Object.entries(headers).flatMap(([name, value]) => ['-H', `${name}: ${value}`]), url];
  const { stdout } = await run(WRK!, args, { maxBuffer: 1 << 20 });
  const number = (pattern: RegExp) => Number(pattern.exec(stdout)?.[1] ?? NaN);
  const p99 = /99%\s+([\d.]+)(us|ms|s)\b/.exec(stdout);
  const read = /requests in [\d.]+\w+, ([\d.]+)(B|KB|MB|GB) read/.exec(stdout);
  const requests = number(/(\d+) requests in/);
  return {
    requestsPerSecond: number(/Requests\/sec:\s+([\d.]+)/),
    p99: p99 ? Number(p99[1]) * MILLISECONDS[p99[2]!]! : NaN,
    requests,
    bytesPerAnswer: read ? (Number(read[1]) * BYTES[read[2]!]!) / Math.max(requests, 1) : NaN,
    non2xx: Number(/Non-2xx or 3xx responses: (\d+)/.exec(stdout)?.[1] ?? 0) + Number(/Socket errors: .*?timeout (\d+)/.exec(stdout)?.[1] ?? 0),
    report: stdout,
  };
}

async function autocannonLoad(url: string, connections: number, seconds: number, headers: Record<string, string>): Promise<Load> {
  const result = await autocannon({ url, connections, duration: seconds, headers });
  return {
    requestsPerSecond: result.requests.average,
    p99: result.latency.p99,
    requests: result.requests.total,
    non2xx: result.non2xx + result.errors,
    bytesPerAnswer: result.throughput.total / Math.max(result.requests.total, 1),
  };
}

export const load = WRK ? wrk : autocannonLoad;
