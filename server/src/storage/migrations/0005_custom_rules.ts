import { sql, type Kysely } from 'kysely';

/** Custom rules: an organization's own CEL rules, evaluated in its scans beside the built-in catalog. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('custom_rules')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('providers', 'text', (c) => c.notNull())
    .addColumn('resource_type', 'text', (c) => c.notNull())
    .addColumn('rule_text', 'text', (c) => c.notNull())
    .addColumn('severity', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('families', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('created_by_name', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_by', 'text', (c) => c.notNull())
    .addColumn('updated_by_name', 'text', (c) => c.notNull())
    .execute();
  // A rule's name names its controls (`CIS CUSTOM <name>`), so two rules of one organization may not share it.
  await sql`create unique index custom_rules_org_name on custom_rules (org_id, lower(name))`.execute(db);
  await db.schema.createIndex('custom_rules_org_status').on('custom_rules').columns(['org_id', 'status']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('custom_rules').execute();
}
