import type { Kysely } from 'kysely';
import type { RuleInfo } from '../../domain/scans/rule-set.js';
import type { Finding, RuleResult, RuleResultValue, ScannedResource, TypeResult } from '../../domain/scans/types.js';
import { prepareQuery, type PreparedQuery } from '../prepared.js';
import type { Database } from '../schema.js';
import type { Page, PageRequest, ScanResultRepository } from '../../domain/repositories.js';

/** Rows per INSERT: well under both databases' limits on bound parameters. */
const BATCH = 400;

type FindingRow = { rule_id: string; resource_id: string; resource_type: string; result: string; message: string };
const toFinding = (row: FindingRow): Finding => ({
  ruleId: row.rule_id,
  resourceId: row.resource_id,
  resourceType: row.resource_type,
  result: row.result as Finding['result'],
  message: row.message,
});

type Listed = { rule_id: string; resource_id: string; message: string };

export class KyselyScanResultRepository implements ScanResultRepository {
  /** What the result pages read, built and compiled once (prepared.ts): a page runs 10 to 20 of them. */
  private readonly firstFindingsOfRule: PreparedQuery<{ scanId: string; ruleId: string; limit: number }, Omit<FindingRow, 'rule_id'>>;
  private readonly typesPage: PreparedQuery<{ scanId: string; limit: number; offset: number }, { resource_type: string; total: number; noncompliant: number }>;
  private readonly firstFailuresOfType: PreparedQuery<{ scanId: string; type: string; limit: number }, Listed>;

  constructor(private readonly db: Kysely<Database>) {
    // Not the rule's id, which is known: every column read is a string made anew for every row.
    this.firstFindingsOfRule = prepareQuery(db, (p: { scanId: string; ruleId: string; limit: number }) =>
      db
        .selectFrom('scan_findings')
        .select(['resource_id', 'resource_type', 'result', 'message'])
        .where('scan_id', '=', p.scanId)
        .where('rule_id', '=', p.ruleId)
        .orderBy('resource_id')
        .limit(p.limit),
    );
    this.typesPage = prepareQuery(db, (p: { scanId: string; limit: number; offset: number }) =>
      db.selectFrom('scan_type_results').select(['resource_type', 'total', 'noncompliant']).where('scan_id', '=', p.scanId).orderBy('resource_type').limit(p.limit).offset(p.offset),
    );
    this.firstFailuresOfType = prepareQuery(db, (p: { scanId: string; type: string; limit: number }) => this.failuresOfType(p.scanId, p.type, null, p.limit));
  }

