import { closeSync, openSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import SqliteDatabase from 'better-sqlite3';
import { CompiledQuery, Kysely, sql, Migrator, PostgresDialect, SqliteDialect, SqliteDriver, SqliteQueryCompiler, type DatabaseConnection, type Driver, type MigrationProvider, type PostgresPool, type PostgresPoolClient, type QueryCompiler, type SelectModifier, type SelectQueryNode, type SqliteDialectConfig } from 'kysely';
import pg from 'pg';
import { silentLog, type Log } from '../domain/log.js';
import { asUnavailable, ConnectionGate, unavailable, withinMs, type ConnectionLimits } from './availability.js';
import { CompiledRowStatement } from './compiled-rows.js';
import { readDirectly } from './prepared.js';
import { migrationsFor } from './migrations/index.js';
import type { Database } from './schema.js';
import { openSqliteFile, RefusedDatabaseFile, SqliteFaultReporter, sqliteFaultOf } from './sqlite-faults.js';

export type DialectName = 'sqlite' | 'postgres';

/** An open database: the typed query builder plus what the repositories must know about the dialect. */
export interface DatabaseHandle {
  db: Kysely<Database>;
  dialect: DialectName;
  /** PostgreSQL only: the schema the handle works in, when not the default one. */
  schema?: string;
  /** SQLite only: the database file, when not in memory. */
  file?: string;
  /**
   * PostgreSQL: whether the database answers `select 1` within `timeoutMs`, asked on a connection of its own, so
   * that a pool whose connections are all busy (or waiting on a lock) does not hold the answer up. See
   * `databaseAnswers`.
   */
  ping?(timeoutMs: number): Promise<boolean>;
  /**
   * SQLite file only: makes `file` the database, moved into place (renamed: it must be on the same filesystem and is
   * gone afterwards), in the time a rename and an open take whatever its size. The stateful mock loads its scenarios
   * so. The caller holds the connection (`db.connection().execute`), so that no query runs meanwhile; the handle,
   * its query builder and its prepared queries stay as they are and read the new file from then on.
   */
  replaceFile?(file: string): Promise<void>;
  close(): Promise<void>;
}

// int8 (bigint) columns hold Unix times that fit easily in a double; read them as numbers, not strings.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

/** How long a PostgreSQL server may take over a query and its connections (DATABASE_* settings). */
export interface PoolLimits extends ConnectionLimits {
  /** A statement running longer is cancelled by the server (its statement_timeout). */
  statementTimeoutMs: number;
}

export const DEFAULT_POOL_LIMITS: PoolLimits = { size: 10, acquireTimeoutMs: 3_000, statementTimeoutMs: 5_000, maxWaiting: 50 };

export interface OpenOptions {
  /** PostgreSQL only: the schema to work in (start-up tests share a database, each in a schema of its own). */
  schema?: string;
  /** PostgreSQL only: the pool's bounds; DEFAULT_POOL_LIMITS where unset. */
  pool?: Partial<PoolLimits>;
  /** Where connections that broke while idle, and SQLite files that are full or damaged, are reported. */
  log?: Log;
}

export function openDatabase(url: string, options: OpenOptions = {}): DatabaseHandle {
  if (url.startsWith('sqlite:')) return openSqlite(url.slice('sqlite:'.length), options.log ?? silentLog);
  return openPostgres(url, options);
}

/**
 * Whether the database answers a trivial query within `timeoutMs`: PostgreSQL is asked on a connection apart from
 * the pool's; SQLite, which answers from this process, directly. Never throws.
 */
export async function databaseAnswers(handle: DatabaseHandle, timeoutMs: number): Promise<boolean> {
  if (handle.ping) return handle.ping(timeoutMs);
  try {
    await withinMs(sql`select 1`.execute(handle.db), timeoutMs);
    return true;
  } catch {
    return false;
  }
}

const STATEMENT_CACHE_SIZE = 500;

/** The connection of an SQLite handle: another once `replaceFile` put another file in place. */
interface SqliteConnectionHolder {
  current: SqliteDatabase.Database;
}

type SqliteDatabaseLike = Exclude<SqliteDialectConfig['database'], () => unknown>;

/**
 * Kysely's SQLite driver prepares every query anew; preparing costs more than running a point lookup. This hands
 * it prepared statements from a cache keyed by SQL text, each reading its rows through a compiled row builder
 * (compiled-rows.ts). A statement still iterating a result (a stream) is busy and cannot be shared, so a busy one
 * is replaced by a fresh statement for the new caller.
 */
function withStatementCache(sqlite: SqliteConnectionHolder): SqliteDatabaseLike & { clear(): void } {
  const statements = new Map<string, CompiledRowStatement>();
  return {
    close: () => sqlite.current.close(),
    clear: () => statements.clear(),
    prepare(sql: string) {
      const cached = statements.get(sql);
      if (cached && !cached.busy) return cached;
      const statement = new CompiledRowStatement(sqlite.current.prepare(sql));
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
 *
 * Every query's failure goes through `faults` (sqlite-faults.ts): a full disk or a damaged file reaches callers as
 * AppError, and the operator's log names the file.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  /** True while Kysely holds the one connection: from a query's start to its end, a transaction's whole length. */
  held = false;
  private reporting: DatabaseConnection | undefined;

  constructor(
    config: SqliteDialectConfig,
    private readonly sqlite: SqliteConnectionHolder,
    private readonly faults: SqliteFaultReporter,
  ) {
    super(config);
  }

  override async acquireConnection(): Promise<DatabaseConnection> {
    const connection = await super.acquireConnection();
    this.held = true;
    return (this.reporting ??= reportingFaults(connection, this.faults));
  }

  override async releaseConnection(): Promise<void> {
    if (this.sqlite.current.inTransaction) {
      // Its holder left a transaction open (its rollback failed too): every later BEGIN would fail on it, and the
      // prepared reads that run between queries would see its rows.
      try {
        this.sqlite.current.exec('rollback');
      } catch (error) {
        this.faults.convert(error);
      }
    }
    this.held = false;
    await super.releaseConnection();
  }

  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }

  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      await super.rollbackTransaction(connection);
    } catch (error) {
      // A statement or COMMIT that failed with SQLITE_FULL, SQLITE_IOERR or SQLITE_NOMEM may have ended the
      // transaction already; the ROLLBACK then fails ("no transaction is active"), and Kysely would throw that in
      // place of the error that says what happened.
      if (this.sqlite.current.inTransaction) throw error;
    }
  }
}

