import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, copyFileSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, it, jest } from '@jest/globals';
import SqliteDatabase from 'better-sqlite3';
import { sql } from 'kysely';
import type { InventoryBatch } from '../src/domain/cloud/adapter.js';
import { PROJECT_ROOT } from '../src/paths.js';
import { migrateToLatest, openDatabase, type DatabaseHandle } from '../src/storage/database.js';
import { DISK_FULL_RETRY_AFTER_SECONDS, FAULT_MESSAGES } from '../src/storage/sqlite-faults.js';
import { CapturedLog } from './captured-log.js';
import { createEnvironment, nextAccount } from './compliance.js';
import { eventually } from './eventually.js';
import { expect } from './expect.js';
import { startTestServer, type TestServer } from './server.js';
import { fillUp, freeBytes, mountProblem, mountSmallDisk, unmountSmallDisk } from './small-disk.js';
import { serverEntry } from './server-process.js';

/**
 * The server on its default SQLite database when the file under it is not what it should be: damaged, empty or not
 * a database at all (refused at start-up, a clear 500 at run time), or on a filesystem that fills up (503 with
 * Retry-After, a scan that says so, and everything going on once space is freed).
 */
const run = promisify(execFile);
const TSX = ['--import', 'tsx'];
/** Stall detector for a process expected to exit at once: a server that started instead is killed then. */
const EXIT_WITHIN_MS = 60_000;

/** A migrated database file holding some rows of its own, closed, its log folded into it. */
async function makeDatabase(path: string): Promise<void> {
  const handle = openDatabase(`sqlite:${path}`);
  await migrateToLatest(handle);
  await handle.close();
  const sqlite = new SqliteDatabase(path);
  sqlite.exec('create table filler (x text)');
  const insert = sqlite.prepare('insert into filler values (?)');
  for (let i = 0; i < 400; i += 1) insert.run(randomBytes(600).toString('hex'));
  sqlite.pragma('wal_checkpoint(TRUNCATE)');
  sqlite.close();
}

