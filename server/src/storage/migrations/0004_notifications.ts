import type { Kysely } from 'kysely';

/**
 * Notifications, the environments each one watches, and one row per delivery attempt. Watched environments are a
 * table of their own, not a JSON list, so that deleting an environment removes it from every notification.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('notifications')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('events', 'text', (c) => c.notNull())
    .addColumn('all_environments', 'integer', (c) => c.notNull())
    .addColumn('emails', 'text', (c) => c.notNull())
    .addColumn('webhook_url', 'text')
    .addColumn('webhook_secret', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_by', 'text', (c) => c.notNull())
    .addColumn('last_error', 'text')
    .addColumn('last_delivery_at', 'bigint')
    .execute();
  await db.schema.createIndex('notifications_org_created').on('notifications').columns(['org_id', 'created_at', 'id']).execute();

  await db.schema
    .createTable('notification_environments')
    .addColumn('notification_id', 'text', (c) => c.notNull().references('notifications.id').onDelete('cascade'))
    .addColumn('environment_id', 'text', (c) => c.notNull().references('environments.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('notification_environments_pk', ['notification_id', 'environment_id'])
    .execute();
  await db.schema.createIndex('notification_environments_environment').on('notification_environments').column('environment_id').execute();

  await db.schema
    .createTable('notification_deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('notification_id', 'text', (c) => c.notNull().references('notifications.id').onDelete('cascade'))
    .addColumn('delivery_id', 'text', (c) => c.notNull())
    .addColumn('scan_id', 'text', (c) => c.notNull())
    .addColumn('environment_id', 'text', (c) => c.notNull())
    .addColumn('transport', 'text', (c) => c.notNull())
    .addColumn('target', 'text', (c) => c.notNull())
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('will_retry', 'integer', (c) => c.notNull())
    .addColumn('http_status', 'integer')
    .addColumn('smtp_response', 'text')
    .addColumn('error', 'text')
    .addColumn('attempted_at', 'bigint', (c) => c.notNull())
    // One row per attempt: a worker that records an attempt and then loses its lease cannot record it twice.
    .addUniqueConstraint('notification_deliveries_attempt', ['delivery_id', 'attempt'])
    .execute();
  await db.schema
    .createIndex('notification_deliveries_notification')
    .on('notification_deliveries')
    .columns(['notification_id', 'attempted_at', 'attempt'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['notification_deliveries', 'notification_environments', 'notifications']) await db.schema.dropTable(table).execute();
}
