import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import autocannon from 'autocannon';
import { freePort, start, waitForHttp, type Started } from '../contract-tests/processes.js';
import { ROOT } from '../scripts/pipeline.js';

/**
 * `make bench`: HTTP load on the whole server (auth, request validation, database read, serialization) and on
 * bare Express serving the same JSON from memory, in one run, reported as ratios. The servers share one core and
 * the load generator takes the other, as in ../shared/design/performance.md. Never a pass/fail test: it prints.
 *
 * BENCH_SECONDS sets the length of each measurement (default 10).
 */
const run = promisify(execFile);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const PINNED = existsSync('/usr/bin/taskset');
const basic = (user: string, secret: string) => `Basic ${Buffer.from(`${user}:${secret}`).toString('base64')}`;

/** Runs `node args` on core 0 when taskset exists. */
function serverProcess(args: string[], env: NodeJS.ProcessEnv): Started {
  return PINNED ? start('taskset', ['-c', '0', process.execPath, ...args], env, ROOT) : start(process.execPath, args, env, ROOT);
}

interface Measurement {
  requests: number;
  p99: number;
  non2xx: number;
}

async function measure(url: string, connections: number, headers: Record<string, string>): Promise<Measurement> {
  await autocannon({ url, connections, duration: 2, headers }); // warm-up
  const result = await autocannon({ url, connections, duration: SECONDS, headers });
  return { requests: result.requests.average, p99: result.latency.p99, non2xx: result.non2xx };
}

async function main(): Promise<void> {
  if (PINNED) await run('taskset', ['-p', '-c', '1', String(process.pid)]);
  const dir = await mkdtemp(join(tmpdir(), 'bench-'));
  const env = { ...process.env, DATABASE_URL: `sqlite:${join(dir, 'app.db')}`, CONDUCTOR_ROOT_SECRET_FILE: join(dir, 'root'), CONSOLE_ADMIN_PASSWORD_FILE: join(dir, 'admin'), DEMO_DATA: 'false', VALIDATE_RESPONSES: 'false' };
  const { stdout } = await run(process.execPath, ['dist/server/src/admin.js', 'api-clients', 'create', '--name', 'bench', '--json'], { cwd: ROOT, env });
  const { client_id, client_secret } = JSON.parse(stdout) as { client_id: string; client_secret: string };
  const headers = { authorization: basic(client_id, client_secret) };

  const port = await freePort();
  const server = serverProcess(['dist/server/src/main.js'], { ...env, PORT: String(port) });
  const base = `http://127.0.0.1:${port}`;
  let bare: Started | undefined;
  try {
    await waitForHttp(`${base}/healthz`, server);
    let firstId = '';
    for (let i = 0; i < 50; i += 1) {
      const res = await fetch(`${base}/v0/environments`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({
          name: `bench-${i}`,
          provider: 'provider_a',
          provider_options: { provider_a: { role_arn: `arn:prova:iam::${String(100000000000 + i)}:role/scanner`, regions: ['us-east-1', 'eu-west-1'] } },
          compliance_families: ['CIS', 'NIST'],
        }),
      });
      if (res.status !== 201) throw new Error(`creating environment ${i}: ${res.status} ${await res.text()}`);
      firstId ||= ((await res.json()) as { id: string }).id;
    }
    const paths = { one: `/v0/environments/${firstId}`, list: '/v0/environments?max_items=50' };
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
    console.log(`${'operation'.padEnd(22)}${'server'.padEnd(22)}${'bare Express'.padEnd(22)}ratio  p99 ratio`);
    for (const c of cases) {
      const ours = await measure(`${base}${c.path}`, c.connections, headers);
      const baseline = await measure(`${bareBase}${c.path}`, c.connections, {});
      if (ours.non2xx > 0) throw new Error(`${c.name}: ${ours.non2xx} answers were not 2xx`);
      const cell = (m: Measurement) => `${m.requests.toFixed(0)} req/s p99 ${m.p99} ms`.padEnd(22);
      console.log(
        `${`${c.name} (${c.connections}c)`.padEnd(22)}${cell(ours)}${cell(baseline)}${(ours.requests / baseline.requests).toFixed(2).padEnd(7)}${(ours.p99 / Math.max(baseline.p99, 1)).toFixed(2)}`,
      );
    }
  } finally {
    await bare?.stop();
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
