import type { Kysely, Selectable } from 'kysely';
import { lockedTransaction } from './locking.js';
import type { CloudResourcesTable, Database } from '../schema.js';
import type { CloudAccountRecord, CloudInventoryRepository, CloudResourceRecord, InventoryFilter } from '../../domain/repositories.js';
import { prepareQuery } from '../prepared.js';

const toRecord = (row: Selectable<CloudResourcesTable>): CloudResourceRecord => ({
  accountKey: row.account_key,
  resourceId: row.resource_id,
  seq: row.seq,
  type: row.type,
  region: row.region,
  resourceGroup: row.resource_group,
  name: row.name,
  tags: JSON.parse(row.tags) as Record<string, string>,
  properties: JSON.parse(row.properties) as Record<string, unknown>,
  revertible: row.revertible === 1,
  managedBy: row.managed_by,
  updatedAt: row.updated_at,
});

const toRow = (r: CloudResourceRecord): Selectable<CloudResourcesTable> => ({
  account_key: r.accountKey,
  resource_id: r.resourceId,
  seq: r.seq,
  type: r.type,
  region: r.region,
  resource_group: r.resourceGroup,
  name: r.name,
  tags: JSON.stringify(r.tags),
  properties: JSON.stringify(r.properties),
  revertible: r.revertible ? 1 : 0,
  managed_by: r.managedBy,
  updated_at: r.updatedAt,
});

/** Rows per INSERT: well under both databases' limits on bound parameters. */
const INSERT_BATCH = 400;

export class KyselyCloudInventoryRepository implements CloudInventoryRepository {
  private readonly byResourceId;
  private readonly accountByKey;

  constructor(private readonly db: Kysely<Database>) {
    this.accountByKey = prepareQuery(db, (p: { key: string }) => db.selectFrom('cloud_accounts').selectAll().where('account_key', '=', p.key));
    this.byResourceId = prepareQuery(db, (p: { key: string; resourceId: string }) =>
      db.selectFrom('cloud_resources').selectAll().where('account_key', '=', p.key).where('resource_id', '=', p.resourceId),
    );
  }

  async getAccount(key: string): Promise<CloudAccountRecord | undefined> {
    const row = await this.accountByKey.first({ key });
    return (
      row && {
        key: row.account_key,
        provider: row.provider,
        nextSeq: row.next_seq,
        driftSteps: row.drift_steps,
        collections: row.collections,
        createdAt: row.created_at,
      }
    );
  }

  async createAccount(account: CloudAccountRecord, inventory: Iterable<readonly CloudResourceRecord[]>): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const result = await trx
        .insertInto('cloud_accounts')
        .values({
          account_key: account.key,
          provider: account.provider,
          next_seq: account.nextSeq,
          drift_steps: account.driftSteps,
          collections: account.collections,
          created_at: account.createdAt,
        })
        .onConflict((oc) => oc.column('account_key').doNothing())
        .executeTakeFirst();
      if (Number(result.numInsertedOrUpdatedRows ?? 0) !== 1) return false;
      for (const resources of inventory) {
        for (let i = 0; i < resources.length; i += INSERT_BATCH) {
          await trx.insertInto('cloud_resources').values(resources.slice(i, i + INSERT_BATCH).map(toRow)).execute();
        }
      }
      return true;
    });
  }

  async recordCollection(key: string, drifted: boolean): Promise<void> {
    await this.db
      .updateTable('cloud_accounts')
      .set((eb) => ({ collections: eb('collections', '+', 1), drift_steps: eb('drift_steps', '+', drifted ? 1 : 0) }))
      .where('account_key', '=', key)
      .execute();
  }

  async insertNewResources(key: string, resources: readonly Omit<CloudResourceRecord, 'seq'>[]): Promise<CloudResourceRecord[]> {
    if (resources.length === 0) return [];
    return lockedTransaction(this.db, async (trx, forUpdate) => {
      const account = await forUpdate(trx.selectFrom('cloud_accounts').select('next_seq').where('account_key', '=', key)).executeTakeFirst();
      if (!account) throw new Error(`simulated account ${key} does not exist`);
      const highest = await trx
        .selectFrom('cloud_resources')
        .select((eb) => eb.fn.max('seq').as('seq'))
        .where('account_key', '=', key)
        .executeTakeFirst();
      // The counter is the next free seq unless a crash (before both moved in one transaction) left it behind.
      let seq = Math.max(Number(account.next_seq), highest?.seq === null || highest?.seq === undefined ? 0 : Number(highest.seq) + 1);
      const inserted: CloudResourceRecord[] = [];
      for (const resource of resources) {
        const record = { ...resource, seq };
        const result = await trx
          .insertInto('cloud_resources')
          .values(toRow(record))
          .onConflict((oc) => oc.columns(['account_key', 'resource_id']).doNothing())
          .executeTakeFirst();
        if (Number(result.numInsertedOrUpdatedRows ?? 0) === 1) {
          inserted.push(record);
          seq += 1;
        }
      }
      await trx.updateTable('cloud_accounts').set({ next_seq: seq }).where('account_key', '=', key).execute();
      return inserted;
    });
  }

  async page(key: string, filter: InventoryFilter, after: { type: string; resourceId: string } | null, limit: number): Promise<CloudResourceRecord[]> {
    // One type at a time: `type in (…)` with an order over (type, resource_id) makes SQLite sort every matching row
    // for each page, while one type is a range of the (account_key, type, resource_id) index read in order.
    const types = [...new Set(filter.types)].sort();
    const records: CloudResourceRecord[] = [];
    for (let i = after ? types.indexOf(after.type) : 0; i >= 0 && i < types.length && records.length < limit; i += 1) {
      const type = types[i]!;
      let query = this.db.selectFrom('cloud_resources').selectAll().where('account_key', '=', key).where('type', '=', type);
      if (filter.regions) {
        const regions = filter.regions;
        query = query.where((eb) => eb.or([eb('region', 'is', null), eb('region', 'in', regions)]));
      }
      if (filter.resourceGroups) query = query.where('resource_group', 'in', filter.resourceGroups);
      if (after?.type === type) query = query.where('resource_id', '>', after.resourceId);
      const rows = await query.orderBy('resource_id').limit(limit - records.length).execute();
      for (const row of rows) records.push(toRecord(row));
    }
    return records;
  }

  async get(key: string, resourceId: string): Promise<CloudResourceRecord | undefined> {
    const row = await this.byResourceId.first({ key, resourceId });
    return row && toRecord(row);
  }

  async getBySeq(key: string, seq: number): Promise<CloudResourceRecord | undefined> {
    const row = await this.db.selectFrom('cloud_resources').selectAll().where('account_key', '=', key).where('seq', '=', seq).executeTakeFirst();
    return row && toRecord(row);
  }

  async update(resource: CloudResourceRecord): Promise<void> {
    const { account_key: accountKey, resource_id: resourceId, ...changes } = toRow(resource);
    await this.db.updateTable('cloud_resources').set(changes).where('account_key', '=', accountKey).where('resource_id', '=', resourceId).execute();
  }

  async delete(key: string, resourceId: string): Promise<void> {
    await this.db.deleteFrom('cloud_resources').where('account_key', '=', key).where('resource_id', '=', resourceId).execute();
  }

  async count(key: string): Promise<number> {
    const row = await this.db
      .selectFrom('cloud_resources')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('account_key', '=', key)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }
}
