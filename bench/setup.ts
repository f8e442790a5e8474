import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, open, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort, waitForHttp, type Started } from '../contract-tests/processes.js';
import { ROOT } from '../scripts/root.js';
import { packExample } from '../server/src/demo/conductor.js';

/**
 * The compiled server with data to read, as `make bench` and `bench/profile.ts` measure it: 50 environments, a
 * conductor process made from the example composition, and a console session with an API client to read.
 * BENCH_DIST names the compiled server (default dist/, what `make build` writes), so that two builds can be
 * compared on the same machine.
 */
const run = promisify(execFile);
export const PINNED = existsSync('/usr/bin/taskset');
const DIST = process.env.BENCH_DIST ?? 'dist';
const basic = (user: string, secret: string) => `Basic ${Buffer.from(`${user}:${secret}`).toString('base64')}`;

/**
 * Runs `command args` on core 0 when taskset exists; the load generator keeps core 1 (`pinLoadGenerator`). What
 * it prints goes to `logFile`, as a server's log goes to a file or a collector, not through a pipe the load
 * generator's core would have to drain.
 */
export async function pinnedProcess(command: string, args: string[], env: NodeJS.ProcessEnv, logFile: string): Promise<Started> {
  const log = await open(logFile, 'a');
  const child = PINNED
    ? spawn('taskset', ['-c', '0', command, ...args], { cwd: ROOT, env, stdio: ['ignore', log.fd, log.fd] })
    : spawn(command, args, { cwd: ROOT, env, stdio: ['ignore', log.fd, log.fd] });
  await log.close();
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let output = '';
  const refresh = () => void readFile(logFile, 'utf8').then((text) => (output = text.slice(-20_000)), () => undefined);
  child.once('exit', refresh);
  return {
    child,
    output: () => (refresh(), output),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** `node args` on core 0 (see `pinnedProcess`). */
export const serverProcess = (args: string[], env: NodeJS.ProcessEnv, logFile: string): Promise<Started> =>
  pinnedProcess(process.execPath, args, env, logFile);

export async function pinLoadGenerator(): Promise<void> {
  if (PINNED) await run('taskset', ['-p', '-c', '1', String(process.pid)]);
}

export type CaseName = 'one' | 'list' | 'process' | 'console';

/** One operation under load: where, with which credentials, and how many connections at once. */
export interface BenchCase {
  name: CaseName;
  title: string;
  api: 'compliance' | 'conductor' | 'console';
  /** Path and query as the real server serves them (base path included). */
  path: string;
  connections: number;
  /** The credentials of the request, in the header the API reads them from. */
  headers: Record<string, string>;
  /**
   * Values this run made up (ids, the organization, secrets) with the name they stand for, so that a body can be
   * compared with one recorded in another run: each is replaced by its name before comparing.
   */
  placeholders: Array<[value: string, name: string]>;
}

export interface BenchServer {
  base: string;
  cases: Record<CaseName, BenchCase>;
  server: Started;
  /** A directory that lives as long as the server, for other processes' logs. */
  dir: string;
  stop(): Promise<void>;
}

const CASES: Array<Pick<BenchCase, 'name' | 'title' | 'connections'>> = [
  { name: 'one', title: 'GET one environment', connections: 10 },
  { name: 'list', title: 'GET a page of 50 environments', connections: 50 },
  { name: 'process', title: 'GET one conductor process', connections: 10 },
  { name: 'console', title: 'GET one API client (console)', connections: 10 },
];

async function expectStatus(res: Response, status: number, what: string): Promise<Response> {
  if (res.status !== status) throw new Error(`${what}: ${res.status} ${await res.text()}`);
  return res;
}

/**
 * Starts the compiled server in `dist` over a fresh SQLite file, with `nodeOptions` before the script (e.g.
 * --cpu-prof) and `variables` added to its environment.
 */
export async function startBenchServer(nodeOptions: string[] = [], dist = DIST, variables: NodeJS.ProcessEnv = {}): Promise<BenchServer> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-'));
  const env = {
    ...process.env,
    DATABASE_URL: `sqlite:${join(dir, 'app.db')}`,
    CONDUCTOR_ROOT_SECRET_FILE: join(dir, 'root'),
    CONSOLE_ADMIN_PASSWORD_FILE: join(dir, 'admin'),
    CONSOLE_ADMIN_EMAIL: 'admin@example.com',
    DEMO_DATA: 'false',
    VALIDATE_RESPONSES: 'false',
    ...variables,
  };
  const port = await freePort();
  const server = await serverProcess([...nodeOptions, join(dist, 'server/src/main.js')], { ...env, PORT: String(port) }, join(dir, 'server.log'));
  const base = `http://127.0.0.1:${port}`;
  const stop = async () => {
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await waitForHttp(`${base}/healthz`, server);
    // The console's administrator (whose password the server wrote at start-up) creates the API clients.
    const signedIn = await expectStatus(
      await fetch(`${base}/console/api/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'admin@example.com', password: (await readFile(join(dir, 'admin'), 'utf8')).trim() }),
      }),
      200,
      'signing in to the console',
    );
    const session = /console_session=([^;]+)/.exec(signedIn.headers.get('set-cookie') ?? '')?.[1];
    if (!session) throw new Error('signing in to the console set no session cookie');
    const { csrf_token: csrfToken } = (await signedIn.json()) as { csrf_token: string };
    const consoleHeaders = { cookie: `console_session=${session}` };
    const apiClient = async (name: string) => {
      const headers = { ...consoleHeaders, 'x-csrf-token': csrfToken, 'content-type': 'application/json' };
      const res = await expectStatus(await fetch(`${base}/console/api/api-clients`, { method: 'POST', headers, body: JSON.stringify({ name }) }), 201, `creating API client ${name}`);
      const { client_id } = (await res.json()) as { client_id: string };
      const secret = await expectStatus(await fetch(`${base}/console/api/api-clients/${client_id}/secret`, { method: 'POST', headers }), 201, `generating the secret of ${name}`);
      return { client_id, client_secret: ((await secret.json()) as { client_secret: string }).client_secret };
    };
    const client = await apiClient('bench');
    // The console reads another client than the one the compliance load uses, whose last activity keeps moving.
    const consoleClient = await apiClient('bench-console');
    const compliance = { authorization: basic(client.client_id, client.client_secret) };

    const environmentIds: string[] = [];
    for (let i = 0; i < 50; i += 1) {
      const res = await fetch(`${base}/v0/environments`, {
        method: 'POST',
        headers: { ...compliance, 'content-type': 'application/json' },
        body: JSON.stringify({
          name: `bench-${i}`,
          provider: 'provider_a',
          provider_options: { provider_a: { role_arn: `arn:prova:iam::${String(100000000000 + i)}:role/scanner`, regions: ['us-east-1', 'eu-west-1'] } },
          compliance_families: ['CIS', 'NIST'],
        }),
      });
      await expectStatus(res, 201, `creating environment ${i}`);
      environmentIds.push(((await res.json()) as { id: string }).id);
    }
    const tenant = ((await (await fetch(`${base}/v0/environments/${environmentIds[0]}`, { headers: compliance })).json()) as { tenant_id: string }).tenant_id;

    const conductor = { authorization: basic('root', (await readFile(join(dir, 'root'), 'utf8')).trim()) };
    await expectStatus(
      await fetch(`${base}/api/v0/accounts`, {
        method: 'POST',
        headers: { ...conductor, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'bench', provider: 'provider_a', account_id: '123456789012' }),
      }),
      201,
      'adding the conductor account',
    );
    const createdProcess = await expectStatus(
      await fetch(`${base}/api/v0/processes?account=bench&alias=bench-process`, {
        method: 'POST',
        headers: { ...conductor, 'content-type': 'application/x-tar' },
        body: new Uint8Array(await packExample('composition')),
      }),
      201,
      'creating the conductor process',
    );
    const fid = ((await createdProcess.json()) as { fid: string }).fid;
    // The resources are created by a job; the body read under load is the settled one.
    const processPlaceholders: Array<[string, string]> = [[fid, '<process>']];
    for (let waited = 0; ; waited += 100) {
      const body = (await (await fetch(`${base}/api/v0/processes/${fid}`, { headers: conductor })).json()) as {
        composition_digest: string;
        resources: Array<{ status: string; resource_id: string | null }>;
      };
      if (body.resources.every((r) => r.status !== 'pending')) {
        // The archive's entries carry the time they were packed, so its digest differs from run to run.
        processPlaceholders.push([body.composition_digest, '<composition digest>']);
        body.resources.forEach((r, i) => r.resource_id && processPlaceholders.push([r.resource_id, `<resource ${i}>`]));
        break;
      }
      if (waited > 30_000) throw new Error('the conductor process did not settle within 30 s');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }

    const organization: Array<[string, string]> = [[tenant, '<organization>']];
    const paths: Record<CaseName, Pick<BenchCase, 'api' | 'path' | 'headers' | 'placeholders'>> = {
      one: { api: 'compliance', path: `/v0/environments/${environmentIds[0]}`, headers: compliance, placeholders: [[environmentIds[0]!, '<environment 0>'], ...organization] },
      list: {
        api: 'compliance',
        path: '/v0/environments?max_items=50',
        headers: compliance,
        placeholders: [...environmentIds.map((id, i): [string, string] => [id, `<environment ${i}>`]), ...organization],
      },
      process: { api: 'conductor', path: `/api/v0/processes/${fid}`, headers: conductor, placeholders: processPlaceholders },
      console: {
        api: 'console',
        path: `/console/api/api-clients/${consoleClient.client_id}`,
        headers: consoleHeaders,
        placeholders: [[consoleClient.client_id, '<api client>']],
      },
    };
    const cases = Object.fromEntries(CASES.map((c) => [c.name, { ...c, ...paths[c.name] }])) as Record<CaseName, BenchCase>;
    return { base, cases, server, dir, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
