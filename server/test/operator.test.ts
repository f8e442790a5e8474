import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from '@jest/globals';
import { PROJECT_ROOT } from '../src/paths.js';
import { eventually } from './eventually.js';
import { basic } from './server.js';

/** What an operator does from a shell: the admin command and the server process itself. */
const run = promisify(execFile);
const TSX = ['--import', 'tsx'];

async function scratchEnv(): Promise<NodeJS.ProcessEnv> {
  const dir = await mkdtemp(join(tmpdir(), 'operator-'));
  return {
    ...process.env,
    DATABASE_URL: `sqlite:${join(dir, 'app.db')}`,
    CONDUCTOR_ROOT_SECRET_FILE: join(dir, 'root-secret'),
    CONSOLE_ADMIN_PASSWORD_FILE: join(dir, 'admin-password'),
    PORT: '0',
    DEMO_DATA: 'false',
  };
}

function startServer(env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; port: number; output: () => string }> {
  const child = spawn(process.execPath, [...TSX, 'server/src/main.ts'], { cwd: PROJECT_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(output);
      if (match) resolve({ child, port: Number(match[1]), output: () => output });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`server exited with ${code} before listening:\n${output}`)));
  });
}

const exitOf = (child: ChildProcess) => new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

describe('operator', () => {
  it('creates an API client from the command line whose credentials work against the server', async () => {
    const env = await scratchEnv();
    const { stdout } = await run(process.execPath, [...TSX, 'server/src/admin.ts', 'api-clients', 'create', '--name', 'ci-bot', '--json'], { cwd: PROJECT_ROOT, env });
    const credentials = JSON.parse(stdout) as { client_id: string; client_secret: string };
    expect(Object.keys(credentials)).toEqual(['client_id', 'client_secret']);
    expect(Buffer.from(credentials.client_secret, 'base64url').length).toBeGreaterThanOrEqual(32);

    const { child, port } = await startServer(env);
    try {
      const res = await fetch(`http://127.0.0.1:${port}/v0/environments`, { headers: { authorization: basic(credentials.client_id, credentials.client_secret) } });
      expect(res.status).toBe(200);
    } finally {
      child.kill('SIGTERM');
      await exitOf(child);
    }
  });

  it('puts a client in another organization with --org, and explains its usage', async () => {
    const env = await scratchEnv();
    const { stdout } = await run(process.execPath, [...TSX, 'server/src/admin.ts', 'api-clients', 'create', '--name', 'x', '--org', 'acme', '--json'], { cwd: PROJECT_ROOT, env });
    expect(JSON.parse(stdout)).toHaveProperty('client_id');
    await expect(run(process.execPath, [...TSX, 'server/src/admin.ts', 'api-clients', 'create'], { cwd: PROJECT_ROOT, env })).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/--name is required/),
    });
  });

  it('stops on bad configuration with a message naming the variable', async () => {
    const env = { ...(await scratchEnv()), PORT: 'eighty' };
    const child = spawn(process.execPath, [...TSX, 'server/src/main.ts'], { cwd: PROJECT_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    expect(await exitOf(child)).toBe(1);
    expect(stderr).toMatch(/configuration error: PORT: must be a whole number/);
  });

  it('on SIGTERM, finishes the request in flight, refuses new connections and exits 0', async () => {
    const { child, port, output } = await startServer({ ...(await scratchEnv()), CONDUCTOR_ROOT_SECRET: 'drain-test-root-secret' });
    const exited = exitOf(child);

    // A request whose head has not finished arriving is in flight when the signal comes.
    const socket = connect(port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    let response = '';
    socket.on('data', (chunk) => (response += chunk.toString()));
    const ended = new Promise((resolve) => socket.once('close', resolve));
    socket.write(`GET /api/v0/accounts HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${basic('root', 'drain-test-root-secret')}\r\n`);
    await new Promise((resolve) => setTimeout(resolve, 200));

    child.kill('SIGTERM');
    await eventually(() => expect(output()).toMatch(/SIGTERM received: draining/), { timeout: 5_000 });
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();

    socket.write('\r\n');
    await ended;
    expect(response).toMatch(/^HTTP\/1\.1 200 /);
    expect(await exited).toBe(0);
    expect(output()).toMatch(/stopped/);
  });
});
