import type { Kysely } from 'kysely';
import type { AuthFailureCounts, AuthFailureRepository } from '../../domain/repositories.js';
import type { Database } from '../schema.js';
import { prepareQuery } from '../prepared.js';

export class KyselyAuthFailureRepository implements AuthFailureRepository {
  /** Read before every authenticated request: prepared once, for three keys (fewer are passed repeated). */
  private readonly counts;

  constructor(private readonly db: Kysely<Database>) {
    this.counts = prepareQuery(db, (p: { first: string; second: string; third: string; since: number }) =>
      db
        .selectFrom('auth_failures')
        .select((eb) => ['key', eb.fn.countAll<number | string>().as('n'), eb.fn.min<number | string>('at').as('oldest')])
        .where('key', 'in', [p.first, p.second, p.third])
        .where('at', '>', p.since)
        .groupBy('key'),
    );
  }

  async record(keys: readonly string[], at: number, attemptId: string): Promise<void> {
    await this.db.insertInto('auth_failures').values(keys.map((key) => ({ key, at, attempt_id: attemptId }))).execute();
  }

  async forgive(attemptId: string): Promise<void> {
    await this.db.deleteFrom('auth_failures').where('attempt_id', '=', attemptId).execute();
  }

  async count(keys: readonly string[], since: number): Promise<AuthFailureCounts> {
    if (keys.length < 1 || keys.length > 3) throw new Error(`counting failures takes one to three keys, got ${keys.length}`);
    const [first, second = first, third = first] = keys as [string, string?, string?];
    const rows = await this.counts.rows({ first, second, third, since });
    return new Map(rows.map((row) => [row.key, { count: Number(row.n), oldest: Number(row.oldest) }]));
  }

  async prune(before: number): Promise<void> {
    await this.db.deleteFrom('auth_failures').where('at', '<=', before).execute();
  }
}
