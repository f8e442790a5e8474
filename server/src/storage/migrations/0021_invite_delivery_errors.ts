import type { Kysely } from 'kysely';

/**
 * An invite whose email the server gave up sending keeps why (the last attempt's error): it expired then, so that the
 * address may be invited again at once.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('invites').addColumn('delivery_error', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('invites').dropColumn('delivery_error').execute();
}
