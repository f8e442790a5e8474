import { closeSync, linkSync, mkdirSync, openSync, rmSync, statSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { dirname } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { AppError } from '../domain/errors.js';
import type { Log } from '../domain/log.js';

/**
 * What can go wrong with a SQLite file underneath the server, and what becomes of it:
 * - `full`: its filesystem has no room left (SQLITE_FULL). Writes fail, reads go on; once space is freed,
 *   everything goes on. Callers get AppError `unavailable` (503, Retry-After).
 * - `io`: the operating system failed a read or write (SQLITE_IOERR and its extended codes). Possibly passing
 *   (a full filesystem shows as one too, when the shared-memory file cannot grow): `unavailable` as well.
 * - `damaged`: the file's content is not a sound database (SQLITE_CORRUPT and its extended codes, SQLITE_NOTADB).
 *   Nothing but the operator restoring the file ends it: AppError `internal` (500) saying so.
 * Judged by SQLite's result code alone; its messages are for people.
 */
export type SqliteFault = 'full' | 'io' | 'damaged';

export function sqliteFaultOf(error: unknown): SqliteFault | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || error instanceof AppError) return undefined;
  if (code === 'SQLITE_FULL') return 'full';
  if (code === 'SQLITE_IOERR' || code.startsWith('SQLITE_IOERR_')) return 'io';
  if (code === 'SQLITE_CORRUPT' || code.startsWith('SQLITE_CORRUPT_') || code === 'SQLITE_NOTADB') return 'damaged';
  return undefined;
}

/** A client should not come back sooner: someone has to free space first. */
export const DISK_FULL_RETRY_AFTER_SECONDS = 30;
const IO_ERROR_RETRY_AFTER_SECONDS = 5;

/** What callers (an API's client, a scan's `message`) read. The file's path is for the operator's log only. */
export const FAULT_MESSAGES: Record<SqliteFault, string> = {
  full: 'The server’s disk is full: nothing more can be stored until space is freed; try again later',
  io: 'The server could not read or write its database file; try again shortly',
  damaged: 'The server’s database is damaged; its operator must restore it from a backup',
};

/** `error` as callers should see it: AppError for a fault of the file, otherwise `error` itself. */
export function asSqliteFault(error: unknown): unknown {
  const fault = sqliteFaultOf(error);
  switch (fault) {
    case 'full':
      return new AppError('unavailable', FAULT_MESSAGES.full, { retryAfter: DISK_FULL_RETRY_AFTER_SECONDS, cause: error });
    case 'io':
      return new AppError('unavailable', FAULT_MESSAGES.io, { retryAfter: IO_ERROR_RETRY_AFTER_SECONDS, cause: error });
    case 'damaged':
      return new AppError('internal', FAULT_MESSAGES.damaged, { cause: error });
    default:
      return error;
  }
}

/** What the operator's log says of each fault, after the file's path. */
const OPERATOR_ADVICE: Record<SqliteFault, string> = {
  full: 'its filesystem is full; writes fail (503) until space is freed there, and go on by themselves after',
  io: 'the operating system failed a read or write of it; check the disk and the filesystem',
  damaged: 'it is damaged; stop the server, then restore it from a backup (or move it aside, with its -wal and -shm files, to start anew)',
};

/** A fault of one kind is logged at once, then at most once per this long, with how many went unlogged. */
const REPORT_EVERY_MS = 10_000;

/**
 * Turns SQLite's errors into what callers should see (`asSqliteFault`), and writes the faults to the operator's
 * log naming the file. Under load a full disk fails every write; one line per fault per REPORT_EVERY_MS says as
 * much without burying the log (which may well be on the same disk).
 */
export class SqliteFaultReporter {
  private readonly reported = new Map<SqliteFault, { at: number; unlogged: number }>();

  constructor(
    /** The database file; undefined in memory. */
    readonly file: string | undefined,
    private readonly log: Log,
    private readonly now: () => number = () => performance.now(),
  ) {}

  convert(error: unknown): unknown {
    const fault = sqliteFaultOf(error);
    if (fault) this.report(fault, error);
    return asSqliteFault(error);
  }

  private report(fault: SqliteFault, error: unknown): void {
    const last = this.reported.get(fault);
    const now = this.now();
    if (last && now - last.at < REPORT_EVERY_MS) {
      last.unlogged += 1;
      return;
    }
    this.reported.set(fault, { at: now, unlogged: 0 });
    const code = (error as { code: string }).code;
    const file = this.file ?? 'in memory';
    const fields = { file, code, ...(last && last.unlogged > 0 && { unlogged: last.unlogged }), err: error };
    this.log.error(fields, `database file ${file}: ${code}: ${OPERATOR_ADVICE[fault]}`);
  }
}

