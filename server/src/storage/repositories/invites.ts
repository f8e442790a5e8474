import type { Kysely, Selectable } from 'kysely';
import type { Invite, NamedRef } from '../../domain/access/types.js';
import type { Database, InvitesTable } from '../schema.js';
import type { InviteRepository, Page, PageRequest, SortDirection } from '../../domain/repositories.js';

const isUniqueViolation = (error: unknown): boolean =>
  /UNIQUE constraint failed|duplicate key value/.test(String((error as Error)?.message ?? error));

export class KyselyInviteRepository implements InviteRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /**
   * The unique (organization, pending email) index decides between racing invites of one address. Invites that
   * were accepted or have expired give the address up first.
   */
  async insert(invite: Invite, now: number): Promise<boolean> {
    try {
      await this.db.transaction().execute(async (trx) => {
        await trx
          .updateTable('invites')
          .set({ pending_email: null })
          .where('org_id', '=', invite.orgId)
          .where('pending_email', '=', invite.email)
          .where((eb) => eb.or([eb('accepted_at', 'is not', null), eb.and([eb('expires_at', 'is not', null), eb('expires_at', '<=', now)])]))
          .execute();
        await trx
          .insertInto('invites')
          .values({
            id: invite.id,
            org_id: invite.orgId,
            email: invite.email,
            pending_email: invite.acceptedAt === null ? invite.email : null,
            expires_at: invite.expiresAt,
            accepted_at: invite.acceptedAt,
            created_at: invite.createdAt,
            updated_at: invite.updatedAt,
          })
          .execute();
        if (invite.groups.length > 0) {
          await trx
            .insertInto('invite_groups')
            .values(invite.groups.map((g) => ({ invite_id: invite.id, group_id: g.id })))
            .execute();
        }
      });
      return true;
    } catch (error) {
      if (isUniqueViolation(error)) return false;
      throw error;
    }
  }

  async get(orgId: string, id: string): Promise<Invite | undefined> {
    const row = await this.db.selectFrom('invites').selectAll().where('id', '=', id).where('org_id', '=', orgId).executeTakeFirst();
    return row && (await this.withGroups([row]))[0];
  }

  async list(orgId: string, filter: { email?: string }, page: PageRequest, direction: SortDirection): Promise<Page<Invite>> {
    let query = this.db.selectFrom('invites').selectAll().where('org_id', '=', orgId);
    if (filter.email !== undefined) query = query.where('email', '=', filter.email);
    // One row past the page tells whether another page exists without counting.
    const rows = await query.orderBy('created_at', direction).orderBy('created_seq', direction).limit(page.limit + 1).offset(page.offset).execute();
    return { items: await this.withGroups(rows.slice(0, page.limit)), hasMore: rows.length > page.limit };
  }

  private async withGroups(rows: Selectable<InvitesTable>[]): Promise<Invite[]> {
    const groupsOf = new Map<string, NamedRef[]>();
    if (rows.length > 0) {
      const groups = await this.db
        .selectFrom('invite_groups')
        .innerJoin('groups', 'groups.id', 'invite_groups.group_id')
        .select(['invite_groups.invite_id', 'groups.id', 'groups.name'])
        .where('invite_groups.invite_id', 'in', rows.map((r) => r.id))
        .orderBy('groups.name')
        .execute();
      for (const g of groups) groupsOf.set(g.invite_id, [...(groupsOf.get(g.invite_id) ?? []), { id: g.id, name: g.name }]);
    }
    return rows.map((row) => ({
      id: row.id,
      orgId: row.org_id,
      email: row.email,
      groups: groupsOf.get(row.id) ?? [],
      expiresAt: row.expires_at,
      acceptedAt: row.accepted_at,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    }));
  }
}
