import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, beforeEach, describe } from '@jest/globals';
import pg from 'pg';
import { MIGRATION_LOCK, migrateToLatest, openDatabase, type DatabaseHandle } from '../src/storage/database.js';
import { migrationsFor } from '../src/storage/migrations/index.js';
import { databaseUrl, dropDatabase, withClient } from './postgres.js';

/**
 * Component tests run against every database the product supports: SQLite always, PostgreSQL whenever
 * TEST_DATABASE_URL names one (CI sets it). Each test gets an empty, fully migrated database: an in-memory SQLite
 * migrated for it, or a PostgreSQL database that starts as a copy of a template migrated once (see PostgresCopy).
 */
interface Target {
  name: 'sqlite' | 'postgres';
  url: string;
}

const postgresUrl = process.env.TEST_DATABASE_URL;
export const DATABASE_TARGETS: Target[] = [
  { name: 'sqlite', url: 'sqlite::memory:' },
  ...(postgresUrl ? [{ name: 'postgres' as const, url: postgresUrl }] : []),
];

if (!postgresUrl && !process.env.CI) {
  console.warn('TEST_DATABASE_URL is not set: component tests run on SQLite only');
}
if (!postgresUrl && process.env.CI) {
  throw new Error('TEST_DATABASE_URL must name a PostgreSQL database in CI');
}

export interface TestDatabase {
  /** On PostgreSQL, `url` names the test's own database. */
  target: Target;
  handle: DatabaseHandle;
}

/**
 * Migrating a PostgreSQL database takes a second or more, and every migration of the server waits for the others
 * (MIGRATION_LOCK); copying a database takes a fraction of that. So the migrations run once per set of migrations,
 * into a template database named by a hash of their source, kept on the server for later runs: every process that
 * finds it missing takes the migration lock, and the first builds it. Tests of migrations themselves still migrate
 * from nothing (startup.test.ts, shared-database.test.ts) or down and up (scan-results.test.ts).
 */
const TEMPLATE_PREFIX = 'test_template_';

function migrationSet(): string {
  const dir = new URL('../src/storage/migrations/', import.meta.url);
  const hash = createHash('sha256');
  // The migrations this process loaded, by name, with the source of the directory: a run that loaded them before a
  // migration was added names what it builds apart from the template of a run that loaded them after.
  hash.update(Object.keys(migrationsFor('postgres')).join('\0'));
  for (const file of readdirSync(dir).sort()) hash.update(`${file}\0`).update(readFileSync(new URL(file, dir))).update('\0');
  return hash.digest('hex').slice(0, 16);
}

let template: Promise<string> | undefined;

function templateDatabase(url: string): Promise<string> {
  template ??= (async () => {
    const name = await buildTemplate(url);
    await dropOrphans(url);
    return name;
  })().catch((error: unknown) => {
    template = undefined;
    throw error;
  });
  return template;
}

/** A copy's name: the server's clock when it was made, and something random. */
const COPY_NAME = /^test_([0-9a-z]+)_[0-9a-f]{8}$/;
const ORPHANED_AFTER_SECONDS = 600;

/**
 * Drops the copies of runs killed before they could drop them (an interrupted jest, say). A copy in use always has
 * a session open, its own (PostgresCopy's client), from its first moments on; a copy without one, made over ten
 * minutes ago, belongs to no run.
 */
async function dropOrphans(url: string): Promise<void> {
  await withClient(url, async (admin) => {
    const { rows } = await admin.query<{ datname: string; now: string }>(
      `select datname, floor(extract(epoch from now()))::bigint::text as now from pg_database d
       where datname ~ '^test_[0-9a-z]+_[0-9a-f]{8}$' and not exists (select from pg_stat_activity a where a.datname = d.datname)`,
    );
    for (const { datname, now } of rows) {
      const made = parseInt(COPY_NAME.exec(datname)![1]!, 36);
      if (Number(now) - made > ORPHANED_AFTER_SECONDS) await admin.query(`drop database if exists ${datname}`).catch(() => undefined);
    }
  });
}

