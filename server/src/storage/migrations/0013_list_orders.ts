import type { Kysely } from 'kysely';

/**
 * Indexes ending in `created_seq`, the tie-breaker of the scans, events and notifications lists, as 0012 gave the
 * environments list: a page is read in order along the index and stops after its rows, instead of every row of
 * the environment (scans, events) or organization (notifications) being sorted for each page. The notifications
 * one takes the place of `(org_id, created_at, id)`.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('scans_environment_order').on('scans').columns(['org_id', 'environment_id', 'created_at', 'created_seq']).execute();
  await db.schema.createIndex('events_environment_order').on('events').columns(['environment_id', 'created_at', 'created_seq']).execute();
  await db.schema.createIndex('notifications_org_order').on('notifications').columns(['org_id', 'created_at', 'created_seq']).execute();
  await db.schema.dropIndex('notifications_org_created').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('notifications_org_created').on('notifications').columns(['org_id', 'created_at', 'id']).execute();
  await db.schema.dropIndex('notifications_org_order').execute();
  await db.schema.dropIndex('events_environment_order').execute();
  await db.schema.dropIndex('scans_environment_order').execute();
}
