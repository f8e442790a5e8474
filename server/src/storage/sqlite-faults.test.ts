import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import SqliteDatabase from 'better-sqlite3';
import { sql } from 'kysely';
import { AppError } from '../domain/errors.js';
import type { Log } from '../domain/log.js';
import { migrateToLatest, openDatabase } from './database.js';
import { asSqliteFault, DISK_FULL_RETRY_AFTER_SECONDS, FAULT_MESSAGES, openSqliteFile, RefusedDatabaseFile, SqliteFaultReporter, sqliteFaultOf } from './sqlite-faults.js';

const sqliteError = (code: string, message = 'whatever SQLite said') => Object.assign(new Error(message), { code });

/** A log that keeps its lines. */
function keptLog(): Log & { lines: Array<{ level: string; fields: Record<string, unknown>; message: string }> } {
  const lines: Array<{ level: string; fields: Record<string, unknown>; message: string }> = [];
  const at = (level: string) => (fields: Record<string, unknown>, message: string) => void lines.push({ level, fields, message });
  const log = { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error'), child: () => log };
  return log;
}

describe('SQLite faults', () => {
  it('are told by the result code, never by the message', () => {
    expect(sqliteFaultOf(sqliteError('SQLITE_FULL'))).toBe('full');
    expect(sqliteFaultOf(sqliteError('SQLITE_IOERR'))).toBe('io');
    expect(sqliteFaultOf(sqliteError('SQLITE_IOERR_WRITE'))).toBe('io');
    expect(sqliteFaultOf(sqliteError('SQLITE_IOERR_SHMSIZE'))).toBe('io');
    expect(sqliteFaultOf(sqliteError('SQLITE_CORRUPT'))).toBe('damaged');
    expect(sqliteFaultOf(sqliteError('SQLITE_CORRUPT_INDEX'))).toBe('damaged');
    expect(sqliteFaultOf(sqliteError('SQLITE_NOTADB'))).toBe('damaged');
    // What a message says counts for nothing.
    expect(sqliteFaultOf(sqliteError('SQLITE_ERROR', 'database or disk is full'))).toBeUndefined();
    expect(sqliteFaultOf(new Error('database disk image is malformed'))).toBeUndefined();
    expect(sqliteFaultOf(sqliteError('SQLITE_BUSY'))).toBeUndefined();
    expect(sqliteFaultOf(sqliteError('SQLITE_CONSTRAINT_UNIQUE'))).toBeUndefined();
    expect(sqliteFaultOf(undefined)).toBeUndefined();
  });

  it('reach callers as AppError: a full disk or a failed read is `unavailable` with Retry-After, a damaged file `internal`', () => {
    const full = sqliteError('SQLITE_FULL');
    expect(asSqliteFault(full)).toMatchObject({ code: 'unavailable', retryAfter: DISK_FULL_RETRY_AFTER_SECONDS, message: FAULT_MESSAGES.full, cause: full });
    expect(FAULT_MESSAGES.full).toMatch(/disk is full/);
    expect(asSqliteFault(sqliteError('SQLITE_IOERR_READ'))).toMatchObject({ code: 'unavailable', retryAfter: expect.any(Number) });
    const damaged = asSqliteFault(sqliteError('SQLITE_CORRUPT')) as AppError;
    expect(damaged).toBeInstanceOf(AppError);
    expect(damaged).toMatchObject({ code: 'internal', retryAfter: undefined, message: FAULT_MESSAGES.damaged });
    const other = sqliteError('SQLITE_CONSTRAINT_UNIQUE');
    expect(asSqliteFault(other)).toBe(other);
  });

  it('are logged naming the file, a line per kind at once and then at most one per ten seconds with the count left unlogged', () => {
    const log = keptLog();
    let now = 0;
    const reporter = new SqliteFaultReporter('/data/app.db', log, () => now);
    reporter.convert(sqliteError('SQLITE_FULL'));
    reporter.convert(sqliteError('SQLITE_FULL'));
    reporter.convert(sqliteError('SQLITE_CORRUPT'));
    reporter.convert(sqliteError('SQLITE_CONSTRAINT_UNIQUE'));
    now = 10_000;
    reporter.convert(sqliteError('SQLITE_FULL'));
    expect(log.lines.map((line) => [line.level, line.fields.file, line.fields.code, line.fields.unlogged])).toEqual([
      ['error', '/data/app.db', 'SQLITE_FULL', undefined],
      ['error', '/data/app.db', 'SQLITE_CORRUPT', undefined],
      ['error', '/data/app.db', 'SQLITE_FULL', 1],
    ]);
    expect(log.lines[0]!.message).toMatch(/^database file \/data\/app\.db: SQLITE_FULL: its filesystem is full/);
    expect(log.lines[1]!.message).toMatch(/restore it from a backup/);
  });
});

describe('a statement that fails with SQLITE_FULL inside a transaction', () => {
  it('fails the transaction with the disk-full error, not with the rollback that found no transaction left', async () => {
    const handle = openDatabase('sqlite::memory:');
    try {
      await migrateToLatest(handle);
      // The database may not grow past its pages now: SQLite answers SQLITE_FULL and ends the transaction itself.
      const { rows } = await sql<{ page_count: number }>`pragma page_count`.execute(handle.db);
      await sql.raw(`pragma max_page_count = ${rows[0]!.page_count}`).execute(handle.db);
      const failed = await handle.db
        .transaction()
        .execute(async (trx) => {
          await sql`create table ballast (x blob)`.execute(trx);
          await sql`insert into ballast values (${Buffer.alloc(1 << 20)})`.execute(trx);
        })
        .catch((error: unknown) => error);
      expect(failed).toBeInstanceOf(AppError);
      expect(failed).toMatchObject({ code: 'unavailable', message: FAULT_MESSAGES.full, cause: expect.objectContaining({ code: 'SQLITE_FULL' }) });
      // Nothing is left open: the next transaction begins, writes within the bound and commits.
      await sql.raw('pragma max_page_count = 1073741823').execute(handle.db);
      await handle.db.transaction().execute(async (trx) => {
        await sql`create table ballast (x blob)`.execute(trx);
        await sql`insert into ballast values (${Buffer.alloc(1 << 20)})`.execute(trx);
      });
      const { rows: counted } = await sql<{ n: number }>`select count(*) as n from ballast`.execute(handle.db);
      expect(counted[0]!.n).toBe(1);
    } finally {
      await handle.close();
    }
  });
});

describe('opening a SQLite file', () => {
  const dirs: string[] = [];
  const scratch = () => {
    const dir = mkdtempSync(join(tmpdir(), 'sqlite-faults-'));
    dirs.push(dir);
    return dir;
  };
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  /** A migrated database file with some rows, closed. */
  const database = async (path: string) => {
    const handle = openDatabase(`sqlite:${path}`);
    await migrateToLatest(handle);
    await handle.close();
    const sqlite = new SqliteDatabase(path);
    sqlite.exec('create table filler (x text)');
    const insert = sqlite.prepare('insert into filler values (?)');
    for (let i = 0; i < 400; i += 1) insert.run(randomBytes(600).toString('hex'));
    sqlite.pragma('wal_checkpoint(TRUNCATE)');
    sqlite.close();
  };

  const refusal = (path: string): RefusedDatabaseFile => {
    try {
      openSqliteFile(path).close();
    } catch (error) {
      if (error instanceof RefusedDatabaseFile) return error;
      throw error;
    }
    throw new Error(`${path} was not refused`);
  };

  it('makes a new database where no file exists: owner-only, with its header written, and nothing left beside it', () => {
    const dir = scratch();
    const path = join(dir, 'data', 'app.db');
    openSqliteFile(path).close();
    expect(statSync(path).size).toBeGreaterThan(0);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'data')).mode & 0o777).toBe(0o700);
    expect(readFileSync(path).subarray(0, 16).toString('latin1')).toBe('SQLite format 3\u0000');
    expect(readdirSync(join(dir, 'data'))).toEqual(['app.db']);
    // And opens it again as it is.
    openSqliteFile(path).close();
  });

  it('refuses an empty file where a database was expected, and leaves it as it was', () => {
    const path = join(scratch(), 'app.db');
    writeFileSync(path, '');
    const refused = refusal(path);
    expect(refused.file).toBe(path);
    expect(refused.message).toContain(path);
    expect(refused.message).toMatch(/empty \(0 bytes\)/);
    expect(refused.message).toMatch(/restore it from a backup/i);
    expect(refused.message).toMatch(/move it aside/);
    expect(statSync(path).size).toBe(0);
  });

  it('refuses a file that is not a SQLite database, and leaves it as it was', () => {
    const path = join(scratch(), 'app.db');
    const text = 'these are not the pages of a database\n'.repeat(200);
    writeFileSync(path, text);
    const refused = refusal(path);
    expect(refused.message).toContain(path);
    expect(refused.message).toMatch(/not a SQLite database \(SQLITE_NOTADB/);
    expect(refused.message).toMatch(/restore it from a backup/i);
    expect(readFileSync(path, 'utf8')).toBe(text);
  });

  it('refuses a database with random bytes written over its middle, found by quick_check, and leaves it as it was', async () => {
    const path = join(scratch(), 'app.db');
    await database(path);
    const bytes = readFileSync(path);
    randomBytes(80 * 1024).copy(bytes, Math.floor(bytes.length / 2) - 40 * 1024);
    writeFileSync(path, bytes);
    const refused = refusal(path);
    expect(refused.message).toContain(path);
    expect(refused.message).toMatch(/it is damaged \((PRAGMA quick_check|SQLITE_CORRUPT)/);
    expect(refused.message).toMatch(/restore it from a backup/i);
    expect(readFileSync(path).equals(bytes)).toBe(true);
  });

  it('refuses to make a new database beside a write-ahead log whose database is gone', async () => {
    const dir = scratch();
    const path = join(dir, 'app.db');
    writeFileSync(`${path}-wal`, randomBytes(8192));
    const refused = refusal(path);
    expect(refused.message).toContain(`${path}-wal`);
    expect(readdirSync(dir)).toEqual(['app.db-wal']);
  });

  it('refuses a start-up lock file written over, naming it', async () => {
    const dir = scratch();
    const path = join(dir, 'app.db');
    writeFileSync(`${path}.startup-lock`, 'not a lock\n'.repeat(100));
    const handle = openDatabase(`sqlite:${path}`);
    try {
      const { withStartupLock } = await import('./database.js');
      const failed = await withStartupLock(handle, async () => 'ran').catch((error: unknown) => error);
      expect(failed).toBeInstanceOf(RefusedDatabaseFile);
      expect((failed as Error).message).toContain(`${path}.startup-lock`);
    } finally {
      await handle.close();
    }
  });
});