/** Runs the server process (as `npm run dev` does) on `databaseFile` until it exits; its code and standard error. */
async function startServerOn(databaseFile: string, dir: string): Promise<{ code: number | null; stderr: string; stdout: string }> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: `sqlite:${databaseFile}`,
    CONDUCTOR_ROOT_SECRET_FILE: join(dir, 'root-secret'),
    CONSOLE_ADMIN_PASSWORD_FILE: join(dir, 'admin-password'),
    PORT: '0',
    DEMO_DATA: 'false',
  };
  const child = spawn(process.execPath, serverEntry('main'), { cwd: PROJECT_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const stall = setTimeout(() => child.kill('SIGKILL'), EXIT_WITHIN_MS);
  const code = await new Promise<number | null>((resolve) => child.once('close', (exitCode) => resolve(exitCode)));
  clearTimeout(stall);
  return { code, stderr, stdout };
}

describe('a server process started on a SQLite file it cannot trust', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'sqlite-refusals-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** Starts the server on `file` and expects it refused: a non-zero exit, the reason and the remedy on standard error. */
  const expectRefused = async (file: string, reason: RegExp) => {
    const before = readFileSync(file);
    const { code, stderr, stdout } = await startServerOn(file, dir);
    expect({ code, stdout }).toEqual({ code: 1, stdout: expect.not.stringMatching(/listening on/) });
    const line = JSON.parse(stderr.trim().split('\n').at(-1)!) as { level: number; file: string; msg: string };
    expect(line).toMatchObject({ level: 60, file });
    expect(line.msg).toContain(file);
    expect(line.msg).toMatch(reason);
    expect(line.msg).toMatch(/Restore it from a backup/);
    expect(line.msg).toContain(`move it aside together with ${file}-wal and ${file}-shm`);
    // Nothing was written to it, nor made beside it.
    expect(readFileSync(file).equals(before)).toBe(true);
    expect(() => statSync(`${file}-wal`)).toThrow();
  };

  it('refuses a database with 80 KB of random bytes written over its middle, naming the file', async () => {
    const file = join(dir, 'damaged.db');
    await makeDatabase(file);
    const bytes = readFileSync(file);
    randomBytes(80 * 1024).copy(bytes, Math.floor(bytes.length / 2) - 40 * 1024);
    writeFileSync(file, bytes);
    await expectRefused(file, /it is damaged \((PRAGMA quick_check: |SQLITE_CORRUPT)/);
  }, 90_000);

  it('refuses an empty, 0-byte file where a database was expected, rather than making a new database over it', async () => {
    const file = join(dir, 'empty.db');
    writeFileSync(file, '');
    await expectRefused(file, /it is empty \(0 bytes\) where a database was expected/);
    expect(statSync(file).size).toBe(0);
  }, 90_000);

  it('refuses a file that is not a SQLite database', async () => {
    const file = join(dir, 'text.db');
    writeFileSync(file, 'name,value\nthis,is a spreadsheet\n'.repeat(300));
    await expectRefused(file, /it is not a SQLite database \(SQLITE_NOTADB/);
  }, 90_000);

  it('makes a new database where no file exists, once, however many processes start on it at the same moment', async () => {
    // Each process opens a fresh file per round, all of them at the same instants: none may find the file another
    // one is making and take it for an empty one.
    const script = `
      import { openDatabase } from './server/src/storage/database.ts';
      const [dir, startAt] = [process.argv[1], Number(process.argv[2])];
      for (let round = 0; round < 10; round += 1) {
        while (Date.now() < startAt + round * 100);
        const handle = openDatabase('sqlite:' + dir + '/round-' + round + '.db');
        await handle.close();
      }
      console.log('opened');`;
    const startAt = Date.now() + 4_000;
    const outcomes = await Promise.allSettled(
      Array.from({ length: 4 }, () => run(process.execPath, [...TSX, '--input-type=module', '-e', script, dir, String(startAt)], { cwd: PROJECT_ROOT, timeout: EXIT_WITHIN_MS })),
    );
    for (const outcome of outcomes) {
      expect(outcome.status === 'fulfilled' ? outcome.value.stdout.trim() : String((outcome as PromiseRejectedResult).reason)).toBe('opened');
    }
    for (let round = 0; round < 10; round += 1) {
      const sqlite = new SqliteDatabase(join(dir, `round-${round}.db`), { readonly: true });
      expect(sqlite.pragma('quick_check', { simple: true })).toBe('ok');
      sqlite.close();
    }
  }, 120_000);
});

/** Status, headers and body of a request made by curl: a client nobody here wrote. */
async function curl(url: string, options: { method?: string; auth: string; body?: unknown }): Promise<{ status: number; headers: Record<string, string>; body: any }> {
  const args = ['-sS', '-i', '-X', options.method ?? 'GET', '-H', `Authorization: ${options.auth}`];
  if (options.body !== undefined) args.push('-H', 'Content-Type: application/json', '--data-binary', JSON.stringify(options.body));
  const { stdout } = await run('curl', [...args, url], { timeout: 30_000 });
  const [head, ...rest] = stdout.split('\r\n\r\n');
  const [statusLine, ...headerLines] = head!.split('\r\n');
  const headers = Object.fromEntries(headerLines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
  return { status: Number(statusLine!.split(' ')[1]), headers, body: JSON.parse(rest.join('\r\n\r\n')) };
}

/**
 * Copies the whole write-ahead log into the file and empties it. Again until it is empty: a checkpoint of the
 * server's own checkpointer thread under way makes one report busy.
 */
async function emptyLog(handle: DatabaseHandle, file: string): Promise<void> {
  await eventually(async () => {
    await sql`pragma wal_checkpoint(TRUNCATE)`.execute(handle.db);
    expect(statSync(`${file}-wal`).size).toBe(0);
  });
}

/** A server over a SQLite file, its own lines (the services' and the requests') kept. */
async function serverOn(file: string, options: Parameters<typeof startTestServer>[1] = {}): Promise<{ server: TestServer; handle: DatabaseHandle; log: CapturedLog }> {
  const log = new CapturedLog();
  const handle = openDatabase(`sqlite:${file}`, { log: log.logger });
  await migrateToLatest(handle);
  const server = await startTestServer({ target: { name: 'sqlite', url: `sqlite:${file}` }, handle }, { ...options, log: log.logger, requestLog: log.logger });
  return { server, handle, log };
}

describe('a SQLite file damaged while the server runs', () => {
  let dir: string;
  let running: { server: TestServer; handle: DatabaseHandle; log: CapturedLog } | undefined;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'sqlite-damaged-'));
  });
  afterAll(async () => {
    await running?.server.close();
    await running?.handle.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers a read of the damaged part with a clear 500, and logs a line naming the file', async () => {
    const file = join(dir, 'app.db');
    running = await serverOn(file);
    const { server, handle, log } = running;
    // Created, not yet listed: what the list answers is read from the file, not from anything kept of it.
    for (let i = 0; i < 3; i += 1) await createEnvironment(server, {}, { name: `env-${i}` });

    // Everything into the file, then the environments' table written over on disk (0xFF is no page type).
    await emptyLog(handle, file);
    const other = new SqliteDatabase(file);
    try {
      other.pragma('busy_timeout = 5000');
      const pageSize = other.pragma('page_size', { simple: true }) as number;
      const root = (other.prepare("select rootpage from sqlite_master where type = 'table' and name = 'environments'").get() as { rootpage: number }).rootpage;
      const fd = openSync(file, 'r+');
      try {
        writeSync(fd, Buffer.alloc(pageSize, 0xff), 0, pageSize, (root - 1) * pageSize);
      } finally {
        closeSync(fd);
      }
      // A commit of another connection: the server's connection drops the pages it cached and reads the file again.
      other.pragma('user_version = 7');
    } finally {
      other.close();
    }

    const answer = await server.request('GET', '/v0/environments');
    expect(answer.status).toBe(500);
    expect(answer.body).toEqual({ type: 'InternalServerError', code: 500, message: FAULT_MESSAGES.damaged });
    const outside = await curl(`${server.baseUrl}/v0/environments`, { auth: server.auth });
    expect(outside).toMatchObject({ status: 500, body: { type: 'InternalServerError', code: 500, message: FAULT_MESSAGES.damaged } });
    const faults = log.records().filter((record) => record.file === file);
    expect(faults).toHaveLength(1);
    expect(faults[0]).toMatchObject({ level: 50, code: expect.stringMatching(/^SQLITE_CORRUPT/) });
    expect(faults[0]!.msg).toMatch(new RegExp(`^database file ${file}: SQLITE_CORRUPT\\w*: it is damaged; stop the server, then restore it from a backup`));
    // The request's own line carries the error, SQLite's code among its causes.
    expect(log.requestLine(answer.headers.get('x-request-id')!)).toMatchObject({ status: 500, err: { message: expect.stringContaining('malformed') } });
  }, 60_000);
});

