import type { Kysely } from 'kysely';

/**
 * A job remembers the request that caused it (its X-Request-Id), so that its log lines and the work it causes in
 * turn (a scan's webhook deliveries) carry that id. Jobs queued before have none.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('jobs').addColumn('request_id', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('jobs').dropColumn('request_id').execute();
}
