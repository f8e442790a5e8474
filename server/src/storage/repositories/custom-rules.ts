import { sql, type Expression, type Kysely, type Selectable, type SqlBool, type Transaction } from 'kysely';
import type { CustomRule, CustomRuleFilter, CustomRuleProvider, CustomRuleStatus } from '../../domain/custom-rules/types.js';
import type { Severity } from '../../domain/rules/catalog/rules.js';
import type { CustomRulesTable, Database } from '../schema.js';
import type { CustomRuleAdmission, CustomRuleRepository, Page, PageRequest } from '../../domain/repositories.js';
import { lockedTransaction } from './locking.js';
import { admitInto, takeTurns } from './quotas.js';
import type { Change } from '../../domain/repositories.js';
import type { SizeAdmission } from '../../domain/quotas.js';

type Row = Selectable<CustomRulesTable>;

const toRule = (row: Row): CustomRule => ({
  id: row.id,
  orgId: row.org_id,
  name: row.name,
  description: row.description,
  providers: JSON.parse(row.providers) as CustomRuleProvider[],
  resourceType: row.resource_type,
  ruleText: row.rule_text,
  severity: row.severity as Severity,
  status: row.status as CustomRuleStatus,
  families: JSON.parse(row.families) as string[],
  createdAt: row.created_at,
  createdBy: { id: row.created_by, name: row.created_by_name },
  updatedAt: row.updated_at,
  updatedBy: { id: row.updated_by, name: row.updated_by_name },
});

const toRow = (rule: CustomRule): Row => ({
  id: rule.id,
  org_id: rule.orgId,
  name: rule.name,
  description: rule.description,
  providers: JSON.stringify(rule.providers),
  resource_type: rule.resourceType,
  rule_text: rule.ruleText,
  severity: rule.severity,
  status: rule.status,
  families: JSON.stringify(rule.families),
  created_at: rule.createdAt,
  created_by: rule.createdBy.id,
  created_by_name: rule.createdBy.name,
  updated_at: rule.updatedAt,
  updated_by: rule.updatedBy.id,
  updated_by_name: rule.updatedBy.name,
});

/**
 * Characters of rule text an organization's rules hold, as the database counts them (characters, on either), so that
 * the quota reads the same whichever database keeps the rules.
 */
async function textHeld(trx: Transaction<Database>, orgId: string): Promise<number> {
  const { chars } = await trx
    .selectFrom('custom_rules')
    .select(sql<number | string>`coalesce(sum(length(rule_text)), 0)`.as('chars'))
    .where('org_id', '=', orgId)
    .executeTakeFirstOrThrow();
  return Number(chars);
}

const isUniqueViolation = (error: unknown): boolean =>
  /UNIQUE constraint failed|duplicate key value/.test(String((error as Error)?.message ?? error));

/** Case-insensitive substring match, the same on both databases: `%` and `_` in the term are literal. */
function contains(column: 'name' | 'id' | 'resource_type' | 'description', term: string): Expression<SqlBool> {
  const pattern = `%${term.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  return sql<SqlBool>`lower(${sql.ref(column)}) like ${pattern} escape '\\'`;
}

/** The providers column is a JSON array of names; the quotes keep PROVIDER_A from matching PROVIDER_A_GOV. */
const hasProvider = (provider: string): Expression<SqlBool> => sql<SqlBool>`providers like ${`%"${provider}"%`}`;

export class KyselyCustomRuleRepository implements CustomRuleRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async list(orgId: string, filter: CustomRuleFilter, page: PageRequest): Promise<Page<CustomRule>> {
    let query = this.db.selectFrom('custom_rules').selectAll().where('org_id', '=', orgId);
    if (filter.status) query = query.where('status', '=', filter.status);
    for (const term of filter.name ?? []) query = query.where(contains('name', term));
    for (const term of filter.id ?? []) query = query.where(contains('id', term));
    for (const term of filter.resourceType ?? []) query = query.where(contains('resource_type', term));
    for (const provider of filter.provider ?? []) query = query.where(hasProvider(provider));
    for (const severity of filter.severity ?? []) query = query.where('severity', '=', severity);
    for (const term of filter.text ?? []) query = query.where((eb) => eb.or([contains('name', term), contains('description', term)]));
    // One row past the page tells whether another page exists without counting.
    const rows = await query.orderBy('name').orderBy('id').limit(page.limit + 1).offset(page.offset).execute();
    return { items: rows.slice(0, page.limit).map(toRule), hasMore: rows.length > page.limit };
  }

  async get(orgId: string, id: string): Promise<CustomRule | undefined> {
    const row = await this.db.selectFrom('custom_rules').selectAll().where('id', '=', id).where('org_id', '=', orgId).executeTakeFirst();
    return row && toRule(row);
  }

  async insert(rule: CustomRule, admit?: CustomRuleAdmission): Promise<boolean> {
    try {
      await this.db.transaction().execute(async (trx) => {
        const held = trx.selectFrom('custom_rules').select((eb) => eb.fn.countAll().as('n')).where('org_id', '=', rule.orgId);
        await admitInto(trx, { organization: rule.orgId }, admit?.rules, held);
        const textBefore = admit && (await textHeld(trx, rule.orgId));
        await trx.insertInto('custom_rules').values(toRow(rule)).execute();
        if (admit) admit.text(await textHeld(trx, rule.orgId), textBefore!);
      });
      return true;
    } catch (error) {
      if (isUniqueViolation(error)) return false;
      throw error;
    }
  }

  async modify(orgId: string, id: string, change: Change<CustomRule>, admitText?: SizeAdmission): Promise<CustomRule | 'name_taken' | undefined> {
    try {
      return await lockedTransaction(this.db, async (trx, forUpdate) => {
        // The organization first, the rule second, as an insert takes them: two changes never wait on each other.
        if (admitText) await takeTurns(trx, { organization: orgId });
        const row = await forUpdate(trx.selectFrom('custom_rules').selectAll().where('id', '=', id).where('org_id', '=', orgId)).executeTakeFirst();
        if (!row) return undefined;
        const next = await change(toRule(row));
        const { id: _id, org_id: _orgId, created_at: _createdAt, created_by: _createdBy, created_by_name: _createdByName, ...changes } = toRow(next);
        const textBefore = admitText && (await textHeld(trx, orgId));
        await trx.updateTable('custom_rules').set(changes).where('id', '=', id).where('org_id', '=', orgId).execute();
        if (admitText) admitText(await textHeld(trx, orgId), textBefore!);
        return next;
      });
    } catch (error) {
      if (isUniqueViolation(error)) return 'name_taken';
      throw error;
    }
  }

  async delete(orgId: string, id: string): Promise<boolean> {
    const result = await this.db.deleteFrom('custom_rules').where('id', '=', id).where('org_id', '=', orgId).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async enabledFor(orgId: string, provider: CustomRuleProvider): Promise<CustomRule[]> {
    const rows = await this.db
      .selectFrom('custom_rules')
      .selectAll()
      .where('org_id', '=', orgId)
      .where('status', '=', 'ENABLED')
      .where(hasProvider(provider))
      .orderBy('name')
      .orderBy('id')
      .execute();
    return rows.map(toRule);
  }

  async markInvalid(orgId: string, id: string, ruleText: string): Promise<void> {
    await this.db
      .updateTable('custom_rules')
      .set({ status: 'INVALID' })
      .where('id', '=', id)
      .where('org_id', '=', orgId)
      .where('status', '=', 'ENABLED')
      .where('rule_text', '=', ruleText)
      .execute();
  }
}
