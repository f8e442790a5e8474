import type { Kysely } from 'kysely';
import type { KeptRuleTestOutput, RuleTestResult } from '../../domain/custom-rules/types.js';
import type { RuleTestOutputRepository } from '../../domain/repositories.js';
import type { Database } from '../schema.js';

export class KyselyRuleTestOutputRepository implements RuleTestOutputRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async keep(output: KeptRuleTestOutput, keepSince: number, keepNewest: number): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('rule_test_outputs')
        .values({
          id: output.id,
          org_id: output.orgId,
          environment_id: output.environmentId,
          created_at: output.createdAt,
          output: JSON.stringify(output.result),
        })
        .execute();
      // What the organization may no longer download goes with each new one: too old, or past the newest it keeps.
      await trx.deleteFrom('rule_test_outputs').where('org_id', '=', output.orgId).where('created_at', '<', keepSince).execute();
      const kept = trx
        .selectFrom('rule_test_outputs')
        .select('id')
        .where('org_id', '=', output.orgId)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(keepNewest);
      await trx.deleteFrom('rule_test_outputs').where('org_id', '=', output.orgId).where('id', 'not in', kept).execute();
    });
  }

  async get(orgId: string, id: string, since: number): Promise<KeptRuleTestOutput | undefined> {
    const row = await this.db
      .selectFrom('rule_test_outputs')
      .selectAll()
      .where('id', '=', id)
      .where('org_id', '=', orgId)
      .where('created_at', '>=', since)
      .executeTakeFirst();
    return (
      row && {
        id: row.id,
        orgId: row.org_id,
        environmentId: row.environment_id,
        createdAt: Number(row.created_at),
        result: JSON.parse(row.output) as RuleTestResult,
      }
    );
  }
}
