import type { Kysely, Selectable } from 'kysely';
import type { ApiClientsTable, Database } from '../schema.js';
import type { ApiClient, ApiClientRepository, ApiClientStatus } from './types.js';

const toApiClient = (row: Selectable<ApiClientsTable>): ApiClient => ({
  clientId: row.client_id,
  orgId: row.org_id,
  name: row.name,
  status: row.status as ApiClientStatus,
  secretHash: row.secret_hash,
  secretCreatedAt: row.secret_created_at,
  lastActivityAt: row.last_activity_at,
  createdAt: row.created_at,
});

export class KyselyApiClientRepository implements ApiClientRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async get(clientId: string): Promise<ApiClient | undefined> {
    const row = await this.db.selectFrom('api_clients').selectAll().where('client_id', '=', clientId).executeTakeFirst();
    return row && toApiClient(row);
  }

  async insert(client: ApiClient): Promise<void> {
    await this.db
      .insertInto('api_clients')
      .values({
        client_id: client.clientId,
        org_id: client.orgId,
        name: client.name,
        status: client.status,
        secret_hash: client.secretHash,
        secret_created_at: client.secretCreatedAt,
        last_activity_at: client.lastActivityAt,
        created_at: client.createdAt,
      })
      .execute();
  }

  async update(client: ApiClient): Promise<void> {
    await this.db
      .updateTable('api_clients')
      .set({
        name: client.name,
        status: client.status,
        secret_hash: client.secretHash,
        secret_created_at: client.secretCreatedAt,
        last_activity_at: client.lastActivityAt,
      })
      .where('client_id', '=', client.clientId)
      .execute();
  }

  async touch(activity: ReadonlyMap<string, number>): Promise<void> {
    if (activity.size === 0) return;
    await this.db.transaction().execute(async (trx) => {
      for (const [clientId, at] of activity) {
        await trx
          .updateTable('api_clients')
          .set({ last_activity_at: at })
          .where('client_id', '=', clientId)
          .where((eb) => eb.or([eb('last_activity_at', 'is', null), eb('last_activity_at', '<', at)]))
          .execute();
      }
    });
  }
}
