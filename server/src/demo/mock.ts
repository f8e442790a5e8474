import { rm, writeFile, mkdir } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { sql } from 'kysely';
import { hashSecret } from '../domain/auth/secrets.js';
import type { Services } from '../services.js';
import { DEMO_CLIENT_NAME } from './seed.js';

/**
 * The stateful mock (`MOCK_RESET=true`, started by `make mock`): the real server with demo data on a throwaway
 * SQLite database, whose state `POST /mock/reset` brings back to the freshly seeded demo in well under a second.
 *
 * After the demo is seeded, its credentials are pinned to fixed values (so frontend teams can hard-code them), and
 * the database is copied once into a template file beside it (`VACUUM INTO`). A reset copies every table of the
 * template back into the working database in one transaction, on the server's own connection: the services,
 * their connection and the HTTP server stay as they are, and the credentials stay the same.
 */

/** The demo API client of the stateful mock: the same on every start and after every reset. */
export const MOCK_DEMO_CLIENT = { client_id: 'cl_statefulMockDemoClient0', client_secret: 'mock-demo-client-secret' } as const;

export interface MockCredentials {
  api_client: { client_id: string; client_secret: string };
  console_admin: { email: string; password: string };
  conductor_root: { user: 'root'; secret: string };
}

export interface MockDatabase {
  /** Where the credentials were written. */
  credentialsFile: string;
  credentials: MockCredentials;
  /** Restores the seeded demo state; returns how long the copy took, in milliseconds. */
  restore(): Promise<number>;
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

/**
 * Pins the demo credentials, writes them to `credentialsFile`, and snapshots the seeded database into a template.
 * `databasePath` is the SQLite file of `services` (not `:memory:`).
 */
export async function prepareMockDatabase(
  services: Services,
  databasePath: string,
  credentials: Omit<MockCredentials, 'api_client'>,
  credentialsFile: string,
): Promise<MockDatabase> {
  const { db, dialect } = services.database;
  if (dialect !== 'sqlite') throw new Error('the stateful mock runs on SQLite only');
  // The seed issued a random client id and secret; the mock's are fixed.
  await db
    .updateTable('api_clients')
    .set({ client_id: MOCK_DEMO_CLIENT.client_id, secret_hash: hashSecret(MOCK_DEMO_CLIENT.client_secret) })
    .where('name', '=', DEMO_CLIENT_NAME)
    .execute();

  const template = resolve(dirname(databasePath), 'mock-template.db');
  await rm(template, { force: true });
  // VACUUM INTO fills an empty file as it is, so the copy keeps the owner-only mode of every data file.
  await writeFile(template, '', { mode: 0o600 });
  await sql`VACUUM INTO ${template}`.execute(db);
  const tables = (
    await sql<{ name: string }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name`.execute(db)
  ).rows.map((row) => row.name);
  const hasSequence =
    (await sql<{ name: string }>`select name from sqlite_master where type = 'table' and name = 'sqlite_sequence'`.execute(db)).rows.length > 0;

  const all: MockCredentials = { api_client: { ...MOCK_DEMO_CLIENT }, ...credentials };
  await mkdir(dirname(credentialsFile), { recursive: true, mode: 0o700 });
  await writeFile(credentialsFile, `${JSON.stringify(all, null, 2)}\n`, { mode: 0o600 });
  // The seed also wrote demo-credentials.json with the random secret; keep it truthful.
  await writeFile(resolve(dirname(credentialsFile), 'demo-credentials.json'), `${JSON.stringify(MOCK_DEMO_CLIENT, null, 2)}\n`, { mode: 0o600 });

  const restore = () =>
    // One reserved connection: nothing else runs a query while the tables are copied.
    db.connection().execute(async (conn) => {
      const started = performance.now();
      await sql`PRAGMA foreign_keys = OFF`.execute(conn);
      await sql`ATTACH DATABASE ${template} AS mock_template`.execute(conn);
      try {
        await sql`BEGIN IMMEDIATE`.execute(conn);
        try {
          for (const table of [...tables, ...(hasSequence ? ['sqlite_sequence'] : [])]) {
            await sql.raw(`DELETE FROM main.${quote(table)}`).execute(conn);
            await sql.raw(`INSERT INTO main.${quote(table)} SELECT * FROM mock_template.${quote(table)}`).execute(conn);
          }
          await sql`COMMIT`.execute(conn);
        } catch (error) {
          await sql`ROLLBACK`.execute(conn);
          throw error;
        }
      } finally {
        await sql`DETACH DATABASE mock_template`.execute(conn);
        await sql`PRAGMA foreign_keys = ON`.execute(conn);
      }
      return performance.now() - started;
    });

  return { credentialsFile, credentials: all, restore };
}

/** Prints the credentials of the stateful mock at start. */
export function printMockCredentials(mock: MockDatabase): void {
  const { api_client: client, console_admin: admin, conductor_root: root } = mock.credentials;
  console.log(`stateful mock: demo credentials (the same after every reset; also in ${mock.credentialsFile}):`);
  console.log(`  compliance API client: ${client.client_id} / ${client.client_secret}`);
  console.log(`  console admin:         ${admin.email} / ${admin.password}`);
  console.log(`  conductor:             root / ${root.secret}`);
  console.log('  reset to the demo state: POST /mock/reset (make mock-reset)');
}
