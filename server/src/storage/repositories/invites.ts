import type { ExpressionBuilder, Kysely, Selectable } from 'kysely';
import type { Invite, NamedRef } from '../../domain/access/types.js';
import type { Database, InvitesTable } from '../schema.js';
import type { InviteAcceptance, InviteRepository, Job, Page, PageRequest, SortDirection, StoredInvite } from '../../domain/repositories.js';
import { jobRow } from './jobs.js';
import { userRow } from './users.js';

/** An invite still pending at `now`: neither accepted nor expired. */
const pendingAt = (now: number) => (eb: ExpressionBuilder<Database, 'invites'>) =>
  eb.and([eb('accepted_at', 'is', null), eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)])]);

const isUniqueViolation = (error: unknown): boolean =>
  /UNIQUE constraint failed|duplicate key value/.test(String((error as Error)?.message ?? error));

export class KyselyInviteRepository implements InviteRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /**
   * The unique (organization, pending email) index decides between racing invites of one address. Invites that
   * were accepted or have expired give the address up first. The job that emails the invite, if any, is written in
   * the same transaction: neither exists without the other.
   */
  async insert(invite: Invite, now: number, delivery?: Job): Promise<boolean> {
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
        if (delivery) await trx.insertInto('jobs').values(jobRow(delivery)).execute();
      });
      return true;
    } catch (error) {
      if (isUniqueViolation(error)) return false;
      throw error;
    }
  }

  async setTokenHash(orgId: string, id: string, tokenHash: string, now: number): Promise<boolean> {
    const result = await this.db
      .updateTable('invites')
      .set({ token_hash: tokenHash })
      .where('id', '=', id)
      .where('org_id', '=', orgId)
      .where(pendingAt(now))
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /**
   * The invite's email was given up: while still pending at `now`, it expires then, with the reason, its link stops
   * working and its address is free for a new invite. False when it was no longer pending.
   */
  async giveUpDelivery(orgId: string, id: string, reason: string, now: number): Promise<boolean> {
    const result = await this.db
      .updateTable('invites')
      .set({ expires_at: now, updated_at: now, delivery_error: reason, token_hash: null, pending_email: null })
      .where('id', '=', id)
      .where('org_id', '=', orgId)
      .where(pendingAt(now))
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async findByTokenHash(tokenHash: string): Promise<StoredInvite | undefined> {
    const row = await this.db.selectFrom('invites').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
    return row && (await this.withGroups([row]))[0];
  }

  /**
   * One transaction: the invite is taken (accepted, its pending address given up) only while it is still pending
   * under that token, which decides between racing acceptances (on PostgreSQL the second waits for the first's row
   * lock, then finds the invite accepted); then the user, then their groups. Anything short of all of it rolls back.
   */
  async accept(acceptance: InviteAcceptance): Promise<'accepted' | 'not_pending' | 'no_groups' | 'email_taken'> {
    const { invite, tokenHash, user, now } = acceptance;
    const outcome = await this.db
      .transaction()
      .execute(async (trx) => {
        const taken = await trx
          .updateTable('invites')
          .set({ accepted_at: now, updated_at: now, pending_email: null })
          .where('id', '=', invite.id)
          .where('org_id', '=', invite.orgId)
          .where('token_hash', '=', tokenHash)
          .where(pendingAt(now))
          .executeTakeFirst();
        if (Number(taken.numUpdatedRows) !== 1) return 'not_pending' as const;
        const groups = await trx
          .selectFrom('invite_groups')
          .innerJoin('groups', 'groups.id', 'invite_groups.group_id')
          .select('groups.id')
          .where('invite_groups.invite_id', '=', invite.id)
          .where('groups.org_id', '=', invite.orgId)
          .execute();
        if (groups.length === 0) throw new RolledBack('no_groups');
        const inserted = await trx
          .insertInto('users')
          .values(userRow(user))
          .onConflict((oc) => oc.column('email').doNothing())
          .executeTakeFirst();
        if (Number(inserted.numInsertedOrUpdatedRows ?? 0) !== 1) throw new RolledBack('email_taken');
        await trx
          .insertInto('group_users')
          .values(groups.map((group) => ({ group_id: group.id, user_id: user.id })))
          .execute();
        return 'accepted' as const;
      })
      .catch((error: unknown) => {
        if (error instanceof RolledBack) return error.outcome;
        throw error;
      });
    return outcome;
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

  private async withGroups(rows: Selectable<InvitesTable>[]): Promise<StoredInvite[]> {
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
      deliveryError: row.delivery_error,
      tokenHash: row.token_hash,
    }));
  }
}

/** Ends an acceptance's transaction without committing anything, with the outcome to answer. */
class RolledBack extends Error {
  constructor(readonly outcome: 'no_groups' | 'email_taken') {
    super(`acceptance rolled back: ${outcome}`);
  }
}
