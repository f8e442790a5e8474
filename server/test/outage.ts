import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { systemClock } from '../src/domain/clock.js';
import { DEFAULT_ORGANIZATION } from '../src/domain/organizations/service.js';
import { createServices } from '../src/services.js';
import { migrateToLatest, openDatabase } from '../src/storage/database.js';
import type { OwnPostgres } from './own-postgres.js';
import { TEST_PASSWORD_HASHING } from './passwords.js';
import { ServerProcess } from './server-process.js';

/**
 * What the tests of database outages share: a server process on a database of an own cluster (own-postgres.ts),
 * with an API client made beforehand, and clients that time each answer, from this process and from outside it
 * (curl, Python's standard library).
 */
const run = promisify(execFile);

const basic = (user: string, secret: string) => `Basic ${Buffer.from(`${user}:${secret}`).toString('base64')}`;

export const ROOT_SECRET = 'outage-root-secret-0123456789';
export const ROOT = basic('root', ROOT_SECRET);
/** Longest any one request may take before a test counts the server as hanging: a stall detector, not a latency bound. */
export const HANG_GUARD_MS = 10_000;

export interface Answer {
  status: number;
  headers: Headers;
  body: any;
  text: string;
  /** From sending the request to reading the whole answer. */
  ms: number;
}

/** One request, answered within HANG_GUARD_MS or failed as a hang. */
export async function call(baseUrl: string, method: string, path: string, options: { auth?: string | null; body?: unknown; headers?: Record<string, string> } = {}): Promise<Answer> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.auth) headers.authorization = options.auth;
  let body: string | Buffer | undefined;
  if (Buffer.isBuffer(options.body)) {
    body = options.body;
    headers['content-type'] = 'application/x-tar';
  } else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] = 'application/json';
  }
  const started = performance.now();
  let res: Response;
  try {
    res = await fetch(`${baseUrl}${path}`, { method, headers, body, signal: AbortSignal.timeout(HANG_GUARD_MS) });
  } catch (error) {
    throw new Error(`${method} ${path}: no answer within ${HANG_GUARD_MS} ms (${String(error)})`, { cause: error });
  }
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, body: parsed, text, ms: performance.now() - started };
}

/** Status and Retry-After of one GET, as curl sees them. */
export async function curl(url: string, headers: Record<string, string> = {}): Promise<{ status: number; retryAfter: string | undefined; body: string }> {
  const args = ['-sS', '-D', '-', '--max-time', String(HANG_GUARD_MS / 1000), ...Object.entries(headers).flatMap(([name, value]) => ['-H', `${name}: ${value}`]), url];
  const { stdout } = await run('curl', args);
  const [head = '', ...rest] = stdout.split('\r\n\r\n');
  const status = Number(/^HTTP\/[\d.]+ (\d{3})/.exec(head)?.[1]);
  const retryAfter = /^retry-after: *(.+)$/im.exec(head)?.[1]?.trim();
  return { status, retryAfter, body: rest.join('\r\n\r\n') };
}

/** Python 3's standard library asks each path once; answers the statuses and how long each took. */
const PYTHON_PROBE = `
import json, sys, time, urllib.error, urllib.request
base = sys.argv[1]
out = {}
for path in sys.argv[2:]:
    started = time.monotonic()
    try:
        with urllib.request.urlopen(base + path, timeout=${HANG_GUARD_MS / 1000}) as answer:
            status, retry = answer.status, answer.headers.get("Retry-After")
            answer.read()
    except urllib.error.HTTPError as error:
        status, retry = error.code, error.headers.get("Retry-After")
    out[path] = {"status": status, "retry_after": retry, "ms": round((time.monotonic() - started) * 1000)}
print(json.dumps(out))
`;

export async function pythonProbe(baseUrl: string, paths: string[]): Promise<Record<string, { status: number; retry_after: string | null; ms: number }>> {
  const { stdout } = await run('python3', ['-c', PYTHON_PROBE, baseUrl, ...paths]);
  return JSON.parse(stdout);
}