async function buildTemplate(url: string): Promise<string> {
  const name = `${TEMPLATE_PREFIX}${migrationSet()}`;
  return withClient(url, async (admin) => {
    const exists = async (database: string) => ((await admin.query('select 1 from pg_database where datname = $1', [database])).rowCount ?? 0) > 0;
    if (await exists(name)) return name;
    // Released when this connection ends.
    await admin.query('select pg_advisory_lock($1::bigint)', [MIGRATION_LOCK.toString()]);
    if (await exists(name)) return name;
    // Built under another name and renamed once complete, so that a build cut short is never taken for the template.
    const building = `${name}_building`;
    await admin.query(`drop database if exists ${building}`);
    await admin.query(`create database ${building}`);
    const handle = openDatabase(databaseUrl(url, building));
    try {
      await migrateToLatest(handle);
    } finally {
      await handle.close();
    }
    await withClient(databaseUrl(url, building), async (client) => {
      // Emptying a copy (PostgresCopy.empty) restores the template only while the migrations write no rows.
      const filled = await client.query(`select ${(await userTables(client)).map((table) => `(select count(*) from ${table})`).join(' + ')} as rows`);
      if (Number(filled.rows[0].rows) !== 0) throw new Error('the migrations write rows: emptying a test database would not restore them');
    });
    // PostgreSQL waits for the sessions just closed to end before renaming. A template nobody can connect to cannot
    // be held open by accident, which would keep copies from being made of it.
    await admin.query(`alter database ${building} rename to ${name}`);
    await admin.query(`alter database ${name} allow_connections false`);
    // Templates of other migration sets (an older checkout) go; one being copied from right now is dropped after.
    const { rows } = await admin.query<{ datname: string }>("select datname from pg_database where datname like 'test\\_template\\_%' and datname <> $1", [name]);
    for (const { datname } of rows) await admin.query(`drop database if exists ${datname}`).catch(() => undefined);
    return name;
  });
}

/** Every table but the migrator's own, schema-qualified, in an order that deletes rows before the rows they reference. */
async function userTables(client: pg.Client): Promise<string[]> {
  const { rows: tables } = await client.query<{ oid: string; name: string }>(
    `select c.oid::text, format('%I.%I', n.nspname, c.relname) as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
     where c.relkind in ('r', 'p') and not c.relispartition and n.nspname not in ('pg_catalog', 'information_schema')
       and n.nspname not like 'pg\\_%' and c.relname not like 'kysely\\_migration%'`,
  );
  const { rows: references } = await client.query<{ referencing: string; referenced: string }>(
    "select conrelid::text as referencing, confrelid::text as referenced from pg_constraint where contype = 'f' and conrelid <> confrelid",
  );
  // A table is emptied once every table referencing it is.
  const remaining = new Map(tables.map((t) => [t.oid, t.name]));
  const ordered: string[] = [];
  while (remaining.size > 0) {
    const ready = [...remaining.keys()].filter((oid) => !references.some((r) => r.referenced === oid && remaining.has(r.referencing)));
    // A cycle of references: its rows go in any order (every reference of the schema cascades).
    for (const oid of ready.length > 0 ? ready : [...remaining.keys()]) {
      ordered.push(remaining.get(oid)!);
      remaining.delete(oid);
    }
  }
  return ordered;
}

/**
 * What the catalog holds for the database's own objects, as the row versions (xmin) of their catalog entries: any
 * DDL writes a new version, while deleting rows, resetting sequences, vacuum and analyze write none.
 */
const SHAPE = `
  with namespaces as (select oid from pg_namespace where nspname not in ('pg_catalog', 'information_schema') and nspname not like 'pg\\_%'),
       relations as (select oid from pg_class where relnamespace in (select oid from namespaces))
  select md5(string_agg(entry, ',' order by entry)) as shape from (
    select 'n' || oid || ':' || xmin from pg_namespace where oid in (select oid from namespaces)
    union all select 'c' || oid || ':' || xmin from pg_class where oid in (select oid from relations)
    union all select 'a' || attrelid || '.' || attnum || ':' || xmin from pg_attribute where attrelid in (select oid from relations)
    union all select 'd' || oid || ':' || xmin from pg_attrdef where adrelid in (select oid from relations)
    union all select 'i' || indexrelid || ':' || xmin from pg_index where indrelid in (select oid from relations)
    union all select 'k' || oid || ':' || xmin from pg_constraint where connamespace in (select oid from namespaces)
    union all select 't' || oid || ':' || xmin from pg_trigger where tgrelid in (select oid from relations)
    union all select 'f' || oid || ':' || xmin from pg_proc where pronamespace in (select oid from namespaces)
    union all select 'y' || oid || ':' || xmin from pg_type where typnamespace in (select oid from namespaces)
  ) entries(entry)`;

