import type { Kysely } from 'kysely';
import type { AttachedPolicy, RbacPolicy, RbacPolicyRepository } from '../../domain/conductor/rbac.js';
import type { Database } from '../schema.js';

/** The one row of conductor_rbac_policy. */
const SLOT = 1;

export class KyselyRbacPolicyRepository implements RbacPolicyRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async attach(attached: AttachedPolicy, archive: Buffer, keep: string): Promise<void> {
    const values = { archive, sha256: attached.sha256, policy: JSON.stringify(attached.policy), attached_at: attached.attachedAt };
    await this.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('conductor_rbac_policy')
        .values({ slot: SLOT, ...values })
        .onConflict((oc) => oc.column('slot').doUpdateSet(values))
        .execute();
      const declared = attached.policy.users;
      let dropped = trx.deleteFrom('conductor_users').where('name', '!=', keep);
      if (declared.length > 0) dropped = dropped.where('name', 'not in', declared);
      await dropped.execute();
      if (declared.length > 0) {
        await trx
          .insertInto('conductor_users')
          .values(declared.map((name) => ({ name, secret_hash: null, secret_created_at: null, created_at: attached.attachedAt })))
          .onConflict((oc) => oc.column('name').doNothing())
          .execute();
      }
    });
  }

  async detach(keep: string): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const removed = await trx.deleteFrom('conductor_rbac_policy').where('slot', '=', SLOT).executeTakeFirst();
      await trx.deleteFrom('conductor_users').where('name', '!=', keep).execute();
      return Number(removed.numDeletedRows) > 0;
    });
  }

  async current(): Promise<AttachedPolicy | undefined> {
    const row = await this.db
      .selectFrom('conductor_rbac_policy')
      .select(['sha256', 'policy', 'attached_at'])
      .where('slot', '=', SLOT)
      .executeTakeFirst();
    return row && { policy: JSON.parse(row.policy) as RbacPolicy, sha256: row.sha256, attachedAt: Number(row.attached_at) };
  }

  async archive(): Promise<Buffer | undefined> {
    const row = await this.db.selectFrom('conductor_rbac_policy').select('archive').where('slot', '=', SLOT).executeTakeFirst();
    return row && Buffer.from(row.archive);
  }
}
