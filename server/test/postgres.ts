import pg from 'pg';
import { MIGRATION_LOCK } from '../src/storage/database.js';

/**
 * Runs one statement on its own connection: creating and dropping the schemas and databases tests run in. It holds
 * the migration lock meanwhile: a migration reading the catalog while another schema is dropped fails.
 */
export async function adminQuery(url: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('select pg_advisory_lock($1::bigint)', [MIGRATION_LOCK.toString()]);
    await client.query(text);
  } finally {
    await client.end();
  }
}
