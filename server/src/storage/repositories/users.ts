import type { Kysely, Selectable } from 'kysely';
import type { OrgUser, UserStatus } from '../../domain/users/types.js';
import type { Database, UsersTable } from '../schema.js';
import type { Page, PageRequest, SortDirection, UserRepository } from '../../domain/repositories.js';
import { prepareQuery } from '../prepared.js';

export const toUser = (row: Selectable<UsersTable>): OrgUser => ({
  id: row.id,
  orgId: row.org_id,
  email: row.email,
  firstName: row.first_name,
  lastName: row.last_name,
  passwordHash: row.password_hash,
  owner: row.owner === 1,
  inviteId: row.invite_id,
  status: row.status as UserStatus,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

export const userRow = (user: OrgUser): Omit<Selectable<UsersTable>, 'created_seq'> => ({
  id: user.id,
  org_id: user.orgId,
  email: user.email,
  first_name: user.firstName,
  last_name: user.lastName,
  password_hash: user.passwordHash,
  owner: user.owner ? 1 : 0,
  invite_id: user.inviteId ?? null,
  status: user.status,
  created_at: user.createdAt,
  updated_at: user.updatedAt,
});

export class KyselyUserRepository implements UserRepository {
  private readonly byId;

  constructor(private readonly db: Kysely<Database>) {
    this.byId = prepareQuery(db, (p: { id: string; orgId: string }) => db.selectFrom('users').selectAll().where('id', '=', p.id).where('org_id', '=', p.orgId));
  }

  async findByEmail(email: string): Promise<OrgUser | undefined> {
    const row = await this.db.selectFrom('users').selectAll().where('email', '=', email.toLowerCase()).executeTakeFirst();
    return row && toUser(row);
  }

  async get(orgId: string, id: string): Promise<OrgUser | undefined> {
    const row = await this.byId.first({ id, orgId });
    return row && toUser(row);
  }

  async insert(user: OrgUser): Promise<boolean> {
    const result = await this.db
      .insertInto('users')
      .values(userRow({ ...user, email: user.email.toLowerCase() }))
      .onConflict((oc) => oc.column('email').doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
  }

  async update(user: OrgUser): Promise<void> {
    const { id, org_id: orgId, created_at: _createdAt, ...changes } = userRow(user);
    await this.db.updateTable('users').set(changes).where('id', '=', id).where('org_id', '=', orgId).execute();
  }

  async list(orgId: string, filter: { email?: string }, page: PageRequest, direction: SortDirection): Promise<Page<OrgUser>> {
    let query = this.db.selectFrom('users').selectAll().where('org_id', '=', orgId);
    if (filter.email !== undefined) query = query.where('email', '=', filter.email.toLowerCase());
    // One row past the page tells whether another page exists without counting.
    const rows = await query.orderBy('created_at', direction).orderBy('created_seq', direction).limit(page.limit + 1).offset(page.offset).execute();
    return { items: rows.slice(0, page.limit).map(toUser), hasMore: rows.length > page.limit };
  }

  async getMany(orgId: string, ids: readonly string[]): Promise<OrgUser[]> {
    if (ids.length === 0) return [];
    const rows = await this.db.selectFrom('users').selectAll().where('org_id', '=', orgId).where('id', 'in', ids).execute();
    return rows.map(toUser);
  }
}