const cannotMount = mountProblem();
if (cannotMount) console.warn(`skipping the disk-full tests of sqlite-faults.test.ts: ${cannotMount}`);

/** Resource documents padded to about 8 KB each: one batch of a scan's results is then far larger than the room left. */
function paddedListing(server: TestServer) {
  const cloud = server.services.cloud;
  const list = cloud.listResources.bind(cloud);
  return jest.spyOn(cloud, 'listResources').mockImplementation(async function* (scope): AsyncGenerator<InventoryBatch> {
    for await (const batch of list(scope)) {
      yield batch.kind === 'resources' ? { ...batch, resources: batch.resources.map((r) => ({ ...r, properties: { ...r.properties, padding: randomBytes(4096).toString('hex') } })) } : batch;
    }
  });
}

(cannotMount ? describe.skip : describe)('the SQLite data directory on a filesystem that fills up', () => {
  let mount: string;
  let running: { server: TestServer; handle: DatabaseHandle; log: CapturedLog } | undefined;
  beforeAll(() => {
    mount = mountSmallDisk('sqlite-full-', 32);
  });
  afterAll(async () => {
    try {
      await running?.server.close();
      await running?.handle.close();
    } finally {
      unmountSmallDisk(mount);
    }
  });

  it('answers writes 503 with Retry-After, ends a scan saying the disk is full, and goes on once space is freed', async () => {
    const file = join(mount, 'data', 'app.db');
    const ballast = join(mount, 'ballast');
    running = await serverOn(file, { simulator: { driftRate: 0, accountSize: () => 600 } });
    const { server, handle, log } = running;
    const env = await createEnvironment(server, {}, { name: 'before' });
    const started = await server.request('POST', `/v0/scans?environment_id=${env.id}`);
    expect(started.status).toBe(201);
    // The log emptied into the file, so that every write from now on needs room of its own.
    await emptyLog(handle, file);

    fillUp(ballast);
    expect(freeBytes(mount)).toBe(0);
    // A write request: 503 in the API's error shape, with Retry-After, from this client and from curl.
    const newEnvironment = () => ({ name: 'while-full', provider: 'provider_a', provider_options: { provider_a: { role_arn: `arn:prova:iam::${nextAccount()}:role/scanner`, regions: ['*'] } } });
    const refused = await server.request('POST', '/v0/environments', { body: newEnvironment() });
    expect(refused.status, refused.text).toBe(503);
    expect(refused.headers.get('retry-after')).toBe(String(DISK_FULL_RETRY_AFTER_SECONDS));
    expect(refused.body).toEqual({ type: 'ServiceUnavailable', code: 503, message: FAULT_MESSAGES.full });
    const outside = await curl(`${server.baseUrl}/v0/environments`, {
      method: 'POST',
      auth: server.auth,
      body: newEnvironment(),
    });
    expect(outside).toMatchObject({ status: 503, headers: { 'retry-after': String(DISK_FULL_RETRY_AFTER_SECONDS) }, body: { type: 'ServiceUnavailable', message: FAULT_MESSAGES.full } });
    // Reads need no room.
    expect((await server.request('GET', `/v0/environments/${env.id}`)).status).toBe(200);
    const full = log.records().filter((record) => record.code === 'SQLITE_FULL');
    expect(full[0]).toMatchObject({ level: 50, file });
    expect(full[0]!.msg).toBe(`database file ${file}: SQLITE_FULL: its filesystem is full; writes fail (503) until space is freed there, and go on by themselves after`);

    // Room for a little, not for a batch of results: each attempt of the scan fails on a write, the first is tried
    // again later (space may be freed meanwhile), and once the last gives up the scan ends ERROR saying why.
    truncateSync(ballast, statSync(ballast).size - 256 * 1024);
    const padded = paddedListing(server);
    try {
      await server.services.jobs.runOnce();
      expect((await server.request('GET', `/v0/scans/${started.body.id}`)).body).toMatchObject({ status: 'IN_PROGRESS', message: null });
      server.clock.advanceSeconds(3600);
      await server.services.jobs.runOnce();
    } finally {
      padded.mockRestore();
    }
    const failed = await server.request('GET', `/v0/scans/${started.body.id}`);
    expect(failed.body).toMatchObject({ status: 'ERROR', message: `the scan was given up: ${FAULT_MESSAGES.full}` });
    expect(failed.body.message).toMatch(/disk is full/);

    // Room for a write to the log, not for copying it into the file: checkpoints fail, and the log says so.
    await emptyLog(handle, file);
    rmSync(ballast);
    fillUp(ballast);
    truncateSync(ballast, statSync(ballast).size - 384 * 1024);
    const checkpointLines = () => log.records().filter((record) => record.file === file && /checkpoints/.test(record.msg));
    const earlier = checkpointLines().length;
    const checkpoints = () => checkpointLines().slice(earlier);
    await sql`create table growth (x blob)`.execute(handle.db);
    await sql`insert into growth values (randomblob(256 * 1024))`.execute(handle.db);
    await eventually(() => expect(checkpoints()).toEqual([expect.objectContaining({ level: 40, code: expect.stringMatching(/^SQLITE_(FULL|IOERR)/) })]), { timeout: 30_000 });
    expect(checkpoints()[0]!.msg).toMatch(new RegExp(`^database file ${file}: checkpoints fail \\(SQLITE_\\w+\\); its write-ahead log ${file}-wal grows until they succeed again$`));

    // Space freed: the same server, without a restart, writes, scans and checkpoints again.
    rmSync(ballast);
    await eventually(() => expect(checkpoints().map((record) => record.msg)).toEqual([expect.any(String), `database file ${file}: checkpoints succeed again`]), { timeout: 30_000 });
    await sql`drop table growth`.execute(handle.db);
    const after = await createEnvironment(server, {}, { name: 'after-space-freed' });
    const again = await server.request('POST', `/v0/scans?environment_id=${after.id}`);
    expect(again.status, again.text).toBe(201);
    while (await server.services.jobs.runOnce());
    expect((await server.request('GET', `/v0/scans/${again.body.id}`)).body).toMatchObject({ status: 'SUCCESS', message: null });
    const rescan = await server.request('POST', `/v0/scans?environment_id=${env.id}`);
    expect(rescan.status, rescan.text).toBe(201);
    while (await server.services.jobs.runOnce());
    expect((await server.request('GET', `/v0/scans/${rescan.body.id}`)).body).toMatchObject({ status: 'SUCCESS' });
    const { rows } = await sql<{ integrity_check: string }>`pragma integrity_check`.execute(handle.db);
    expect(rows).toEqual([{ integrity_check: 'ok' }]);
    // The checkpointer copies the log into the file again: the file alone, without its log, holds the new rows.
    const copy = join(mkdtempSync(join(tmpdir(), 'sqlite-full-copy-')), 'app.db');
    try {
      await eventually(
        () => {
          copyFileSync(file, copy);
          const alone = new SqliteDatabase(copy);
          try {
            expect(alone.prepare('select name from environments where id = ?').get(after.id)).toEqual({ name: 'after-space-freed' });
          } finally {
            alone.close();
          }
        },
        { timeout: 30_000, interval: 200 },
      );
    } finally {
      rmSync(join(copy, '..'), { recursive: true, force: true });
    }
  }, 120_000);
});
