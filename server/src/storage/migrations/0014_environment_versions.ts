import type { Kysely } from 'kysely';

/**
 * Versions that let a process keep what it read of the environments (storage/repositories/environments.ts):
 * - `environments.version`, drawn anew by every write of the row: a page reads the ids and versions of its rows,
 *   and the rows themselves only where the version is not the one kept from an earlier read;
 * - `environment_list_versions`, one per organization, drawn anew by every write of any of its environments
 *   (insert, change, deletion) in the same transaction: a page whose organization's list version is the one it was
 *   read at is answered as it was, without reading its rows again.
 * Random rather than counted, so that a version names one content even when rows come back from a copy (the
 * stateful mock's reset, a restored backup). Environments written before this migration are at 0, and so is an
 * organization without a list version, until their next write.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('environments').addColumn('version', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema
    .createTable('environment_list_versions')
    .addColumn('org_id', 'text', (c) => c.primaryKey())
    .addColumn('version', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('environment_list_versions').execute();
  await db.schema.alterTable('environments').dropColumn('version').execute();
}
