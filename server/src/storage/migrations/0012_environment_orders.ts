import type { Kysely } from 'kysely';

/** The orders `GET /v0/environments` offers (domain/environments/types.ts ENVIRONMENT_ORDER), as of this migration. */
const ORDERS = ['created_at', 'name', 'provider', 'updated_at'] as const;

/**
 * An index per order of the environments list, ending in `created_seq` as the queries' tie-breaker does, so that a
 * page is read along the index in either direction and stops after its rows. Before, the database sorted every
 * environment of the organization (SQLite through a temporary B-tree holding whole rows) for each page. The
 * `created_at` one takes the place of `(org_id, created_at, id)`.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const order of ORDERS) {
    await db.schema.createIndex(`environments_org_${order}_seq`).on('environments').columns(['org_id', order, 'created_seq']).execute();
  }
  await db.schema.dropIndex('environments_org_created').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('environments_org_created').on('environments').columns(['org_id', 'created_at', 'id']).execute();
  for (const order of ORDERS) await db.schema.dropIndex(`environments_org_${order}_seq`).execute();
}
