import type { Kysely } from 'kysely';

// Migrations are typed against `unknown`: they describe the schema as it was when written, not as it is now.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('organizations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('api_clients')
    .addColumn('client_id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('secret_hash', 'text')
    .addColumn('secret_created_at', 'bigint')
    .addColumn('last_activity_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('api_clients_org_name', ['org_id', 'name'])
    .execute();

  await db.schema
    .createTable('environments')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('provider_options', 'text', (c) => c.notNull())
    .addColumn('compliance_families', 'text', (c) => c.notNull())
    .addColumn('survey_resource_types', 'text', (c) => c.notNull())
    .addColumn('survey_resource_groups', 'text')
    .addColumn('remediate_resource_types', 'text', (c) => c.notNull())
    .addColumn('baseline_id', 'text')
    .addColumn('remediation', 'integer', (c) => c.notNull())
    .addColumn('scan_interval', 'bigint', (c) => c.notNull())
    .addColumn('scan_schedule_enabled', 'integer', (c) => c.notNull())
    .addColumn('schedule_anchor_at', 'bigint', (c) => c.notNull())
    .addColumn('last_scan_id', 'text')
    .addColumn('last_scan_at', 'bigint')
    .addColumn('scan_status', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('environments_org_created').on('environments').columns(['org_id', 'created_at', 'id']).execute();

  await db.schema
    .createTable('scans')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('environment_id', 'text', (c) => c.notNull().references('environments.id').onDelete('cascade'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('message', 'text')
    .addColumn('remediation_error', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('finished_at', 'bigint')
    .execute();
  await db.schema.createIndex('scans_environment_created').on('scans').columns(['environment_id', 'created_at']).execute();

  await db.schema
    .createTable('conductor_users')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('secret_hash', 'text')
    .addColumn('secret_created_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('jobs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('max_attempts', 'integer', (c) => c.notNull())
    .addColumn('run_at', 'bigint', (c) => c.notNull())
    .addColumn('lease_owner', 'text')
    .addColumn('lease_expires_at', 'bigint')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('finished_at', 'bigint')
    .addColumn('dedupe_key', 'text')
    .execute();
  // Work that must be queued once (a notification of a scan) carries a key; other jobs leave it null.
  await db.schema.createIndex('jobs_dedupe_key').on('jobs').column('dedupe_key').unique().execute();
  await db.schema.createIndex('jobs_status_run_at').on('jobs').columns(['status', 'run_at']).execute();
  await db.schema.createIndex('jobs_lease_expires').on('jobs').columns(['status', 'lease_expires_at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['jobs', 'conductor_users', 'scans', 'environments', 'api_clients', 'organizations']) {
    await db.schema.dropTable(table).execute();
  }
}
