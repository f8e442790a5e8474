import { closeSync, mkdirSync, openSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { Worker } from 'node:worker_threads';
import SqliteDatabase from 'better-sqlite3';
import { CompiledQuery, Kysely, sql, Migrator, PostgresDialect, SqliteDialect, SqliteDriver, type DatabaseConnection, type Driver, type MigrationProvider, type SqliteDialectConfig } from 'kysely';
import pg from 'pg';
import { CompiledRowStatement } from './compiled-rows.js';
import { readDirectly } from './prepared.js';
import { migrations } from './migrations/index.js';
import type { Database } from './schema.js';

export type DialectName = 'sqlite' | 'postgres';

/** An open database: the typed query builder plus what the repositories must know about the dialect. */
export interface DatabaseHandle {
  db: Kysely<Database>;
  dialect: DialectName;
  /** PostgreSQL only: the schema the handle works in, when not the default one. */
  schema?: string;
  /** SQLite only: the database file, when not in memory. */
  file?: string;
  close(): Promise<void>;
}

// int8 (bigint) columns hold Unix times that fit easily in a double; read them as numbers, not strings.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

export interface OpenOptions {
  /** PostgreSQL only: the schema to work in (start-up tests share a database, each in a schema of its own). */
  schema?: string;
}

export function openDatabase(url: string, options: OpenOptions = {}): DatabaseHandle {
  if (url.startsWith('sqlite:')) return openSqlite(url.slice('sqlite:'.length));
  return openPostgres(url, options.schema);
}

const STATEMENT_CACHE_SIZE = 500;

type SqliteDatabaseLike = Exclude<SqliteDialectConfig['database'], () => unknown>;

/**
 * Kysely's SQLite driver prepares every query anew; preparing costs more than running a point lookup. This hands
 * it prepared statements from a cache keyed by SQL text, each reading its rows through a compiled row builder
 * (compiled-rows.ts). A statement still iterating a result (a stream) is busy and cannot be shared, so a busy one
 * is replaced by a fresh statement for the new caller.
 */
function withStatementCache(sqlite: SqliteDatabase.Database): SqliteDatabaseLike {
  const statements = new Map<string, CompiledRowStatement>();
  return {
    close: () => sqlite.close(),
    prepare(sql: string) {
      const cached = statements.get(sql);
      if (cached && !cached.busy) return cached;
      const statement = new CompiledRowStatement(sqlite.prepare(sql));
      if (statements.size >= STATEMENT_CACHE_SIZE) statements.delete(statements.keys().next().value!);
      statements.set(sql, statement);
      return statement;
    },
  };
}

/**
 * SQLite's default BEGIN (DEFERRED) takes the write lock only at a transaction's first write, so a transaction that
 * reads a row and then rewrites it may have read a version another process was overwriting; and a reader that
 * turns writer then fails with SQLITE_BUSY instead of waiting. BEGIN IMMEDIATE takes the write lock up front
 * (waiting up to busy_timeout): writers run one after the other, each reading what the previous one committed.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  /** True while Kysely holds the one connection: from a query's start to its end, a transaction's whole length. */
  held = false;

  override async acquireConnection(): Promise<DatabaseConnection> {
    const connection = await super.acquireConnection();
    this.held = true;
    return connection;
  }

  override async releaseConnection(): Promise<void> {
    this.held = false;
    await super.releaseConnection();
  }

  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

class ImmediateSqliteDialect extends SqliteDialect {
  driver: ImmediateSqliteDriver | undefined;

  constructor(private readonly config: SqliteDialectConfig) {
    super(config);
  }

  override createDriver(): Driver {
    return (this.driver = new ImmediateSqliteDriver(this.config));
  }
}

function openSqlite(path: string): DatabaseHandle {
  if (path !== ':memory:' && path !== '') {
    // The database holds credentials' hashes and everything else: its directory and file are the owner's only.
    // SQLite gives the -wal and -shm files the main file's mode.
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    closeSync(openSync(path, 'a', 0o600));
  }
  const sqlite = new SqliteDatabase(path);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  // A page cache of 4 MiB rather than the 16 MiB better-sqlite3 builds SQLite with (SQLite's own default is 2 MiB):
  // a large scan fills whatever cache there is, and with 4 MiB the peak RSS of a 100 000-resource scan was 248–250
  // MiB instead of 257–258, in as long and with result pages as fast. The file's pages stay in the system's cache.
  sqlite.pragma('cache_size = -4096');
  const checkpointer = path === ':memory:' || path === '' ? null : startWalCheckpointer(sqlite, path);
  const statements = withStatementCache(sqlite);
  const dialect = new ImmediateSqliteDialect({ database: statements });
  const db = new Kysely<Database>({ dialect });
  // A prepared read runs at once unless a query or transaction holds the connection: it would see a transaction's
  // uncommitted rows. Nothing else can run while it does, since better-sqlite3 answers synchronously.
  readDirectly(db, (sql, parameters) => {
    if (dialect.driver?.held !== false) return undefined;
    const statement = statements.prepare(sql);
    return statement.reader ? statement.all(parameters) : undefined;
  });
  return {
    db,
    dialect: 'sqlite',
    ...(checkpointer && { file: path }),
    close: async () => {
      await checkpointer?.stop();
      await db.destroy();
    },
  };
}

const CHECKPOINT_EVERY_MS = 500;

/**
 * Copies the write-ahead log into the database file from a thread of its own. SQLite's automatic checkpoint runs
 * inside whichever commit fills the log, on the request thread, and during a large scan one took over half a
 * second; a PASSIVE checkpoint on another connection copies what no reader still needs without blocking anyone.
 * The thread is plain JavaScript evaluated in place, so it starts the same from source and from the build.
 */
function startWalCheckpointer(sqlite: SqliteDatabase.Database, path: string): { stop(): Promise<void> } {
  sqlite.pragma('wal_autocheckpoint = 0');
  const worker = new Worker(
    `const { parentPort, workerData } = require('node:worker_threads');
     const Database = require(workerData.driver);
     const db = new Database(workerData.path);
     db.pragma('busy_timeout = 1000');
     const timer = setInterval(() => {
       try { db.pragma('wal_checkpoint(PASSIVE)'); } catch {}
     }, workerData.everyMs);
     parentPort.once('message', () => { clearInterval(timer); db.close(); parentPort.close(); });`,
    { eval: true, workerData: { driver: createRequire(import.meta.url).resolve('better-sqlite3'), path, everyMs: CHECKPOINT_EVERY_MS } },
  );
  worker.unref();
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  worker.on('error', () => {
    // Without the thread, SQLite's own checkpoints keep the log from growing without bound.
    sqlite.pragma('wal_autocheckpoint = 1000');
  });
  return {
    async stop() {
      // Held again while it stops: an unreferenced thread would let the process end before its exit is seen.
      worker.ref();
      worker.postMessage('stop');
      await exited;
    },
  };
}

function openPostgres(connectionString: string, schema: string | undefined): DatabaseHandle {
  const pool = new pg.Pool({
    connectionString,
    max: 10,
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  });
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return { db, dialect: 'postgres', ...(schema && { schema }), close: () => db.destroy() };
}

const provider: MigrationProvider = { getMigrations: async () => migrations };

/**
 * PostgreSQL advisory lock keys (any two bigints; these spell "migrate" and "startup"). The migration lock is one
 * for the whole database, schemas included: Kysely's migrator reads the catalog of every schema, and a schema
 * created or dropped meanwhile (as some tests do) makes that read fail; whoever changes schemas takes the same lock
 * (see server/test/postgres.ts), as does whoever builds the tests' template database (server/test/databases.ts).
 */
export const MIGRATION_LOCK = 0x6d69677261746500n;
const STARTUP_LOCK = 0x7374617274757000n;

/**
 * Runs `work` while this process holds a PostgreSQL session advisory lock on `key`, taken on a connection of its
 * own; processes that want the same lock wait their turn. With `perSchema`, the key is mixed with the schema, so
 * test schemas sharing one database do not wait for each other. SQLite: runs `work` as it is.
 */
async function withAdvisoryLock<T>(handle: DatabaseHandle, key: bigint, work: () => Promise<T>, { perSchema }: { perSchema: boolean }): Promise<T> {
  if (handle.dialect !== 'postgres') return work();
  const id = perSchema ? sql`${key.toString()}::bigint # hashtext(coalesce(current_schema(), ''))::bigint` : sql`${key.toString()}::bigint`;
  return handle.db.connection().execute(async (connection) => {
    await sql`select pg_advisory_lock(${id})`.execute(connection);
    try {
      return await work();
    } finally {
      await sql`select pg_advisory_unlock(${id})`.execute(connection);
    }
  });
}

/**
 * What a process does before it serves, run by one process at a time on one database (the others wait, then find
 * the work done): with migrations, creating the root user, the default organization and demo data. PostgreSQL: an
 * advisory lock; a SQLite file: a lock file beside it.
 */
export function withStartupLock<T>(handle: DatabaseHandle, work: () => Promise<T>): Promise<T> {
  if (handle.dialect === 'sqlite') return handle.file ? withFileLock(`${handle.file}.startup-lock`, work) : work();
  return withAdvisoryLock(handle, STARTUP_LOCK, work, { perSchema: true });
}

const FILE_LOCK_RETRY_MS = 25;

/**
 * Runs `work` while this connection holds an exclusive lock on a SQLite file beside the database: the operating
 * system's file lock, so that processes (and connections within one) take turns, and a process killed while it
 * holds the lock releases it. The lock is a file of its own because the work writes to the database itself. It is
 * asked for without blocking and again after a pause, so a process waiting for it keeps its event loop.
 */
async function withFileLock<T>(path: string, work: () => Promise<T>): Promise<T> {
  closeSync(openSync(path, 'a', 0o600));
  const lock = new SqliteDatabase(path);
  lock.pragma('busy_timeout = 0');
  try {
    for (;;) {
      try {
        lock.exec('begin exclusive');
        break;
      } catch (error) {
        if ((error as { code?: string }).code !== 'SQLITE_BUSY') throw error;
        await new Promise((resolve) => setTimeout(resolve, FILE_LOCK_RETRY_MS));
      }
    }
    try {
      return await work();
    } finally {
      lock.exec('commit');
    }
  } finally {
    lock.close();
  }
}

/**
 * Brings the schema up to date. Safe to run from several processes at once: Kysely's migrator serialises the
 * migrations themselves, but creates its own tables first, unguarded, and two processes doing that at once on a
 * fresh PostgreSQL database collide on the catalog; so the whole run happens under an advisory lock.
 */
export async function migrateToLatest(handle: DatabaseHandle): Promise<void> {
  // The migrator looks for its own tables across every schema; naming the schema keeps schemas that share a
  // database (as start-up tests do) from seeing each other's.
  const migrator = new Migrator({ db: handle.db, provider, ...(handle.schema && { migrationTableSchema: handle.schema }) });
  const { error, results } = await withAdvisoryLock(handle, MIGRATION_LOCK, () => migrator.migrateToLatest(), { perSchema: false });
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    throw new Error(`database migration ${failed?.migrationName ?? ''} failed: ${String(error)}`, { cause: error });
  }
}
