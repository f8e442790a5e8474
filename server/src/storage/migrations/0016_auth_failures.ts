import { sql, type Kysely } from 'kysely';

/**
 * Failed sign-ins become failed authentications on every API: the console's sign-ins, and the Basic credentials of
 * the compliance and conductor APIs, counted under keys of the same limits (domain/auth/throttle.ts). The table is
 * renamed for what it now holds, and indexed by time too, for deleting what has left the window. Its rows were
 * counted under keys of another form and would count against nothing: they go.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('sign_in_failures_key_at').execute();
  await db.schema.dropIndex('sign_in_failures_attempt').execute();
  await db.schema.alterTable('sign_in_failures').renameTo('auth_failures').execute();
  await sql`delete from auth_failures`.execute(db);
  await db.schema.createIndex('auth_failures_key_at').on('auth_failures').columns(['key', 'at']).execute();
  await db.schema.createIndex('auth_failures_attempt').on('auth_failures').column('attempt_id').execute();
  await db.schema.createIndex('auth_failures_at').on('auth_failures').column('at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const index of ['auth_failures_at', 'auth_failures_attempt', 'auth_failures_key_at']) await db.schema.dropIndex(index).execute();
  await db.schema.alterTable('auth_failures').renameTo('sign_in_failures').execute();
  await sql`delete from sign_in_failures`.execute(db);
  await db.schema.createIndex('sign_in_failures_key_at').on('sign_in_failures').columns(['key', 'at']).execute();
  await db.schema.createIndex('sign_in_failures_attempt').on('sign_in_failures').column('attempt_id').execute();
}
