import pg from 'pg';
import { MIGRATION_LOCK } from '../src/storage/database.js';

/**
 * Runs one statement on its own connection: creating and dropping the schemas and databases tests run in. It holds
 * the migration lock meanwhile: a migration reading the catalog while another schema is dropped fails.
 */
export async function adminQuery(url: string, text: string): Promise<void> {
  await withClient(url, async (client) => {
    await client.query('select pg_advisory_lock($1::bigint)', [MIGRATION_LOCK.toString()]);
    await client.query(text);
  });
}

/** Runs `work` on a connection of its own to `url`, closed afterwards (which releases its session locks). */
export async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** The URL of another database on the server `url` names. */
export function databaseUrl(url: string, database: string): string {
  const other = new URL(url);
  other.pathname = `/${database}`;
  return other.toString();
}

/** PostgreSQL's code for "database is being accessed by other users". */
const IN_USE = '55006';

/**
 * Drops a database. PostgreSQL waits up to five seconds for sessions still closing to end; with some left after
 * that, they are ended and the drop is reported as failed, naming them: a test that leaves a connection open would
 * otherwise go unnoticed.
 */
export async function dropDatabase(url: string, database: string): Promise<void> {
  await withClient(url, async (client) => {
    try {
      await client.query(`drop database if exists ${database}`);
    } catch (error) {
      if ((error as { code?: string }).code !== IN_USE) throw error;
      const { rows } = await client.query<{ who: string }>(
        `select coalesce(nullif(application_name, ''), 'pid ' || pid) || ' (' || coalesce(state, '?') || ', last: ' || left(query, 100) || ')' as who
         from pg_stat_activity where datname = $1`,
        [database],
      );
      await client.query(`drop database if exists ${database} with (force)`);
      throw new Error(`connections to test database ${database} were left open: ${rows.map((r) => r.who).join(', ')}`, { cause: error });
    }
  });
}
