import type { Kysely, Selectable } from 'kysely';
import type { GroupGrant, NamedGrant } from '../../domain/access/grants.js';
import { displayName, type Group, type GroupPolicy, type NamedRef } from '../../domain/access/types.js';
import type { DialectName } from '../database.js';
import type { Database, GroupsTable } from '../schema.js';
import type { GroupRepository, Page, PageRequest, SortDirection } from '../../domain/repositories.js';
import type { Admission } from '../../domain/quotas.js';
import { admitInto } from './quotas.js';

/** Rows per insert statement, well under both databases' limits on bound parameters. */
const BATCH = 500;

const isUniqueViolation = (error: unknown): boolean =>
  /UNIQUE constraint failed|duplicate key value/.test(String((error as Error)?.message ?? error));

const push = (map: Map<string, NamedRef[]>, key: string, ref: NamedRef) => map.set(key, [...(map.get(key) ?? []), ref]);

/** One grant per group from rows of a group joined with each environment it names (none: one row, no environment). */
function grantsOfRows(rows: ReadonlyArray<{ id: string; policy: string; all_environments: number; environment_id: string | null }>): GroupGrant[] {
  const grants = new Map<string, GroupGrant & { environmentIds: string[] }>();
  for (const row of rows) {
    let grant = grants.get(row.id);
    if (!grant) {
      grant = { policy: row.policy as GroupPolicy, allEnvironments: row.all_environments === 1, environmentIds: [] };
      grants.set(row.id, grant);
    }
    if (row.environment_id !== null) grant.environmentIds.push(row.environment_id);
  }
  return [...grants.values()];
}

