import { sql, type Kysely, type Selectable } from 'kysely';
import type { ApiClientsTable, Database } from '../schema.js';
import { lockedTransaction } from './locking.js';
import { admitInto } from './quotas.js';
import type { Admission } from '../../domain/quotas.js';
import type { Change } from '../../domain/repositories.js';
import type { ApiClient, ApiClientOrder, ApiClientRepository, ApiClientStatus, Page, PageRequest, SortDirection } from '../../domain/repositories.js';
import { prepareQuery } from '../prepared.js';

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
  private readonly byClientId;

  constructor(private readonly db: Kysely<Database>) {
    this.byClientId = prepareQuery(db, (p: { clientId: string }) => db.selectFrom('api_clients').selectAll().where('client_id', '=', p.clientId));
  }

  async get(clientId: string): Promise<ApiClient | undefined> {
    const row = await this.byClientId.first({ clientId });
    return row && toApiClient(row);
  }

  async findByName(orgId: string, name: string): Promise<ApiClient | undefined> {
    const row = await this.db
      .selectFrom('api_clients')
      .selectAll()
      .where('org_id', '=', orgId)
      .where(sql<boolean>`lower(name) = ${name.toLowerCase()}`)
      .executeTakeFirst();
    return row && toApiClient(row);
  }

  /**
   * The console table's orders. Secret age: the youngest secret first ascending, and clients without an active
   * secret last (first descending). Last activity: never-used clients count as the oldest. Ties by name, then id.
   */
  async list(orgId: string, order: { by: ApiClientOrder; direction: SortDirection }, page: PageRequest): Promise<Page<ApiClient> & { total: number }> {
    const dir = order.direction === 'asc' ? sql`asc` : sql`desc`;
    const keys = {
      name: [sql`lower(name) ${dir}`],
      client_id: [sql`client_id ${dir}`],
      // Youngest first = newest secret_created_at first; no active secret sorts as the oldest possible age.
      secret_age: [sql`case when status = 'Active' then 0 else 1 end ${dir}`, sql`secret_created_at ${order.direction === 'asc' ? sql`desc` : sql`asc`}`],
      last_activity: [sql`case when last_activity_at is null then 0 else 1 end ${dir}`, sql`last_activity_at ${dir}`],
    }[order.by];
    const rows = await this.db
      .selectFrom('api_clients')
      .selectAll()
      .where('org_id', '=', orgId)
      .orderBy(sql.join([...keys, sql`lower(name) asc`, sql`client_id asc`]))
      .limit(page.limit + 1)
      .offset(page.offset)
      .execute();
    const total = await this.db
      .selectFrom('api_clients')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('org_id', '=', orgId)
      .executeTakeFirstOrThrow();
    return { items: rows.slice(0, page.limit).map(toApiClient), hasMore: rows.length > page.limit, total: Number(total.n) };
  }

  async delete(clientId: string): Promise<void> {
    await this.db.deleteFrom('api_clients').where('client_id', '=', clientId).execute();
  }

  async insert(client: ApiClient, admit?: Admission): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      const held = trx.selectFrom('api_clients').select((eb) => eb.fn.countAll().as('n')).where('org_id', '=', client.orgId);
      await admitInto(trx, { organization: client.orgId }, admit, held);
      await trx
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
    });
  }

  async modify(clientId: string, change: Change<ApiClient>): Promise<ApiClient | undefined> {
    return lockedTransaction(this.db, async (trx, forUpdate) => {
      const row = await forUpdate(trx.selectFrom('api_clients').selectAll().where('client_id', '=', clientId)).executeTakeFirst();
      if (!row) return undefined;
      const next = await change(toApiClient(row));
      await trx
        .updateTable('api_clients')
        .set({ name: next.name, status: next.status, secret_hash: next.secretHash, secret_created_at: next.secretCreatedAt })
        .where('client_id', '=', clientId)
        .execute();
      return next;
    });
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