/** Polls `ready` until it answers true; fails after `timeoutMs`, a stall detector. A `ready` that throws is asked again. */
export async function waitFor(what: string, ready: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let failure: unknown;
  for (;;) {
    try {
      if (await ready()) return;
    } catch (error) {
      // The test's own check may meet the outage too (a connection of its pool broken): asked again.
      failure = error;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${failure ? ` (last failure: ${String(failure)})` : ''}`);
    await sleep(50);
  }
}

export interface Served {
  server: ServerProcess;
  /** The database the server works on, in the cluster. */
  database: string;
  url: string;
  /** Basic credentials of an API client of the default organization. */
  auth: string;
  /** Stops the server (by its process id) and removes its files; the database stays for the checks. */
  stop(): Promise<void>;
}

/**
 * A new database in the cluster, migrated, with an API client of the default organization (made here, as an
 * operator would with the admin command, so that the server finds it on start).
 */
export async function prepareDatabase(cluster: OwnPostgres): Promise<{ database: string; url: string; auth: string }> {
  const database = `outage_${randomBytes(5).toString('hex')}`;
  await cluster.query(`create database ${database}`);
  const url = cluster.url(database);
  return { database, url, auth: await withApiClient(url) };
}

/** Migrates the database `url` names and makes an API client of the default organization; answers its credentials. */
export async function withApiClient(url: string): Promise<string> {
  const handle = openDatabase(url);
  try {
    await migrateToLatest(handle);
    const services = createServices(handle, systemClock, { passwordHashing: TEST_PASSWORD_HASHING });
    try {
      const org = await services.organizations.ensure(DEFAULT_ORGANIZATION);
      const { client, secret } = await services.apiClients.createWithSecret(org.id, 'outage tests');
      return basic(client.clientId, secret);
    } finally {
      await services.evaluation.close();
    }
  } finally {
    await handle.close();
  }
}

/** The environment of a server under test: its database, short leases, no drift, responses validated. */
export function serverEnv(url: string, dir: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    DATABASE_URL: url,
    CONDUCTOR_ROOT_SECRET: ROOT_SECRET,
    CONDUCTOR_ROOT_SECRET_FILE: join(dir, 'root-secret'),
    CONSOLE_ADMIN_PASSWORD_FILE: join(dir, 'admin-password'),
    DEMO_DATA: 'false',
    VALIDATE_RESPONSES: 'true',
    SIM_DRIFT_RATE: '0',
    SCHEDULER_INTERVAL_MS: '3600000',
    ENFORCEMENT_INTERVAL_MS: '3600000',
    WEBHOOK_ALLOW_PRIVATE: 'true',
    SHUTDOWN_TIMEOUT_MS: '2000',
    ...extra,
  };
}

/** A server process on a new database of the cluster, listening. */
export async function serve(cluster: OwnPostgres, extra: Record<string, string> = {}): Promise<Served> {
  const prepared = await prepareDatabase(cluster);
  const dir = await mkdtemp(join(tmpdir(), 'outage-server-'));
  const server = new ServerProcess(serverEnv(prepared.url, dir, extra));
  const stop = async () => {
    await server.stop('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await server.ready;
  } catch (error) {
    await stop();
    throw error;
  }
  return { server, ...prepared, stop };
}

/** The provider_a account of an environment: twelve digits, the same for the same name. */
export function accountOf(name: string): string {
  let hash = 0;
  for (const char of name) hash = (hash * 31 + char.charCodeAt(0)) % 99_999_999_999;
  return String(300_000_000_000 + hash);
}

export async function createEnvironment(baseUrl: string, auth: string, name: string): Promise<string> {
  const res = await call(baseUrl, 'POST', '/v0/environments', {
    auth,
    body: { name, provider: 'provider_a', provider_options: { provider_a: { role_arn: `arn:prova:iam::${accountOf(name)}:role/scanner`, regions: ['*'] } } },
  });
  if (res.status !== 201) throw new Error(`creating environment ${name}: ${res.status} ${res.text}`);
  return res.body.id as string;
}