/**
 * The server will not start on this database file: it is damaged, empty, or not a database. The message names
 * the file and what to do; nothing was written to it.
 */
export class RefusedDatabaseFile extends Error {
  constructor(
    readonly file: string,
    message: string,
    options: { cause?: unknown } = {},
  ) {
    super(message, options);
    this.name = 'RefusedDatabaseFile';
  }
}

/** How many of quick_check's findings the refusal quotes. */
const QUICK_CHECK_FINDINGS = 3;

const moveAside = (file: string) =>
  `Restore it from a backup; or, to start with a new, empty database, move it aside together with ${file}-wal and ${file}-shm, if they exist`;

/**
 * Opens the database file at `path`, making a new database only where no file exists, and checks what it finds
 * there before anything is written to it:
 * - an empty file (0 bytes) is refused: a new database is never made over a file that was there, since an empty
 *   file where a database was expected means the data went missing (a failed copy or restore);
 * - a file that is not a SQLite database, or one whose structure is damaged (PRAGMA quick_check), is refused;
 * - a write-ahead log (`-wal`) left without its database is refused: a new database beside it would take its
 *   pages in as its own.
 * A refusal is a RefusedDatabaseFile; any other failure to open (permissions, a missing directory that cannot be
 * made) is SQLite's or the system's error as it is.
 */
export function openSqliteFile(path: string): SqliteDatabase.Database {
  // The database holds credentials' hashes and everything else: its directory and file are the owner's only.
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  if (sizeOf(path) === undefined) createSqliteFile(path);
  if (sizeOf(path) === 0) {
    throw new RefusedDatabaseFile(
      path,
      `refusing to start on the database file ${path}: it is empty (0 bytes) where a database was expected, and a new database is made only where no file exists. ${moveAside(path)}.`,
    );
  }
  let sqlite: SqliteDatabase.Database | undefined;
  try {
    sqlite = new SqliteDatabase(path, { fileMustExist: true });
    // The first read of the file: a file that is not a database fails here, with SQLITE_NOTADB.
    const findings = (sqlite.pragma(`quick_check(${QUICK_CHECK_FINDINGS})`) as Array<{ quick_check: string }>).map((row) => row.quick_check);
    if (findings.length !== 1 || findings[0] !== 'ok') {
      throw new RefusedDatabaseFile(path, `refusing to start on the database file ${path}: it is damaged (PRAGMA quick_check: ${findings.join('; ')}). ${moveAside(path)}.`);
    }
    return sqlite;
  } catch (error) {
    sqlite?.close();
    if (sqliteFaultOf(error) === 'damaged') {
      const code = (error as { code: string }).code;
      const what = code === 'SQLITE_NOTADB' ? 'it is not a SQLite database' : 'it is damaged';
      throw new RefusedDatabaseFile(path, `refusing to start on the database file ${path}: ${what} (${code}: ${(error as Error).message}). ${moveAside(path)}.`, { cause: error });
    }
    throw error;
  }
}

/** The file's size, or undefined when there is none. */
function sizeOf(path: string): number | undefined {
  try {
    return statSync(path).size;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * Makes a new, empty database at `path`: made under another name and linked into place once SQLite wrote its
 * header, so that `path` never names an empty file, not even for a moment (another process starting at the same
 * time would take it for one that lost its data). Whoever links first made the database; the others use it.
 */
function createSqliteFile(path: string): void {
  const log = `${path}-wal`;
  if ((sizeOf(log) ?? 0) > 0 && sizeOf(path) === undefined) {
    // Read in this order, the database missing after its log was seen means it is not being made right now.
    throw new RefusedDatabaseFile(
      path,
      `refusing to start: the database file ${path} is missing, but its write-ahead log ${log} is there (the database was moved or deleted without it). Put the database back beside it, or move ${log} and ${path}-shm aside to start with a new, empty database.`,
    );
  }
  const draft = `${path}.new-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    closeSync(openSync(draft, 'wx', 0o600));
    const sqlite = new SqliteDatabase(draft);
    try {
      // Writes the header, with the journal mode the server runs in.
      sqlite.pragma('journal_mode = WAL');
    } finally {
      sqlite.close();
    }
    try {
      linkSync(draft, path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  } finally {
    for (const file of [draft, `${draft}-wal`, `${draft}-shm`]) rmSync(file, { force: true });
  }
}