/** A connection whose failures reach the caller as `faults` makes them. */
function reportingFaults(connection: DatabaseConnection, faults: SqliteFaultReporter): DatabaseConnection {
  return {
    async executeQuery(query) {
      try {
        // Kysely's SQLite connection throws some failures (preparing a statement) rather than rejecting.
        return await connection.executeQuery(query);
      } catch (error) {
        throw faults.convert(error);
      }
    },
    async *streamQuery(query, chunkSize) {
      try {
        yield* connection.streamQuery(query, chunkSize);
      } catch (error) {
        throw faults.convert(error);
      }
    },
  };
}

/** The clauses that lock the rows a select reads (`forUpdate()`, `forNoKeyUpdate()`, …) or say how to wait. */
const ROW_LOCKS: ReadonlySet<SelectModifier> = new Set(['ForUpdate', 'ForNoKeyUpdate', 'ForShare', 'ForKeyShare', 'NoWait', 'SkipLocked']);

/**
 * SQLite has no row locks, and refuses FOR UPDATE and its kin; here a select asking for them is compiled without
 * them, since what they ask is already held: every transaction begins IMMEDIATE (ImmediateSqliteDriver), taking the
 * write lock before its first read, so no one else writes the rows it reads until it ends. A repository therefore
 * locks the rows it is about to rewrite the same way on either dialect (repositories/locking.ts, quotas.ts) and need
 * not know which one it runs on.
 */
class SqliteQueryCompilerHoldingRowLocks extends SqliteQueryCompiler {
  protected override visitSelectQuery(node: SelectQueryNode): void {
    const endModifiers = node.endModifiers?.filter((modifier) => !(modifier.modifier && ROW_LOCKS.has(modifier.modifier)));
    super.visitSelectQuery(endModifiers?.length === node.endModifiers?.length ? node : { ...node, endModifiers });
  }
}

class ImmediateSqliteDialect extends SqliteDialect {
  driver: ImmediateSqliteDriver | undefined;

  constructor(
    private readonly config: SqliteDialectConfig,
    private readonly sqlite: SqliteConnectionHolder,
    private readonly faults: SqliteFaultReporter,
  ) {
    super(config);
  }

  override createDriver(): Driver {
    return (this.driver = new ImmediateSqliteDriver(this.config, this.sqlite, this.faults));
  }

  override createQueryCompiler(): QueryCompiler {
    return new SqliteQueryCompilerHoldingRowLocks();
  }
}