const OTHER_SESSIONS = `
  select coalesce(nullif(application_name, ''), 'pid ' || pid) || ' (' || coalesce(state, '?') || ', last: ' || left(query, 100) || ')' as who
  from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() and backend_type = 'client backend'`;
/** How long sessions of a closed handle may take to end: closing a pool does not wait for its server processes. */
const SESSIONS_END_WITHIN_MS = 5_000;

/**
 * A PostgreSQL database of a test's own, copied from the template by CREATE DATABASE … TEMPLATE with PostgreSQL 15's
 * default strategy, WAL_LOG: on an idle machine as fast as FILE_COPY (0.4 s), on a busy one about half as long
 * (0.6 against 1.1 s), FILE_COPY's two checkpoints waiting on the disk. A copy and its drop take 0.5–1.3 s, so the
 * tests of a describe block share one, emptied after each test in a few milliseconds: every table's rows deleted
 * (TRUNCATE … RESTART IDENTITY CASCADE took 0.2–0.9 s, giving every table and index new files) and every sequence
 * started again, in one transaction, once no session but its own is left. A test that changed the schema (a
 * migration down and up, say) leaves a copy that is dropped instead, and the next test gets a new one.
 */
class PostgresCopy {
  private constructor(
    readonly name: string,
    readonly url: string,
    private readonly serverUrl: string,
    private readonly client: pg.Client,
    private readonly emptying: string,
    private readonly shape: string,
  ) {}

  static async create(serverUrl: string, retry = true): Promise<PostgresCopy> {
    let name: string;
    try {
      const source = await templateDatabase(serverUrl);
      name = await withClient(serverUrl, async (admin) => {
        const { rows } = await admin.query<{ now: string }>('select floor(extract(epoch from now()))::bigint::text as now');
        const copy = `test_${Number(rows[0]!.now).toString(36)}_${randomBytes(4).toString('hex')}`;
        await admin.query(`create database ${copy} template ${source}`);
        return copy;
      });
    } catch (error) {
      // Dropped meanwhile by a run of another migration set: built again once.
      if ((error as { code?: string }).code !== '3D000' || !retry) throw error;
      template = undefined;
      return PostgresCopy.create(serverUrl, false);
    }
    const url = databaseUrl(serverUrl, name);
    const client = new pg.Client({ connectionString: url, application_name: 'test database reset' });
    try {
      await client.connect();
      const tables = await userTables(client);
      const emptying = [...tables.map((table) => `delete from ${table}`), 'select count(setval(seqrelid, seqstart, false)) from pg_sequence'].join(';\n');
      const { rows } = await client.query<{ shape: string }>(SHAPE);
      return new PostgresCopy(name, url, serverUrl, client, emptying, rows[0]!.shape);
    } catch (error) {
      await client.end().catch(() => undefined);
      await dropDatabase(serverUrl, name);
      throw error;
    }
  }

  /**
   * Deletes every row and restarts every sequence, in one transaction. Otherwise says why the copy cannot be
   * emptied into what the template was (its schema changed) or not safely (sessions other than its own are still
   * open, and could write after the emptying): then it must be dropped.
   */
  async empty(): Promise<{ emptied: true } | { emptied: false; sessionsLeft?: string[] }> {
    const deadline = Date.now() + SESSIONS_END_WITHIN_MS;
    for (;;) {
      const { rows } = await this.client.query<{ who: string }>(OTHER_SESSIONS);
      if (rows.length === 0) break;
      if (Date.now() > deadline) return { emptied: false, sessionsLeft: rows.map((row) => row.who) };
      await sleep(5);
    }
    if ((await this.client.query<{ shape: string }>(SHAPE)).rows[0]!.shape !== this.shape) return { emptied: false };
    await this.client.query(this.emptying);
    return { emptied: true };
  }