  async clear(scanId: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      for (const table of ['scan_resources', 'scan_findings', 'scan_rule_results', 'scan_type_results'] as const) {
        await trx.deleteFrom(table).where('scan_id', '=', scanId).execute();
      }
    });
  }

  async addBatch(scanId: string, resources: readonly ScannedResource[], findings: readonly Finding[]): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      for (let i = 0; i < resources.length; i += BATCH) {
        await trx
          .insertInto('scan_resources')
          .values(
            resources.slice(i, i + BATCH).map((r) => ({
              scan_id: scanId,
              resource_id: r.resourceId,
              resource_type: r.resourceType,
              document: r.document,
              failed_rules: r.failedRules,
            })),
          )
          .execute();
      }
      for (let i = 0; i < findings.length; i += BATCH) {
        await trx
          .insertInto('scan_findings')
          .values(
            findings.slice(i, i + BATCH).map((f) => ({
              scan_id: scanId,
              rule_id: f.ruleId,
              resource_id: f.resourceId,
              resource_type: f.resourceType,
              result: f.result,
              message: f.message,
            })),
          )
          .execute();
      }
    });
  }

  async saveAggregates(scanId: string, rules: readonly RuleResult[], types: readonly TypeResult[]): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      for (let i = 0; i < rules.length; i += BATCH) {
        await trx
          .insertInto('scan_rule_results')
          .values(
            rules.slice(i, i + BATCH).map((r) => ({
              scan_id: scanId,
              rule_id: r.ruleId,
              result: r.result,
              evaluated: r.evaluated,
              failed: r.failed,
              unsurveyed_types: JSON.stringify(r.unsurveyedTypes),
              missing_types: JSON.stringify(r.missingTypes),
              rule: JSON.stringify(r.rule),
            })),
          )
          .execute();
      }
      for (let i = 0; i < types.length; i += BATCH) {
        await trx
          .insertInto('scan_type_results')
          .values(types.slice(i, i + BATCH).map((t) => ({ scan_id: scanId, resource_type: t.resourceType, total: t.total, noncompliant: t.noncompliant })))
          .execute();
      }
    });
  }

  async ruleResults(scanId: string): Promise<RuleResult[]> {
    const rows = await this.db.selectFrom('scan_rule_results').selectAll().where('scan_id', '=', scanId).orderBy('rule_id').execute();
    return rows.map((row) => ({
      ruleId: row.rule_id,
      result: row.result as RuleResultValue,
      evaluated: row.evaluated,
      failed: row.failed,
      unsurveyedTypes: JSON.parse(row.unsurveyed_types) as string[],
      missingTypes: JSON.parse(row.missing_types) as string[],
      rule: JSON.parse(row.rule) as RuleInfo,
    }));
  }

  async findingsOfRules(scanId: string, ruleIds: readonly string[], limitPerRule: number): Promise<Map<string, Finding[]>> {
    const byRule = new Map<string, Finding[]>();
    for (const ruleId of new Set(ruleIds)) {
      const rows = await this.firstFindingsOfRule.rows({ scanId, ruleId, limit: limitPerRule });
      byRule.set(
        ruleId,
        rows.map((row) => ({ ruleId, resourceId: row.resource_id, resourceType: row.resource_type, result: row.result as Finding['result'], message: row.message })),
      );
    }
    return byRule;
  }

  async typeResults(scanId: string, types: readonly string[] | null, page: PageRequest): Promise<Page<TypeResult>> {
    let query = this.db.selectFrom('scan_type_results').select(['resource_type', 'total', 'noncompliant']).where('scan_id', '=', scanId);
    if (types) query = query.where('resource_type', 'in', types.length > 0 ? types : ['']);
    const rows = types
      ? await query.orderBy('resource_type').limit(page.limit + 1).offset(page.offset).execute()
      : await this.typesPage.rows({ scanId, limit: page.limit + 1, offset: page.offset });
    return {
      items: rows.slice(0, page.limit).map((r) => ({ resourceType: r.resource_type, total: r.total, noncompliant: r.noncompliant })),
      hasMore: rows.length > page.limit,
    };
  }

  async findingsOfType(
    scanId: string,
    type: string,
    ruleIds: readonly string[] | null,
    limit: number,
    count: boolean,
  ): Promise<{ resources: Map<string, Array<Pick<Finding, 'ruleId' | 'message'>>>; total: number | null }> {
    const total = count
      ? await this.db
          .selectFrom(this.failingResources(scanId, type, ruleIds).as('failing'))
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      : null;
    const listed = ruleIds ? await this.failuresOfType(scanId, type, ruleIds, limit).execute() : await this.firstFailuresOfType.rows({ scanId, type, limit });
    const resources = new Map<string, Array<Pick<Finding, 'ruleId' | 'message'>>>();
    for (const row of listed) {
      let findings = resources.get(row.resource_id);
      if (!findings) resources.set(row.resource_id, (findings = []));
      findings.push({ ruleId: row.rule_id, message: row.message });
    }
    return { resources, total: total === null ? null : Number(total.n) };
  }

  /** The ids of the resources of a type that fail a rule (one of `ruleIds`, when given). */
  private failingResources(scanId: string, type: string, ruleIds: readonly string[] | null) {
    const failing = this.db.selectFrom('scan_findings').select('resource_id').distinct().where('scan_id', '=', scanId).where('resource_type', '=', type);
    return ruleIds ? failing.where('rule_id', 'in', ruleIds.length > 0 ? ruleIds : ['']) : failing;
  }

  /**
   * The first `limit` failing resources of a type and their findings (of `ruleIds`, when given) in one statement,
   * whose text is the same for every type and page (a list of the resources' ids made a new statement for every
   * count of them): the findings up to the last of those resources, read along the index in the order answered.
   * Matching the resources against the list instead looked each of them up and sorted what it found.
   */
  private failuresOfType(scanId: string, type: string, ruleIds: readonly string[] | null, limit: number) {
    const failing = this.failingResources(scanId, type, ruleIds);
    const lastListed = this.db.selectFrom(failing.orderBy('resource_id').limit(limit).as('listed')).select((eb) => eb.fn.max('listed.resource_id').as('last'));
    let query = this.db
      .selectFrom('scan_findings')
      .select(['rule_id', 'resource_id', 'message'])
      .where('scan_id', '=', scanId)
      .where('resource_type', '=', type)
      .where('resource_id', '<=', lastListed);
    if (ruleIds) query = query.where('rule_id', 'in', ruleIds.length > 0 ? ruleIds : ['']);
    return query.orderBy('resource_id').orderBy('rule_id');
  }

  async resourcesPage(scanId: string, after: string | null, limit: number, types?: readonly string[]): Promise<ScannedResource[]> {
    let query = this.db.selectFrom('scan_resources').selectAll().where('scan_id', '=', scanId);
    if (after !== null) query = query.where('resource_id', '>', after);
    if (types) query = query.where('resource_type', 'in', types.length > 0 ? types : ['']);
    const rows = await query.orderBy('resource_id').limit(limit).execute();
    return rows.map((r) => ({ resourceId: r.resource_id, resourceType: r.resource_type, document: r.document, failedRules: r.failed_rules }));
  }

  async findingsPage(scanId: string, after: { resourceId: string; ruleId: string } | null, limit: number): Promise<Finding[]> {
    let query = this.db.selectFrom('scan_findings').select(['rule_id', 'resource_id', 'resource_type', 'result', 'message']).where('scan_id', '=', scanId);
    if (after) {
      query = query.where((eb) =>
        eb.or([eb('resource_id', '>', after.resourceId), eb.and([eb('resource_id', '=', after.resourceId), eb('rule_id', '>', after.ruleId)])]),
      );
    }
    const rows = await query.orderBy('resource_id').orderBy('rule_id').limit(limit).execute();
    return rows.map(toFinding);
  }

  async resourcesByIds(scanId: string, resourceIds: readonly string[]): Promise<Map<string, ScannedResource>> {
    if (resourceIds.length === 0) return new Map();
    const rows = await this.db.selectFrom('scan_resources').selectAll().where('scan_id', '=', scanId).where('resource_id', 'in', resourceIds).execute();
    return new Map(rows.map((r) => [r.resource_id, { resourceId: r.resource_id, resourceType: r.resource_type, document: r.document, failedRules: r.failed_rules }]));
  }

  async findingsOfResources(scanId: string, resourceIds: readonly string[]): Promise<Finding[]> {
    if (resourceIds.length === 0) return [];
    const rows = await this.db
      .selectFrom('scan_findings')
      .select(['rule_id', 'resource_id', 'resource_type', 'result', 'message'])
      .where('scan_id', '=', scanId)
      .where('resource_id', 'in', resourceIds)
      .execute();
    return rows.map(toFinding);
  }
}
