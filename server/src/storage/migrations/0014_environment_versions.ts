import type { Kysely } from 'kysely';

/**
 * `environments.version`, drawn anew at random by every write of the row: a page of environments reads only the
 * ids and versions of its rows, and the rows themselves only where the version is not the one a process kept from
 * an earlier read (storage/repositories/environments.ts). Random rather than counted, so that an id and a version
 * name one content even when rows come back from a copy (the stateful mock's reset, a restored backup). Rows
 * written before this migration are at 0 until their next write.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('environments').addColumn('version', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('environments').dropColumn('version').execute();
}
