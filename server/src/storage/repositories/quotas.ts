import type { Transaction } from 'kysely';
import type { Admission } from '../../domain/quotas.js';
import type { Database } from '../schema.js';

/** Whose records a quota counts: an organization's, or a conductor account's processes. */
export type QuotaOwner = { organization: string } | { conductorAccount: string };

/** A `select count(*) as n` query; PostgreSQL answers the count as a string. */
interface CountQuery {
  executeTakeFirstOrThrow(): Promise<{ n: number | string | bigint }>;
}

/**
 * The first step of a counted insert, inside its transaction: makes the owner's counted inserts take turns, then
 * asks `admit` with what `count` finds, so that two creates at the limit never both pass. PostgreSQL locks the
 * owner's row FOR NO KEY UPDATE: another counted insert of the owner waits for this transaction to end, and its
 * count, a statement of its own under READ COMMITTED, then sees what this one wrote; rows referencing the owner are
 * still inserted meanwhile (a foreign key's check takes only a KEY SHARE lock), so scans and events are not held.
 * SQLite begins every transaction IMMEDIATE (database.ts): the whole transaction already runs alone, and the lock's
 * select is compiled without its lock, a read of one row by its key. Without `admit`, nothing is locked or counted.
 */
export async function admitInto(trx: Transaction<Database>, owner: QuotaOwner, admit: Admission | undefined, count: CountQuery): Promise<void> {
  if (!admit) return;
  await takeTurns(trx, owner);
  const { n } = await count.executeTakeFirstOrThrow();
  admit(Number(n));
}

/** Makes the owner's counted and measured writes take turns until `trx` ends, as `admitInto` describes. */
export async function takeTurns(trx: Transaction<Database>, owner: QuotaOwner): Promise<void> {
  if ('organization' in owner) {
    await trx.selectFrom('organizations').select('id').where('id', '=', owner.organization).forNoKeyUpdate().execute();
  } else {
    await trx.selectFrom('conductor_accounts').select('name').where('name', '=', owner.conductorAccount).forNoKeyUpdate().execute();
  }
}
