import { copyFile, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { sql, type Kysely } from 'kysely';
import { hashSecret } from '../domain/auth/secrets.js';
import type { Services } from '../services.js';
import type { Database } from '../storage/schema.js';
import { buildSqliteFile } from '../storage/sqlite-build.js';
import { seedFailingScenario } from './failing.js';
import { largeScenario } from './large.js';
import { DEMO_CLIENT_NAME } from './seed.js';

/**
 * The stateful mock (`MOCK_RESET=true`, started by `make mock`): the real server with demo data on a throwaway
 * SQLite database, whose state `POST /mock/scenarios/{name}` replaces with a named data set, and `POST /mock/reset`
 * with the freshly seeded demo, in well under a second whatever the data set's size.
 *
 * After the demo is seeded, its credentials are pinned to fixed values (so frontend teams can hard-code them), and
 * each scenario is made once per process into a database file of its own beside the working one: `demo` is the
 * seeded database as it is, `empty` the same with every table but the organization's, its users', the API client's
 * and the conductor's root emptied, `failing` seeded through the services on the empty one (failing.ts), and
 * `large` filled by SQL on a copy of the empty one in a thread of its own (large.ts), as it takes seconds and some
 * 650 MB of disk: right after start, or, with `largeAtStart` off (tests that never load it), on its first load. Loading a scenario moves a copy of its file into place of the working database (the handle's
 * `replaceFile`: a rename and an open), then makes the next copy in the background; the services, their
 * connection and the HTTP server stay as they are, and the credentials are the same in every scenario.
 */

/** The demo API client of the stateful mock: the same on every start, after every reset and in every scenario. */
export const MOCK_DEMO_CLIENT = { client_id: 'cl_statefulMockDemoClient0', client_secret: 'mock-demo-client-secret' } as const;

export interface MockCredentials {
  api_client: { client_id: string; client_secret: string };
  console_admin: { email: string; password: string };
  conductor_root: { user: 'root'; secret: string };
}

/** The data sets the stateful mock loads, in the order `GET /mock/scenarios` lists them. */
export const MOCK_SCENARIOS = [
  {
    name: 'empty',
    description:
      'the organization with nothing in it: no environments, scans, events, notifications, custom rules or groups, no conductor accounts, processes or validation libraries',
  },
  {
    name: 'demo',
    description: 'the demo, what a reset brings back: three environments with scans, a baseline, drift, remediation and events, and a conductor process with a history',
  },
  {
    name: 'large',
    description: '1 000 environments (large-0001 … large-1000) with two scans and 200 events each; the latest scans of large-0001 … large-0010 hold 10 000 results by rule each',
  },
  {
    name: 'failing',
    description: 'scans that ended ERROR, a notification whose webhook failed every attempt until it was given up, and a dry-run FAILED with errors',
  },
] as const;

export type MockScenarioName = (typeof MOCK_SCENARIOS)[number]['name'];

export interface MockDatabase {
  /** Where the credentials were written. */
  credentialsFile: string;
  credentials: MockCredentials;
  /** Whether the scenario's data set is made yet (`large` is made in the background after start, or when first loaded). */
  isReady(name: MockScenarioName): boolean;
  /**
   * Replaces the working database with a fresh copy of the scenario's data set, once it is made; resolves to how
   * long the replacement took, in milliseconds. The caller pauses the background work meanwhile (scenarioLoader).
   */
  load(name: MockScenarioName): Promise<number>;
}

/** Tables the empty scenario keeps: the organization, its console admin, the demo API client and the conductor's root. */
const KEPT_WHEN_EMPTY = new Set(['organizations', 'users', 'api_clients', 'conductor_users']);

/** Every table of the database but SQLite's own and the migrations' records. */
async function dataTables(db: Kysely<Database>): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`select name from sqlite_master
    where type = 'table' and name not like 'sqlite_%' and name not like 'kysely_%' order by name`.execute(db);
  return rows.map((row) => row.name);
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** Copies the database as it is into `file`, which keeps the owner-only mode of every data file. */
async function snapshot(db: Kysely<Database>, file: string): Promise<void> {
  await rm(file, { force: true });
  // VACUUM INTO fills an empty file as it is.
  await writeFile(file, '', { mode: 0o600 });
  await sql`VACUUM INTO ${file}`.execute(db);
}

/**
 * Pins the demo credentials, writes them to `credentialsFile`, makes every scenario's file (`large` in the background)
 * and leaves the demo loaded. `databasePath` is the SQLite file of `services` (not `:memory:`).
 */
export async function prepareMockDatabase(
  services: Services,
  databasePath: string,
  credentials: Omit<MockCredentials, 'api_client'>,
  credentialsFile: string,
  { largeAtStart }: { largeAtStart: boolean },
): Promise<MockDatabase> {
  const { db, dialect, replaceFile } = services.database;
  if (dialect !== 'sqlite' || !replaceFile) throw new Error('the stateful mock runs on an SQLite file only');
  // The seed issued a random client id and secret; the mock's are fixed.
  await db
    .updateTable('api_clients')
    .set({ client_id: MOCK_DEMO_CLIENT.client_id, secret_hash: hashSecret(MOCK_DEMO_CLIENT.client_secret) })
    .where('name', '=', DEMO_CLIENT_NAME)
    .execute();

  const all: MockCredentials = { api_client: { ...MOCK_DEMO_CLIENT }, ...credentials };
  await mkdir(dirname(credentialsFile), { recursive: true, mode: 0o700 });
  await writeFile(credentialsFile, `${JSON.stringify(all, null, 2)}\n`, { mode: 0o600 });
  // The seed also wrote demo-credentials.json with the random secret; keep it truthful.
  await writeFile(join(dirname(credentialsFile), 'demo-credentials.json'), `${JSON.stringify(MOCK_DEMO_CLIENT, null, 2)}\n`, { mode: 0o600 });

  const directory = dirname(databasePath);
  const fileOf = (name: MockScenarioName) => join(directory, `mock-${name}.db`);
  /** Each scenario's file, once made. */
  const made = new Map<MockScenarioName, Promise<void>>();
  /** The copy of each scenario's file the next load moves into place, made ahead. */
  const copies = new Map<MockScenarioName, Promise<string>>();
  const ready = new Set<MockScenarioName>();
  const copyAhead = (name: MockScenarioName) => {
    const copy = made.get(name)!.then(async () => {
      const file = join(directory, `mock-${name}.next.db`);
      await copyFile(fileOf(name), file);
      // Ready once its first copy is: loading it is then a matter of moving the copy into place.
      ready.add(name);
      return file;
    });
    // Awaited by the next load, which then fails with its reason; none is left unheard meanwhile.
    copy.catch(() => undefined);
    copies.set(name, copy);
  };
  const madeAs = (name: MockScenarioName, making: Promise<void>) => {
    made.set(name, making);
    copyAhead(name);
  };

  /** How each scenario made on demand is made. */
  const onDemand = new Map<MockScenarioName, () => Promise<void>>();
  const load = async (name: MockScenarioName): Promise<number> => {
    if (!made.has(name)) madeAs(name, onDemand.get(name)!());
    const copy = await copies.get(name)!;
    const started = performance.now();
    await db.connection().execute(() => replaceFile(copy));
    const took = performance.now() - started;
    copyAhead(name);
    return took;
  };

  madeAs('demo', snapshot(db, fileOf('demo')));
  await made.get('demo');
  await db.connection().execute(async (conn) => {
    await sql`PRAGMA foreign_keys = OFF`.execute(conn);
    try {
      await conn.transaction().execute(async (trx) => {
        for (const table of await dataTables(trx)) if (!KEPT_WHEN_EMPTY.has(table)) await sql.raw(`DELETE FROM ${quote(table)}`).execute(trx);
        await trx.deleteFrom('api_clients').where('client_id', '<>', MOCK_DEMO_CLIENT.client_id).execute();
        // A list version of its own: no process answers a page of environments it read in another scenario.
        await sql`INSERT INTO environment_list_versions (org_id, version) SELECT id, abs(random() % 281474976710655) + 1 FROM organizations WHERE true
                  ON CONFLICT (org_id) DO UPDATE SET version = excluded.version`.execute(trx);
      });
    } finally {
      await sql`PRAGMA foreign_keys = ON`.execute(conn);
    }
  });
  madeAs('empty', snapshot(db, fileOf('empty')));
  await made.get('empty');
  await seedFailingScenario(services, MOCK_DEMO_CLIENT.client_id);
  madeAs('failing', snapshot(db, fileOf('failing')));
  await made.get('failing');
  await load('demo');

  onDemand.set('large', async () => {
    const building = join(directory, 'mock-large.building.db');
    await copyFile(fileOf('empty'), building);
    await buildSqliteFile(building, largeScenario(fileOf('demo'), services.clock.nowSeconds()));
    await rename(building, fileOf('large'));
  });
  if (largeAtStart) {
    madeAs('large', onDemand.get('large')!());
    made.get('large')!.catch((error: unknown) => console.error('stateful mock: the large scenario could not be made', error));
  }

  return {
    credentialsFile,
    credentials: all,
    isReady: (name) => ready.has(name),
    load,
  };
}

/**
 * Loads scenarios one after the other, each with the background work paused: the scheduler, the enforcer and the
 * job worker stop (handing back what they run) before the database is replaced and start again after; what this
 * process kept of the clients and the groups of the data set before is forgotten. Resolves to how long it all took,
 * in milliseconds.
 */
export function scenarioLoader(
  services: Services,
  mock: MockDatabase,
  intervals: { schedulerIntervalMs: number; enforcementIntervalMs: number },
): (name: MockScenarioName) => Promise<number> {
  let previous: Promise<unknown> = Promise.resolve();
  return (name) => {
    const loading = previous.then(async () => {
      const started = performance.now();
      services.scheduler.stop();
      services.enforcer.stop();
      await services.jobs.stop(500);
      await services.apiClients.flushActivity();
      try {
        await mock.load(name);
      } finally {
        // The loaded clients and groups replace whatever this process has cached of the ones before.
        services.apiClients.forgetAll();
        services.access.forgetGrants();
        services.jobs.start();
        services.scheduler.start(intervals.schedulerIntervalMs);
        services.enforcer.start(intervals.enforcementIntervalMs);
      }
      return performance.now() - started;
    });
    previous = loading.catch(() => undefined);
    return loading;
  };
}

/** Prints the credentials of the stateful mock at start. */
export function printMockCredentials(mock: MockDatabase): void {
  const { api_client: client, console_admin: admin, conductor_root: root } = mock.credentials;
  console.log(`stateful mock: demo credentials (the same after every reset and in every scenario; also in ${mock.credentialsFile}):`);
  console.log(`  compliance API client: ${client.client_id} / ${client.client_secret}`);
  console.log(`  console admin:         ${admin.email} / ${admin.password}`);
  console.log(`  conductor:             root / ${root.secret}`);
  console.log('  reset to the demo state: POST /mock/reset (make mock-reset)');
  console.log(`  load a scenario: POST /mock/scenarios/{name}, one of ${MOCK_SCENARIOS.map((scenario) => scenario.name).join(', ')} (GET /mock/scenarios lists them)`);
}