/**
 * A database file is checked before the server uses it, and refused (RefusedDatabaseFile) when it is empty, not a
 * database, or damaged; a new one is made only where no file exists (see openSqliteFile). SQLite gives the -wal and
 * -shm files the main file's mode (0600).
 */
function openSqlite(path: string, log: Log): DatabaseHandle {
  const inMemory = path === ':memory:' || path === '';
  const sqlite: SqliteConnectionHolder = { current: configured(inMemory ? new SqliteDatabase(path) : openSqliteFile(path)) };
  const faults = new SqliteFaultReporter(inMemory ? undefined : path, log);
  let checkpointer = inMemory ? null : startWalCheckpointer(sqlite.current, path, log);
  const statements = withStatementCache(sqlite);
  const dialect = new ImmediateSqliteDialect({ database: statements }, sqlite, faults);
  const db = new Kysely<Database>({ dialect });
  // A prepared read runs at once unless a query or transaction holds the connection: it would see a transaction's
  // uncommitted rows. Nothing else can run while it does, since better-sqlite3 answers synchronously.
  readDirectly(db, (sql, parameters) => {
    if (dialect.driver?.held !== false) return undefined;
    try {
      const statement = statements.prepare(sql);
      return statement.reader ? statement.all(parameters) : undefined;
    } catch (error) {
      throw faults.convert(error);
    }
  });
  /**
   * Closed, the connection was the file's last (the checkpoints' thread stopped first): SQLite copied the log into
   * the file, without waiting for the disk as the file is thrown away, and removed it; whatever is left of a log is
   * removed too, since a log beside the new file would be taken for its own. The old file is moved aside and removed
   * after, as freeing a large file's blocks takes the file system a while. The new file is opened as it is,
   * unchecked: it is a copy the caller made.
   */
  let replaced = 0;
  const replaceFile = async (file: string): Promise<void> => {
    await checkpointer?.stop();
    checkpointer = null;
    statements.clear();
    sqlite.current.pragma('synchronous = OFF');
    sqlite.current.close();
    const discarded = `${path}.replaced-${(replaced += 1)}`;
    try {
      await Promise.all([rm(`${path}-wal`, { force: true }), rm(`${path}-shm`, { force: true })]);
      await rename(path, discarded);
      try {
        await rename(file, path);
      } catch (error) {
        await rename(discarded, path);
        throw error;
      }
    } finally {
      // The new file, or the old one again when it could not be moved into place.
      sqlite.current = configured(new SqliteDatabase(path, { fileMustExist: true }));
      checkpointer = startWalCheckpointer(sqlite.current, path, log);
    }
    void rm(discarded, { force: true }).catch((error: unknown) => log.warn({ err: error, file: discarded }, `could not remove ${discarded}`));
  };
  return {
    db,
    dialect: 'sqlite',
    ...(!inMemory && { file: path, replaceFile }),
    close: async () => {
      await checkpointer?.stop();
      await db.destroy();
    },
  };
}

/** The connection with the settings every SQLite connection of the server has; closed if one cannot be set. */
function configured(sqlite: SqliteDatabase.Database): SqliteDatabase.Database {
  try {
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma('busy_timeout = 5000');
    // A page cache of 4 MiB rather than the 16 MiB better-sqlite3 builds SQLite with (SQLite's own default is 2 MiB):
    // a large scan fills whatever cache there is, and with 4 MiB the peak RSS of a 100 000-resource scan was 248–250
    // MiB instead of 257–258, in as long and with result pages as fast. The file's pages stay in the system's cache.
    sqlite.pragma('cache_size = -4096');
    return sqlite;
  } catch (error) {
    sqlite.close();
    throw error;
  }
}

const CHECKPOINT_EVERY_MS = 500;

/**
 * Copies the write-ahead log into the database file from a thread of its own. SQLite's automatic checkpoint runs
 * inside whichever commit fills the log, on the request thread, and during a large scan one took over half a
 * second; a PASSIVE checkpoint on another connection copies what no reader still needs without blocking anyone.
 * The thread is plain JavaScript evaluated in place, so it starts the same from source and from the build.
 *
 * A checkpoint that fails (the disk is full, say) is tried again at the next turn, so checkpoints resume by
 * themselves once the cause is gone; the thread tells whenever its failure changes, and the log says when
 * checkpoints start failing for a fault of the file and when they succeed again.
 */
