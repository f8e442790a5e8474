import type { Kysely } from 'kysely';

/**
 * Invites are accepted in the console through an emailed link. An invite keeps the SHA-256 hash of its link's token
 * (never the token), replaced by each email sent; unique, so a token names one invite. A user made by accepting an
 * invite names it: such a user acts only through their groups (domain/console/access.ts).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('invites').addColumn('token_hash', 'text').execute();
  await db.schema.createIndex('invites_token_hash').on('invites').column('token_hash').unique().execute();
  await db.schema.alterTable('users').addColumn('invite_id', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('users').dropColumn('invite_id').execute();
  await db.schema.dropIndex('invites_token_hash').execute();
  await db.schema.alterTable('invites').dropColumn('token_hash').execute();
}