/** As grantsOfRows, keeping each group's id and name; ordered by name, then id. */
function namedGrantsOfRows(rows: ReadonlyArray<{ id: string; name: string; policy: string; all_environments: number; environment_id: string | null }>): NamedGrant[] {
  const grants = new Map<string, NamedGrant & { environmentIds: string[] }>();
  for (const row of rows) {
    let grant = grants.get(row.id);
    if (!grant) {
      grant = { id: row.id, name: row.name, policy: row.policy as GroupPolicy, allEnvironments: row.all_environments === 1, environmentIds: [] };
      grants.set(row.id, grant);
    }
    if (row.environment_id !== null) grant.environmentIds.push(row.environment_id);
  }
  return [...grants.values()].sort((a, b) => a.name.localeCompare(b.name) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

export class KyselyGroupRepository implements GroupRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: DialectName,
  ) {}

  async list(orgId: string, page: PageRequest, direction: SortDirection): Promise<Page<Group>> {
    // One row past the page tells whether another page exists without counting.
    const rows = await this.db
      .selectFrom('groups')
      .selectAll()
      .where('org_id', '=', orgId)
      .orderBy('name', direction)
      .orderBy('id', direction)
      .limit(page.limit + 1)
      .offset(page.offset)
      .execute();
    return { items: await this.withMembers(rows.slice(0, page.limit)), hasMore: rows.length > page.limit };
  }

  async insert(group: Group, admit?: Admission): Promise<boolean> {
    try {
      await this.db.transaction().execute(async (trx) => {
        const held = trx.selectFrom('groups').select((eb) => eb.fn.countAll().as('n')).where('org_id', '=', group.orgId);
        await admitInto(trx, { organization: group.orgId }, admit, held);
        await trx
          .insertInto('groups')
          .values({
            id: group.id,
            org_id: group.orgId,
            name: group.name,
            policy: group.policy,
            all_environments: group.allEnvironments ? 1 : 0,
            created_at: group.createdAt,
            updated_at: group.updatedAt,
          })
          .execute();
        if (group.environments.length > 0) {
          await trx
            .insertInto('group_environments')
            .values(group.environments.map((env) => ({ group_id: group.id, environment_id: env.id })))
            .execute();
        }
        if (group.apiClients.length > 0) {
          await trx
            .insertInto('group_api_clients')
            .values(group.apiClients.map((client) => ({ group_id: group.id, client_id: client.id })))
            .execute();
        }
      });
      return true;
    } catch (error) {
      if (isUniqueViolation(error)) return false;
      throw error;
    }
  }

  async names(orgId: string, ids: readonly string[]): Promise<Map<string, string>> {
    if (ids.length === 0) return new Map();
    const rows = await this.db.selectFrom('groups').select(['id', 'name']).where('org_id', '=', orgId).where('id', 'in', ids).execute();
    return new Map(rows.map((r) => [r.id, r.name]));
  }

  async environmentNames(orgId: string, ids: readonly string[]): Promise<Map<string, string>> {
    if (ids.length === 0) return new Map();
    const rows = await this.db.selectFrom('environments').select(['id', 'name']).where('org_id', '=', orgId).where('id', 'in', ids).execute();
    return new Map(rows.map((r) => [r.id, r.name]));
  }

  async apiClientNames(orgId: string, ids: readonly string[]): Promise<Map<string, string>> {
    if (ids.length === 0) return new Map();
    const rows = await this.db
      .selectFrom('api_clients')
      .select(['client_id', 'name'])
      .where('org_id', '=', orgId)
      .where('client_id', 'in', ids)
      .execute();
    return new Map(rows.map((r) => [r.client_id, r.name]));
  }

  async grantsOfApiClient(clientId: string): Promise<GroupGrant[]> {
    // One query per request of a compliance caller: the group rows, each joined with the environments it names.
    const rows = await this.db
      .selectFrom('group_api_clients')
      .innerJoin('groups', 'groups.id', 'group_api_clients.group_id')
      .leftJoin('group_environments', 'group_environments.group_id', 'groups.id')
      .select(['groups.id', 'groups.policy', 'groups.all_environments', 'group_environments.environment_id'])
      .where('group_api_clients.client_id', '=', clientId)
      .execute();
    return grantsOfRows(rows);
  }

  async grantsOfGroups(orgId: string, ids: readonly string[]): Promise<GroupGrant[]> {
    if (ids.length === 0) return [];
    const rows = await this.db
      .selectFrom('groups')
      .leftJoin('group_environments', 'group_environments.group_id', 'groups.id')
      .select(['groups.id', 'groups.policy', 'groups.all_environments', 'group_environments.environment_id'])
      .where('groups.org_id', '=', orgId)
      .where('groups.id', 'in', ids)
      .execute();
    return grantsOfRows(rows);
  }

  async namedGrants(orgId: string, ids: readonly string[]): Promise<NamedGrant[]> {
    if (ids.length === 0) return [];
    const rows = await this.db
      .selectFrom('groups')
      .leftJoin('group_environments', 'group_environments.group_id', 'groups.id')
      .select(['groups.id', 'groups.name', 'groups.policy', 'groups.all_environments', 'group_environments.environment_id'])
      .where('groups.org_id', '=', orgId)
      .where('groups.id', 'in', ids)
      .execute();
    return namedGrantsOfRows(rows);
  }

  async namedGrantsOfUser(userId: string): Promise<NamedGrant[]> {
    // One query per console request of a user who is not the owner (reused for a moment: AccessService).
    const rows = await this.db
      .selectFrom('group_users')
      .innerJoin('groups', 'groups.id', 'group_users.group_id')
      .leftJoin('group_environments', 'group_environments.group_id', 'groups.id')
      .select(['groups.id', 'groups.name', 'groups.policy', 'groups.all_environments', 'group_environments.environment_id'])
      .where('group_users.user_id', '=', userId)
      .execute();
    return namedGrantsOfRows(rows);
  }

  async replaceMemberships(userIds: readonly string[], groupIds: readonly string[]): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      // Two edits of one user's groups run one after the other: each replaces the whole set, so interleaving
      // them would leave a mixture of both. SQLite runs one write transaction at a time already.
      if (this.dialect === 'postgres') {
        await trx.selectFrom('users').select('id').where('id', 'in', userIds).orderBy('id').forUpdate().execute();
      }
      await trx.deleteFrom('group_users').where('user_id', 'in', userIds).execute();
      const rows = userIds.flatMap((userId) => groupIds.map((groupId) => ({ group_id: groupId, user_id: userId })));
      for (let i = 0; i < rows.length; i += BATCH) await trx.insertInto('group_users').values(rows.slice(i, i + BATCH)).execute();
    });
  }

  async groupsOfUsers(userIds: readonly string[]): Promise<Map<string, NamedRef[]>> {
    const groups = new Map<string, NamedRef[]>();
    if (userIds.length === 0) return groups;
    const rows = await this.db
      .selectFrom('group_users')
      .innerJoin('groups', 'groups.id', 'group_users.group_id')
      .select(['group_users.user_id', 'groups.id', 'groups.name'])
      .where('group_users.user_id', 'in', userIds)
      .orderBy('groups.name')
      .orderBy('groups.id')
      .execute();
    for (const row of rows) push(groups, row.user_id, { id: row.id, name: row.name });
    return groups;
  }

  /** The page's groups with their environments, users and API clients: three queries for the whole page. */
  private async withMembers(rows: Selectable<GroupsTable>[]): Promise<Group[]> {
    if (rows.length === 0) return [];
    const ids = rows.map((r) => r.id);
    const [environments, users, clients] = await Promise.all([
      this.db
        .selectFrom('group_environments')
        .innerJoin('environments', 'environments.id', 'group_environments.environment_id')
        .select(['group_environments.group_id', 'environments.id', 'environments.name'])
        .where('group_environments.group_id', 'in', ids)
        .orderBy('environments.name')
        .orderBy('environments.id')
        .execute(),
      this.db
        .selectFrom('group_users')
        .innerJoin('users', 'users.id', 'group_users.user_id')
        .select(['group_users.group_id', 'users.id', 'users.email', 'users.first_name', 'users.last_name'])
        .where('group_users.group_id', 'in', ids)
        .orderBy('users.email')
        .execute(),
      this.db
        .selectFrom('group_api_clients')
        .innerJoin('api_clients', 'api_clients.client_id', 'group_api_clients.client_id')
        .select(['group_api_clients.group_id', 'api_clients.client_id', 'api_clients.name'])
        .where('group_api_clients.group_id', 'in', ids)
        .orderBy('api_clients.name')
        .execute(),
    ]);
    const environmentsOf = new Map<string, NamedRef[]>();
    const usersOf = new Map<string, NamedRef[]>();
    const clientsOf = new Map<string, NamedRef[]>();
    for (const e of environments) push(environmentsOf, e.group_id, { id: e.id, name: e.name });
    for (const u of users) push(usersOf, u.group_id, { id: u.id, name: displayName({ email: u.email, firstName: u.first_name, lastName: u.last_name }) });
    for (const c of clients) push(clientsOf, c.group_id, { id: c.client_id, name: c.name });
    return rows.map((row) => ({
      id: row.id,
      orgId: row.org_id,
      name: row.name,
      policy: row.policy as GroupPolicy,
      allEnvironments: row.all_environments === 1,
      environments: environmentsOf.get(row.id) ?? [],
      users: usersOf.get(row.id) ?? [],
      apiClients: clientsOf.get(row.id) ?? [],
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    }));
  }
}
