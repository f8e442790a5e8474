import { sql, type Kysely } from 'kysely';

/**
 * The conductor's validation libraries and its rbac policy. Declared users live in conductor_users (0001) beside
 * root; attaching or detaching a policy rewrites those rows.
 *
 * Archives are kept byte for byte, since both download operations return exactly what was uploaded. The column
 * type is `bytea`: PostgreSQL's binary type, and for SQLite a type name without affinity rules for blobs, so the
 * same migration stores raw bytes on both.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('conductor_validation_libraries')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('archive', 'bytea', (c) => c.notNull())
    .addColumn('size', 'bigint', (c) => c.notNull())
    .addColumn('sha256', 'text', (c) => c.notNull())
    // The parsed rules.yaml, JSON: evaluating a library never reads its archive again.
    .addColumn('rules', 'text', (c) => c.notNull())
    .addColumn('rule_count', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('conductor_rbac_policy')
    // At most one policy is attached: the table has one possible key.
    .addColumn('slot', 'integer', (c) => c.primaryKey().check(sql`slot = 1`))
    .addColumn('archive', 'bytea', (c) => c.notNull())
    .addColumn('sha256', 'text', (c) => c.notNull())
    // The parsed policy.yaml, JSON: authorizing a request never reads the archive again.
    .addColumn('policy', 'text', (c) => c.notNull())
    .addColumn('attached_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['conductor_rbac_policy', 'conductor_validation_libraries']) {
    await db.schema.dropTable(table).execute();
  }
}
