import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readdir, stat } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it, jest } from '@jest/globals';
import { accountKey } from '../src/domain/cloud/simulator/simulated-cloud.js';
import { newId } from '../src/domain/ids.js';
import { DRY_RUN_JOB } from '../src/domain/conductor/dry-runs.js';
import { PROJECT_ROOT } from '../src/paths.js';
import { openDatabase } from '../src/storage/database.js';
import { KyselyCloudInventoryRepository } from '../src/storage/repositories/cloud-inventory.js';
import { KyselyDryRunRepository } from '../src/storage/repositories/conductor.js';
import { eventually } from './eventually.js';
import { basic } from './server.js';
import { serverEntry } from './server-process.js';

/** What an operator does from a shell: the admin command and the server process itself. */
const run = promisify(execFile);

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
  const child = spawn(process.execPath, serverEntry('main'), { cwd: PROJECT_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
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

/** Resolves once the child exited and its output pipes are closed, so the output read so far is all of it. */
const exitOf = (child: ChildProcess) => new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));

// Each test starts the server or the admin command through tsx, up to four times: seconds each on a busy machine.
jest.setTimeout(120_000);

describe('operator', () => {
  it('creates an API client from the command line whose credentials work against the server', async () => {
    const env = await scratchEnv();
    const { stdout } = await run(process.execPath, [...serverEntry('admin'), 'api-clients', 'create', '--name', 'ci-bot', '--json'], { cwd: PROJECT_ROOT, env });
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
    const { stdout } = await run(process.execPath, [...serverEntry('admin'), 'api-clients', 'create', '--name', 'x', '--org', 'acme', '--json'], { cwd: PROJECT_ROOT, env });
    expect(JSON.parse(stdout)).toHaveProperty('client_id');
    await expect(run(process.execPath, [...serverEntry('admin'), 'api-clients', 'create'], { cwd: PROJECT_ROOT, env })).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/--name is required/),
    });
  });

  it('sizes the simulated cloud: creates an account of the resources asked for, printed as JSON, naming the database on stderr', async () => {
    const env = await scratchEnv();
    const admin = (...args: string[]) => run(process.execPath, [...serverEntry('admin'), 'simulator', 'accounts', 'create', ...args], { cwd: PROJECT_ROOT, env });
    const { stdout, stderr } = await admin('--provider', 'provider_a', '--resources', '3000', '--json');
    const created = JSON.parse(stdout) as { provider: string; account: string; resources: number; role_arn: string };
    expect(created).toEqual({ provider: 'provider_a', account: expect.stringMatching(/^\d{12}$/), resources: 3000, role_arn: `arn:prova:iam::${created.account}:role/compliance-scanner` });
    expect(stderr).toBe(`database: SQLite ${env.DATABASE_URL!.slice('sqlite:'.length)}\n`);
    const database = openDatabase(env.DATABASE_URL!);
    try {
      expect(await new KyselyCloudInventoryRepository(database.db).count(accountKey('provider_a', created.account))).toBe(3000);
    } finally {
      await database.close();
    }
    const subscription = JSON.parse((await admin('--provider', 'provider_b', '--resources', '10', '--json')).stdout) as Record<string, unknown>;
    expect(subscription).toEqual({ provider: 'provider_b', account: expect.stringMatching(/^[0-9a-f-]{36}$/), resources: 10, subscription_id: subscription.account });
    await expect(admin('--provider', 'provider_a', '--resources', '5', '--account', created.account)).rejects.toMatchObject({ code: 2, stderr: expect.stringMatching(/already exists/) });
    await expect(admin('--provider', 'provider_c', '--resources', '5')).rejects.toMatchObject({ code: 2, stderr: expect.stringMatching(/--provider must be one of/) });
  });

  it('stops on bad configuration with a message naming the variable', async () => {
    const env = { ...(await scratchEnv()), PORT: 'eighty' };
    const child = spawn(process.execPath, serverEntry('main'), { cwd: PROJECT_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    expect(await exitOf(child)).toBe(1);
    expect(stderr).toMatch(/configuration error: PORT: must be a whole number/);
  });

  it('on SIGTERM, finishes the request in flight, answers /readyz 503 meanwhile and exits 0', async () => {
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
    await eventually(() => expect(output()).toMatch(/SIGTERM received: draining/));
    const readiness = await fetch(`http://127.0.0.1:${port}/readyz`);
    expect(readiness.status).toBe(503);
    expect(await readiness.json()).toEqual({ status: 'draining' });

    socket.write('\r\n');
    await ended;
    expect(response).toMatch(/^HTTP\/1\.1 200 /);
    expect(await exited).toBe(0);
    expect(output()).toMatch(/stopped/);
  });

  it('on SIGTERM, answers every client long-polling a dry-run at once with its current state', async () => {
    const env: NodeJS.ProcessEnv = { ...(await scratchEnv()), CONDUCTOR_ROOT_SECRET: 'drain-test-root-secret', SHUTDOWN_TIMEOUT_MS: '20000' };
    const { child, port, output } = await startServer(env);
    const exited = exitOf(child);
    // A dry-run another server process is computing: nothing in this one finishes it.
    const database = openDatabase(env.DATABASE_URL!);
    const id = newId();
    const now = Date.now();
    // Its job is leased to that other process for the next hour, so this one never takes it over.
    const job = { id: newId(), kind: DRY_RUN_JOB, payload: { dryRunId: id }, status: 'running' as const, attempts: 1, maxAttempts: 3, runAt: now, leaseOwner: 'another-process', leaseExpiresAt: now + 3_600_000, lastError: null, createdAt: now, updatedAt: now, finishedAt: null, requestId: null };
    try {
      await new KyselyDryRunRepository(database.db).insert(
        {
          id,
          command: 'KILL',
          status: 'RUNNING',
          processFid: null,
          accountName: null,
          importResources: false,
          compositionText: null,
          errors: [],
          plan: [],
          jobId: job.id,
          createdAt: Math.floor(now / 1000),
          finishedAt: null,
        },
        job,
      );
    } finally {
      await database.close();
    }

    const authorization = basic('root', 'drain-test-root-secret');
    const waiting = Array.from({ length: 10 }, () => fetch(`http://127.0.0.1:${port}/api/v0/dry-run/${id}?timeout=60`, { headers: { authorization } }));
    // All ten wait in the server before the signal: its long-poll gauge says so.
    const waiters = async () => Number(/^dry_run_long_poll_waiters (\d+)$/m.exec(await (await fetch(`http://127.0.0.1:${port}/metrics`)).text())?.[1]);
    await eventually(async () => expect(await waiters()).toBe(10), { timeout: 20_000 });
    child.kill('SIGTERM');
    const answers = await Promise.all(waiting);
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(await answer.json()).toMatchObject({ id, status: 'RUNNING', finished_at: null });
    }
    expect(await exited).toBe(0);
    // The server's own account: the signal ended all ten waits (none ran to its 60 s timeout), and every connection
    // ended with its answer, so the 20 s shutdown timeout never had to close one.
    const records = output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { msg: string; longPolls?: number });
    const messages = records.map((record) => record.msg);
    expect(records.find((record) => record.longPolls !== undefined)).toMatchObject({ longPolls: 10 });
    expect(messages.indexOf('every connection ended')).toBeGreaterThan(messages.indexOf('SIGTERM received: draining'));
    expect(messages.filter((message) => /shutdown timeout/.test(message))).toEqual([]);
    expect(messages.at(-1)).toBe('stopped');
  });

  it('creates its data directory owner-only (0700) and every data file in it readable by its owner only (0600)', async () => {
    const data = join(await mkdtemp(join(tmpdir(), 'operator-')), 'data');
    const env = {
      ...process.env,
      DATABASE_URL: `sqlite:${join(data, 'app.db')}`,
      CONDUCTOR_ROOT_SECRET_FILE: join(data, 'conductor-root-secret'),
      CONSOLE_ADMIN_PASSWORD_FILE: join(data, 'console-admin-password'),
      PORT: '0',
      DEMO_DATA: 'true',
    };
    const { child } = await startServer(env);
    try {
      expect((await stat(data)).mode & 0o777).toBe(0o700);
      const files = (await readdir(data)).sort();
      expect(files).toEqual(expect.arrayContaining(['app.db', 'app.db-wal', 'conductor-root-secret', 'console-admin-password', 'demo-credentials.json']));
      for (const file of files) expect([file, (await stat(join(data, file))).mode & 0o777]).toEqual([file, 0o600]);
    } finally {
      child.kill('SIGTERM');
      await exitOf(child);
    }
  });
});
