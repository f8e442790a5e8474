import { sql, type Kysely } from 'kysely';

/**
 * The simulated cloud's inventory, scan results stored per resource and per failing rule (never as one document),
 * and events.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('cloud_accounts')
    .addColumn('account_key', 'text', (c) => c.primaryKey())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('next_seq', 'bigint', (c) => c.notNull())
    .addColumn('drift_steps', 'bigint', (c) => c.notNull())
    .addColumn('collections', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('cloud_resources')
    .addColumn('account_key', 'text', (c) => c.notNull().references('cloud_accounts.account_key').onDelete('cascade'))
    .addColumn('resource_id', 'text', (c) => c.notNull())
    .addColumn('seq', 'bigint', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('region', 'text')
    .addColumn('resource_group', 'text')
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('tags', 'text', (c) => c.notNull())
    .addColumn('properties', 'text', (c) => c.notNull())
    .addColumn('revertible', 'integer', (c) => c.notNull())
    .addColumn('managed_by', 'text')
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('cloud_resources_pk', ['account_key', 'resource_id'])
    .execute();
  await db.schema.createIndex('cloud_resources_seq').on('cloud_resources').columns(['account_key', 'seq']).unique().execute();
  await db.schema.createIndex('cloud_resources_type').on('cloud_resources').columns(['account_key', 'type', 'resource_id']).execute();

  await db.schema.alterTable('scans').addColumn('summary', 'text').execute();
  await db.schema.alterTable('scans').addColumn('resource_type_errors', 'text').execute();
  await db.schema.alterTable('scans').addColumn('families', 'text').execute();
  await db.schema.alterTable('scans').addColumn('job_id', 'text').execute();
  // At most one scan in progress per environment, even with several server processes racing to start one.
  await sql`create unique index scans_one_in_progress on scans (environment_id) where status = 'IN_PROGRESS'`.execute(db);
  await db.schema.createIndex('scans_org_created').on('scans').columns(['org_id', 'environment_id', 'status', 'created_at']).execute();

  await db.schema
    .createTable('scan_resources')
    .addColumn('scan_id', 'text', (c) => c.notNull().references('scans.id').onDelete('cascade'))
    .addColumn('resource_id', 'text', (c) => c.notNull())
    .addColumn('resource_type', 'text', (c) => c.notNull())
    .addColumn('document', 'text', (c) => c.notNull())
    .addColumn('failed_rules', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('scan_resources_pk', ['scan_id', 'resource_id'])
    .execute();
  await db.schema.createIndex('scan_resources_type').on('scan_resources').columns(['scan_id', 'resource_type', 'resource_id']).execute();

  await db.schema
    .createTable('scan_findings')
    .addColumn('scan_id', 'text', (c) => c.notNull().references('scans.id').onDelete('cascade'))
    .addColumn('rule_id', 'text', (c) => c.notNull())
    .addColumn('resource_id', 'text', (c) => c.notNull())
    .addColumn('resource_type', 'text', (c) => c.notNull())
    .addColumn('result', 'text', (c) => c.notNull())
    .addColumn('message', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('scan_findings_pk', ['scan_id', 'rule_id', 'resource_id'])
    .execute();
  await db.schema.createIndex('scan_findings_resource').on('scan_findings').columns(['scan_id', 'resource_type', 'resource_id']).execute();

  await db.schema
    .createTable('scan_rule_results')
    .addColumn('scan_id', 'text', (c) => c.notNull().references('scans.id').onDelete('cascade'))
    .addColumn('rule_id', 'text', (c) => c.notNull())
    .addColumn('result', 'text', (c) => c.notNull())
    .addColumn('evaluated', 'bigint', (c) => c.notNull())
    .addColumn('failed', 'bigint', (c) => c.notNull())
    .addColumn('unsurveyed_types', 'text', (c) => c.notNull())
    .addColumn('missing_types', 'text', (c) => c.notNull())
    .addColumn('rule', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('scan_rule_results_pk', ['scan_id', 'rule_id'])
    .execute();

  await db.schema
    .createTable('scan_type_results')
    .addColumn('scan_id', 'text', (c) => c.notNull().references('scans.id').onDelete('cascade'))
    .addColumn('resource_type', 'text', (c) => c.notNull())
    .addColumn('total', 'bigint', (c) => c.notNull())
    .addColumn('noncompliant', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('scan_type_results_pk', ['scan_id', 'resource_type'])
    .execute();

  await db.schema
    .createTable('events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('environment_id', 'text', (c) => c.notNull().references('environments.id').onDelete('cascade'))
    .addColumn('scan_id', 'text', (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('resource_id', 'text', (c) => c.notNull())
    .addColumn('resource_type', 'text', (c) => c.notNull())
    .addColumn('change', 'text')
    .addColumn('remediated', 'integer')
    .addColumn('error', 'text')
    .addColumn('detail', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('seq', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('events_environment_created').on('events').columns(['environment_id', 'created_at', 'seq']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['events', 'scan_type_results', 'scan_rule_results', 'scan_findings', 'scan_resources', 'cloud_resources', 'cloud_accounts']) {
    await db.schema.dropTable(table).execute();
  }
  await db.schema.dropIndex('scans_org_created').execute();
  await db.schema.dropIndex('scans_one_in_progress').execute();
  for (const column of ['job_id', 'families', 'resource_type_errors', 'summary']) await db.schema.alterTable('scans').dropColumn(column).execute();
}
