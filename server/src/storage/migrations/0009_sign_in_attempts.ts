import type { Kysely } from 'kysely';

/**
 * Sign-in attempts are recorded before the password is checked, each under an attempt id, and forgiven (deleted)
 * when the password was right: concurrent guesses then see each other and cannot slip past the limit together.
 * Rows written before this migration have no attempt id and stay counted as failures.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('sign_in_failures').addColumn('attempt_id', 'text').execute();
  await db.schema.createIndex('sign_in_failures_attempt').on('sign_in_failures').column('attempt_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('sign_in_failures_attempt').execute();
  await db.schema.alterTable('sign_in_failures').dropColumn('attempt_id').execute();
}