  async drop(): Promise<void> {
    await this.client.end().catch(() => undefined);
    await dropDatabase(this.serverUrl, this.name);
  }
}

/** The copy a describe block's tests use one after another, emptied after each and replaced when it cannot be. */
class PostgresTestDatabases {
  private copy: PostgresCopy | undefined;
  /** Copies a test left sessions open on: dropped last, so that ending those sessions fails no later test. */
  private readonly abandoned: PostgresCopy[] = [];

  constructor(private readonly serverUrl: string) {}

  async current(): Promise<PostgresCopy> {
    this.copy ??= await PostgresCopy.create(this.serverUrl);
    return this.copy;
  }

  /** After a test whose handles are all closed; fails the test that left sessions open. */
  async reset(): Promise<void> {
    const copy = this.copy;
    if (!copy) return;
    const outcome = await copy.empty();
    if (outcome.emptied) return;
    this.copy = undefined;
    if (!outcome.sessionsLeft) return copy.drop();
    this.abandoned.push(copy);
    throw new Error(`the test left sessions open on its database: ${outcome.sessionsLeft.join('; ')}`);
  }

  async dispose(): Promise<void> {
    const copies = [...(this.copy ? [this.copy] : []), ...this.abandoned.splice(0)];
    this.copy = undefined;
    for (const copy of copies) await copy.drop();
  }
}

type DisposableTestDatabase = TestDatabase & { dispose(): Promise<void> };

/** A database of the caller's own: a fresh in-memory SQLite, or a new copy of the PostgreSQL template. */
export async function openTestDatabase(target: Target): Promise<DisposableTestDatabase> {
  if (target.name === 'sqlite') {
    const handle = openDatabase(target.url);
    await migrateToLatest(handle);
    return { target, handle, dispose: () => handle.close() };
  }
  const copy = await PostgresCopy.create(target.url);
  const handle = openDatabase(copy.url);
  return {
    target: { name: 'postgres', url: copy.url },
    handle,
    dispose: async () => {
      await handle.close();
      await copy.drop();
    },
  };
}

/**
 * `describe` once per database target, with an empty database for every test, or (`scope: 'suite'`) one database
 * for the whole suite, for API tests that isolate their tests by organization instead; `only` names the one target a
 * suite needs when what it shows does not depend on the database (its comment says why). The database is set up
 * before the body's own hooks run and taken down after theirs, so they may use it at both ends.
 */
export function describeEachDatabase(
  title: string,
  body: (db: () => TestDatabase) => void,
  scope: 'test' | 'suite' = 'test',
  only?: Target['name'],
): void {
  for (const target of DATABASE_TARGETS.filter((t) => only === undefined || t.name === only)) {
    describe(`${title} [${target.name}]`, () => {
      let current: DisposableTestDatabase | undefined;
      const get = () => {
        if (!current) throw new Error('no test database open');
        return current;
      };
      const close = async () => {
        const closing = current;
        current = undefined;
        await closing?.dispose();
      };
      if (scope === 'suite') {
        beforeAll(async () => {
          current = await openTestDatabase(target);
        });
        body(get);
        afterAll(close);
      } else if (target.name === 'sqlite') {
        beforeEach(async () => {
          current = await openTestDatabase(target);
        });
        body(get);
        afterEach(close);
      } else {
        // One copy for the block, emptied after each test; each test opens a handle (a pool) of its own.
        const copies = new PostgresTestDatabases(target.url);
        beforeEach(async () => {
          const copy = await copies.current();
          const handle = openDatabase(copy.url);
          current = { target: { name: 'postgres', url: copy.url }, handle, dispose: () => handle.close() };
        });
        body(get);
        afterEach(async () => {
          await close();
          await copies.reset();
        });
        afterAll(() => copies.dispose());
      }
    });
  }
}
