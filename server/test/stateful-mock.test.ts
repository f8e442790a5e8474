import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { MOCK_DEMO_CLIENT } from '../src/demo/mock.js';
import { PROJECT_ROOT } from '../src/paths.js';
import { basic } from './server.js';
import { expect } from './expect.js';
import { serverEntry } from './server-process.js';

/** The stateful mock (`MOCK_RESET=true`): the real server with demo data, and `POST /mock/reset`. */
let child: ChildProcess;
let dir: string;
let url = '';
let output = '';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'stateful-mock-'));
  const env = {
    ...process.env,
    MOCK_RESET: 'true',
    // `large` is made on its first load, if this suite loads it at all, not at start.
    MOCK_LARGE_AT_START: 'false',
    DATABASE_URL: `sqlite:${join(dir, 'mock.db')}`,
    CONDUCTOR_ROOT_SECRET: '',
    CONSOLE_ADMIN_PASSWORD: '',
    CONDUCTOR_ROOT_SECRET_FILE: join(dir, 'conductor-root-secret'),
    CONSOLE_ADMIN_PASSWORD_FILE: join(dir, 'console-admin-password'),
    VALIDATE_RESPONSES: 'true',
    PORT: '0',
  };
  child = spawn(process.execPath, serverEntry('main'), { cwd: PROJECT_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match) resolve(match[1]!);
    });
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`server exited with ${code} before listening:\n${output}`)));
  });
}, 120_000);

afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
  if (dir) await rm(dir, { recursive: true, force: true });
});

const client = basic(MOCK_DEMO_CLIENT.client_id, MOCK_DEMO_CLIENT.client_secret);
const root = basic('root', 'mock-conductor-root-secret');

async function call(method: string, path: string, authorization: string, body?: unknown): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { authorization, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/** What a frontend sees of the demo: environments, conductor accounts, processes and validation libraries. */
async function demoState(): Promise<unknown> {
  const paths: Array<[string, string]> = [
    ['/v0/environments?max_items=100', client],
    ['/api/v0/accounts', root],
    ['/api/v0/processes', root],
    ['/api/v0/validations', root],
  ];
  const state: Record<string, unknown> = {};
  for (const [path, auth] of paths) {
    const answer = await call('GET', path, auth);
    expect(answer.status, path).toBe(200);
    state[path] = answer.body;
  }
  return state;
}

describe('stateful mock', () => {
  it('prints and writes fixed demo credentials', async () => {
    const credentials = JSON.parse(await readFile(join(dir, 'mock-credentials.json'), 'utf8'));
    expect(credentials).toEqual({
      api_client: MOCK_DEMO_CLIENT,
      console_admin: { email: 'admin@example.com', password: 'mock-admin-password' },
      conductor_root: { user: 'root', secret: 'mock-conductor-root-secret' },
    });
    expect(output).toContain(MOCK_DEMO_CLIENT.client_secret);
    expect(output).toContain('POST /mock/reset');
  });

  it('resets to the seeded demo state, credentials unchanged', async () => {
    const before = await demoState();
    const environments = (before as Record<string, { items: Array<{ id: string; name: string }> }>)['/v0/environments?max_items=100']!.items;
    expect(environments).toHaveLength(3);

    const created = await call('POST', '/v0/environments', client, {
      name: 'Made by the frontend',
      provider: 'provider_b',
      provider_options: { provider_b: { subscription_id: '8f14e45f-ceea-4e7a-9c3b-0d5e2f1a6b7c', tenant_id: '1d2c3b4a-5e6f-4a7b-8c9d-0e1f2a3b4c5d' } },
      compliance_families: ['CISPROVB'],
    });
    expect(created.status).toBe(201);
    expect((await call('DELETE', `/v0/environments/${environments[0]!.id}`, client)).status).toBe(204);
    expect(await demoState()).not.toEqual(before);

    const reset = await fetch(`${url}/mock/reset`, { method: 'POST' });
    const answer = (await reset.json()) as { status: string; duration_ms: number };
    // How long the copy took is the server's to say (a few tens of milliseconds on a quiet machine), not a check.
    console.log(`stateful mock reset: ${answer.duration_ms} ms in the server`);
    expect(reset.status).toBe(200);
    expect(answer).toEqual({ status: 'reset', duration_ms: expect.any(Number) });

    expect(await demoState()).toEqual(before);
    expect((await call('GET', `/v0/environments/${environments[0]!.id}`, client)).status).toBe(200);
  }, 60_000);
});
