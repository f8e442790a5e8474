import type { Kysely, Selectable } from 'kysely';
import type { Database, OrganizationsTable } from '../schema.js';
import type { Organization, OrganizationRepository } from '../../domain/repositories.js';
import { prepareQuery } from '../prepared.js';

const toOrganization = (row: Selectable<OrganizationsTable>): Organization => ({
  id: row.id,
  name: row.name,
  createdAt: row.created_at,
});

export class KyselyOrganizationRepository implements OrganizationRepository {
  private readonly byId;

  constructor(private readonly db: Kysely<Database>) {
    this.byId = prepareQuery(db, (p: { id: string }) => db.selectFrom('organizations').selectAll().where('id', '=', p.id));
  }

  async findByName(name: string): Promise<Organization | undefined> {
    const row = await this.db.selectFrom('organizations').selectAll().where('name', '=', name).executeTakeFirst();
    return row && toOrganization(row);
  }

  async get(id: string): Promise<Organization | undefined> {
    const row = await this.byId.first({ id });
    return row && toOrganization(row);
  }

  async insert(org: Organization): Promise<boolean> {
    const result = await this.db
      .insertInto('organizations')
      .values({ id: org.id, name: org.name, created_at: org.createdAt })
      .onConflict((oc) => oc.column('name').doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
  }
}