function startWalCheckpointer(sqlite: SqliteDatabase.Database, path: string, log: Log): { stop(): Promise<void> } {
  sqlite.pragma('wal_autocheckpoint = 0');
  const worker = new Worker(
    `const { parentPort, workerData } = require('node:worker_threads');
     const Database = require(workerData.driver);
     const db = new Database(workerData.path);
     db.pragma('busy_timeout = 1000');
     let failing;
     const timer = setInterval(() => {
       let code;
       let message;
       try { db.pragma('wal_checkpoint(PASSIVE)'); } catch (error) { code = String(error.code); message = String(error.message); }
       if (code !== failing) parentPort.postMessage({ code, message });
       failing = code;
     }, workerData.everyMs);
     parentPort.once('message', () => { clearInterval(timer); db.close(); parentPort.close(); });`,
    { eval: true, workerData: { driver: createRequire(import.meta.url).resolve('better-sqlite3'), path, everyMs: CHECKPOINT_EVERY_MS } },
  );
  worker.unref();
  let failing: string | undefined;
  worker.on('message', ({ code, message }: { code?: string; message?: string }) => {
    // Only a fault of the file is worth a line: a checkpoint now and then finding the file busy is ordinary.
    const fault = code !== undefined && sqliteFaultOf({ code }) ? code : undefined;
    if (fault === failing) return;
    if (fault) log.warn({ file: path, code: fault, error: message }, `database file ${path}: checkpoints fail (${fault}); its write-ahead log ${path}-wal grows until they succeed again`);
    else log.info({ file: path, code: failing }, `database file ${path}: checkpoints succeed again`);
    failing = fault;
  });
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

/**
 * A PostgreSQL pool whose every wait is bounded. A query waits for a connection at most `acquireTimeoutMs` (a new
 * connection's set-up included), behind at most `maxWaiting` others, and runs at most `statementTimeoutMs` (the
 * server cancels it); past either bound, and whenever the server cannot be reached or is shutting down, it fails
 * with AppError `unavailable` (availability.ts). A connection that breaks, idle or in use, is reported and
 * replaced: an unheard 'error' event of the pool or of one of its clients would end the process.
 */
function openPostgres(connectionString: string, options: OpenOptions): DatabaseHandle {
  const { schema } = options;
  const limits: PoolLimits = { ...DEFAULT_POOL_LIMITS, ...options.pool };
  const log = options.log ?? silentLog;
  const connection: pg.ClientConfig = {
    connectionString,
    statement_timeout: limits.statementTimeoutMs,
    // Bounds the set-up of a connection the gate below stopped waiting for, so that its place is given back.
    connectionTimeoutMillis: limits.acquireTimeoutMs,
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  };
  const pool = new pg.Pool({ ...connection, max: limits.size });
  // Clients whose connection broke: whatever a query on one of them fails with, the database was out of reach.
  const broken = new WeakSet<pg.Client>();
  pool.on('connect', (client) => {
    // Heard while a client is in use too; the query it ran, if any, reports the error to its caller.
    client.on('error', () => broken.add(client));
    client.on('end', () => broken.add(client));
  });
  pool.on('error', (error) => log.warn({ err: error }, 'an idle database connection broke; the pool opens another when one is needed'));
  const gate = new ConnectionGate(limits);
  const guarded = new WeakMap<pg.PoolClient, PostgresPoolClient>();
  const guard = (client: pg.PoolClient): PostgresPoolClient => {
    let wrapper = guarded.get(client);
    if (!wrapper) {
      wrapper = {
        query: ((text: unknown, parameters?: readonly unknown[]) => {
          // Cursors (streamed queries) are not configured; anything but text goes through unchanged.
          if (typeof text !== 'string') return client.query(text as never);
          return client.query(text, parameters as unknown[]).catch((error: unknown) => {
            throw asUnavailable(error, broken.has(client));
          });
        }) as unknown as PostgresPoolClient['query'],
        release: () => {
          // A broken client is destroyed rather than handed to the next caller.
          client.release(broken.has(client));
          gate.leave();
        },
      };
      guarded.set(client, wrapper);
    }
    return wrapper;
  };
  const bounded: PostgresPool = {
    async connect() {
      const started = performance.now();
      await gate.enter();
      const remaining = Math.max(1, limits.acquireTimeoutMs - (performance.now() - started));
      const client = await new Promise<pg.PoolClient>((resolve, reject) => {
        let late = false;
        const timer = setTimeout(() => {
          late = true;
          reject(unavailable('busy'));
        }, remaining);
        pool.connect().then(
          (client) => {
            clearTimeout(timer);
            if (!late) return resolve(client);
            client.release();
            gate.leave();
          },
          (error: unknown) => {
            clearTimeout(timer);
            gate.leave();
            // The server refused the session with a reason (a SQLSTATE): judged by it; anything else while
            // connecting (refused, reset, timed out, closed during start-up) means the server is out of reach.
            if (!late) reject(error instanceof pg.DatabaseError ? asUnavailable(error) : unavailable('unreachable', error));
          },
        );
      });
      return guard(client);
    },
    end: () => pool.end(),
  };
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: bounded }) });
  const probe = new ReadinessProbe(connection);
  return {
    db,
    dialect: 'postgres',
    ...(schema && { schema }),
    ping: (timeoutMs) => probe.ping(timeoutMs),
    close: async () => {
      await probe.close();
      await db.destroy();
    },
  };
}

