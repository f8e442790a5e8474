import { sql, type Kysely } from 'kysely';

/** Groups (a policy over environments, granted to users and API clients) and invites of people into them. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('groups')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('policy', 'text', (c) => c.notNull())
    // 1: every environment of the organization, including those created later (`["*"]`).
    .addColumn('all_environments', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await sql`create unique index groups_org_name on groups (org_id, lower(name))`.execute(db);

  await db.schema
    .createTable('group_environments')
    .addColumn('group_id', 'text', (c) => c.notNull().references('groups.id').onDelete('cascade'))
    .addColumn('environment_id', 'text', (c) => c.notNull().references('environments.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('group_environments_pk', ['group_id', 'environment_id'])
    .execute();
  await db.schema.createIndex('group_environments_environment').on('group_environments').column('environment_id').execute();

  await db.schema
    .createTable('group_users')
    .addColumn('group_id', 'text', (c) => c.notNull().references('groups.id').onDelete('cascade'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('group_users_pk', ['group_id', 'user_id'])
    .execute();
  await db.schema.createIndex('group_users_user').on('group_users').column('user_id').execute();

  await db.schema
    .createTable('group_api_clients')
    .addColumn('group_id', 'text', (c) => c.notNull().references('groups.id').onDelete('cascade'))
    .addColumn('client_id', 'text', (c) => c.notNull().references('api_clients.client_id').onDelete('cascade'))
    .addPrimaryKeyConstraint('group_api_clients_pk', ['group_id', 'client_id'])
    .execute();
  await db.schema.createIndex('group_api_clients_client').on('group_api_clients').column('client_id').execute();

  await db.schema
    .createTable('invites')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('email', 'text', (c) => c.notNull())
    // The email while the invite may still be pending; unique per organization, so that two requests racing to
    // invite one address cannot both succeed. Cleared once the invite is accepted or has expired.
    .addColumn('pending_email', 'text')
    .addColumn('expires_at', 'bigint')
    .addColumn('accepted_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('invites_org_pending_email').on('invites').columns(['org_id', 'pending_email']).unique().execute();
  await db.schema.createIndex('invites_org_created').on('invites').columns(['org_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('invites_org_email').on('invites').columns(['org_id', 'email']).execute();

  await db.schema
    .createTable('invite_groups')
    .addColumn('invite_id', 'text', (c) => c.notNull().references('invites.id').onDelete('cascade'))
    .addColumn('group_id', 'text', (c) => c.notNull().references('groups.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('invite_groups_pk', ['invite_id', 'group_id'])
    .execute();
  await db.schema.createIndex('invite_groups_group').on('invite_groups').column('group_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['invite_groups', 'invites', 'group_api_clients', 'group_users', 'group_environments', 'groups']) {
    await db.schema.dropTable(table).execute();
  }
}
