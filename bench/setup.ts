import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort, start, waitForHttp, type Started } from '../contract-tests/processes.js';
import { ROOT } from '../scripts/pipeline.js';

/**
 * The compiled server with 50 environments and an API client, as `make bench` and `bench/profile.ts` measure it.
 * BENCH_DIST names the compiled server (default dist/, what `make build` writes), so that two builds can be
 * compared on the same machine.
 */
const run = promisify(execFile);
export const PINNED = existsSync('/usr/bin/taskset');
const DIST = process.env.BENCH_DIST ?? 'dist';
const basic = (user: string, secret: string) => `Basic ${Buffer.from(`${user}:${secret}`).toString('base64')}`;

/** Runs `node args` on core 0 when taskset exists; the load generator keeps core 1 (`pinLoadGenerator`). */
export function serverProcess(args: string[], env: NodeJS.ProcessEnv): Started {
  return PINNED ? start('taskset', ['-c', '0', process.execPath, ...args], env, ROOT) : start(process.execPath, args, env, ROOT);
}

export async function pinLoadGenerator(): Promise<void> {
  if (PINNED) await run('taskset', ['-p', '-c', '1', String(process.pid)]);
}

export interface BenchServer {
  base: string;
  headers: Record<string, string>;
  /** GET one environment, and a page of 50. */
  paths: { one: string; list: string };
  server: Started;
  stop(): Promise<void>;
}

/** Starts the compiled server over a fresh SQLite file, with `nodeOptions` before the script (e.g. --cpu-prof). */
export async function startBenchServer(nodeOptions: string[] = []): Promise<BenchServer> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-'));
  const env = {
    ...process.env,
    DATABASE_URL: `sqlite:${join(dir, 'app.db')}`,
    CONDUCTOR_ROOT_SECRET_FILE: join(dir, 'root'),
    CONSOLE_ADMIN_PASSWORD_FILE: join(dir, 'admin'),
    DEMO_DATA: 'false',
    VALIDATE_RESPONSES: 'false',
  };
  const { stdout } = await run(process.execPath, [join(DIST, 'server/src/admin.js'), 'api-clients', 'create', '--name', 'bench', '--json'], { cwd: ROOT, env });
  const { client_id, client_secret } = JSON.parse(stdout) as { client_id: string; client_secret: string };
  const headers = { authorization: basic(client_id, client_secret) };

  const port = await freePort();
  const server = serverProcess([...nodeOptions, join(DIST, 'server/src/main.js')], { ...env, PORT: String(port) });
  const base = `http://127.0.0.1:${port}`;
  const stop = async () => {
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  };
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
    return { base, headers, paths: { one: `/v0/environments/${firstId}`, list: '/v0/environments?max_items=50' }, server, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
