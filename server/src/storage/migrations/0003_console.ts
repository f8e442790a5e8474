import type { Kysely } from 'kysely';

/** Organization users (who sign in to the console), their sessions, and failed sign-ins for rate limiting. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('users')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('first_name', 'text')
    .addColumn('last_name', 'text')
    .addColumn('password_hash', 'text')
    .addColumn('owner', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('users_org_created').on('users').columns(['org_id', 'created_at']).execute();

  await db.schema
    .createTable('console_sessions')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('csrf_token', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('console_sessions_user').on('console_sessions').column('user_id').execute();

  await db.schema
    .createTable('sign_in_failures')
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sign_in_failures_key_at').on('sign_in_failures').columns(['key', 'at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['sign_in_failures', 'console_sessions', 'users']) await db.schema.dropTable(table).execute();
}