/**
 * Asks the database `select 1` on a connection of its own, kept open between asks and opened again when it broke,
 * so that readiness never waits behind the pool. Asks made while one is under way share its answer.
 */
class ReadinessProbe {
  private client: pg.Client | undefined;
  private asking: Promise<boolean> | undefined;
  private closed = false;

  constructor(private readonly config: pg.ClientConfig) {}

  ping(timeoutMs: number): Promise<boolean> {
    this.asking ??= withinMs(this.ask(timeoutMs), timeoutMs).then(
      () => true,
      () => {
        // Whatever it was doing (a connection hanging, a query unanswered), the next ask starts afresh.
        this.drop(this.client);
        return false;
      },
    ).finally(() => (this.asking = undefined));
    return this.asking;
  }

  private async ask(timeoutMs: number): Promise<void> {
    const kept = this.client;
    if (kept) {
      try {
        await kept.query('select 1');
        return;
      } catch {
        // Broken since the last ask (the server restarted, say): one more try on a new connection.
        this.drop(kept);
      }
    }
    if (this.closed) throw new Error('closed');
    const client = new pg.Client({ ...this.config, connectionTimeoutMillis: timeoutMs });
    client.on('error', () => this.drop(client));
    this.client = client;
    await client.connect();
    await client.query('select 1');
  }

  private drop(client: pg.Client | undefined): void {
    if (!client) return;
    if (this.client === client) this.client = undefined;
    client.end().catch(() => undefined);
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.asking;
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }
}

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
 * test schemas sharing one database do not wait for each other. SQLite: runs `work` as it is. `work` gets the
 * lock's connection: the statement timeout is lifted on it meanwhile, since waiting for another process's start-up
 * and migrating a large table may both take longer than a request's statement should.
 */
async function withAdvisoryLock<T>(
  handle: DatabaseHandle,
  key: bigint,
  work: (connection: Kysely<Database>) => Promise<T>,
  { perSchema }: { perSchema: boolean },
): Promise<T> {
  if (handle.dialect !== 'postgres') return work(handle.db);
  const id = perSchema ? sql`${key.toString()}::bigint # hashtext(coalesce(current_schema(), ''))::bigint` : sql`${key.toString()}::bigint`;
  return handle.db.connection().execute(async (connection) => {
    await sql`set statement_timeout = 0`.execute(connection);
    await sql`select pg_advisory_lock(${id})`.execute(connection);
    try {
      return await work(connection);
    } finally {
      await sql`select pg_advisory_unlock(${id})`.execute(connection);
      // Back to the timeout the pool's connections start with.
      await sql`reset statement_timeout`.execute(connection);
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
  return withAdvisoryLock(handle, STARTUP_LOCK, () => work(), { perSchema: true });
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
        if (sqliteFaultOf(error) === 'damaged') {
          // It holds no data, but SQLite must read it to lock it: a file someone wrote over blocks every start.
          throw new RefusedDatabaseFile(
            path,
            `refusing to start: the lock file ${path} is not an empty SQLite database (${(error as { code: string }).code}); it holds no data: delete it, then start the server again`,
            { cause: error },
          );
        }
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
  // The migrations are told the dialect they run on, as some write SQL of their own for each.
  const provider: MigrationProvider = { getMigrations: async () => migrationsFor(handle.dialect) };
  // The migrator looks for its own tables across every schema; naming the schema keeps schemas that share a
  // database (as start-up tests do) from seeing each other's. It runs on the lock's connection, where no statement
  // timeout applies.
  const migrate = (db: Kysely<Database>) => new Migrator({ db, provider, ...(handle.schema && { migrationTableSchema: handle.schema }) }).migrateToLatest();
  const { error, results } = await withAdvisoryLock(handle, MIGRATION_LOCK, migrate, { perSchema: false });
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    throw new Error(`database migration ${failed?.migrationName ?? ''} failed: ${String(error)}`, { cause: error });
  }
}
