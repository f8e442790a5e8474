import type { Kysely } from 'kysely';

/**
 * Answers of rule tests asked `via_download`, kept for their `links.output`: an hour, an organization's 20 newest
 * (domain/custom-rules/service.ts). Each names the tested scan's environment, whose access a download needs, and
 * goes with it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('rule_test_outputs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('environment_id', 'text', (c) => c.notNull().references('environments.id').onDelete('cascade'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('output', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('rule_test_outputs_org_created').on('rule_test_outputs').columns(['org_id', 'created_at']).execute();
  await db.schema.createIndex('rule_test_outputs_environment').on('rule_test_outputs').column('environment_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('rule_test_outputs').execute();
}
