import type { Clock } from '../clock.js';
import type { Environment } from '../environments/types.js';
import { AppError } from '../errors.js';
import { newId } from '../ids.js';
import type { JobQueue } from '../jobs/queue.js';
import { organizationTenant } from '../jobs/tenants.js';
import { CONTROLS } from '../rules/catalog/controls.js';
import type { EnvironmentRepository, Page, PageRequest, ScanFilter, ScanRepository, ScanResultRepository, SortDirection } from '../repositories.js';
import { scanFamilies, type RuleInfo } from './rule-set.js';
import type { Finding, ResourceSummary, RuleResult, RuleResultValue, Scan } from './types.js';

export const SCAN_JOB = 'scan';

/** Controls of each family, in catalog order. */
const CONTROLS_OF_FAMILY = new Map<string, typeof CONTROLS[number][]>();
for (const control of CONTROLS) CONTROLS_OF_FAMILY.set(control.family, [...(CONTROLS_OF_FAMILY.get(control.family) ?? []), control]);
const CATALOG_CONTROL_IDS = new Set(CONTROLS.map((c) => c.id));
/** Failing resources listed per result item; the item's count says how many there are in all. */
export const LISTED_FAILURES = 100;
const NO_FAMILIES: readonly string[] = Object.freeze([]);

export interface RuleComplianceItem {
  family: string;
  control: string;
  rule: RuleInfo;
  result: RuleResultValue;
  failedResources: Finding[];
  failedResourceCount: number;
  missingTypes: string[];
  unsurveyedTypes: string[];
}

export interface TypeComplianceItem {
  resourceType: string;
  total: number;
  compliant: number;
  noncompliantCount: number;
  /** The first failing resources (LISTED_FAILURES), by resource id, each with the rules it fails, by rule id. */
  noncompliant: Array<{ resourceId: string; failures: TypeFailure[] }>;
}

/**
 * A rule a resource fails, with the families (of those asked for) the rule serves: the answer lists it once per
 * family. One array of families per rule in a page, shared by its failures.
 */
export interface TypeFailure {
  ruleId: string;
  message: string;
  families: readonly string[];
}

export interface ScanServiceDeps {
  environments: EnvironmentRepository;
  scans: ScanRepository;
  results: ScanResultRepository;
  jobs: JobQueue;
  clock: Clock;
}

/** Starting scans and reading them and their results. The scan itself runs as a job (see runner.ts). */
export class ScanService {
  constructor(private readonly deps: ScanServiceDeps) {}

  /**
   * Starts a scan of the environment now (manual or scheduled); refused while one is in progress. `requestId`
   * names the request that asked for it, carried by the scan's job to its log lines and webhook deliveries.
   */
  async start(orgId: string, environmentId: string, requestId: string | null = null): Promise<Scan> {
    const env = await this.environment(orgId, environmentId);
    const now = this.deps.clock.nowSeconds();
    const id = newId();
    const job = this.deps.jobs.newJob(SCAN_JOB, { orgId, scanId: id }, { maxAttempts: 2, requestId, tenant: organizationTenant(orgId) });
    const scan: Scan = {
      id,
      orgId,
      environmentId,
      status: 'IN_PROGRESS',
      message: null,
      remediationError: false,
      createdAt: now,
      updatedAt: now,
      finishedAt: null,
      summary: null,
      resourceTypeErrors: [],
      families: scanFamilies(env.provider, env.complianceFamilies),
      jobId: job.id,
    };
    if (!(await this.deps.scans.insert(scan, job))) {
      throw new AppError('work_already_started', `environment ${environmentId} already has a scan in progress`);
    }
    this.deps.jobs.wake();
    return scan;
  }

  async list(orgId: string, environmentId: string, filter: ScanFilter, page: PageRequest, direction: SortDirection): Promise<Page<Scan>> {
    await this.environment(orgId, environmentId);
    return this.deps.scans.list(orgId, environmentId, filter, page, direction);
  }

  async get(orgId: string, scanId: string): Promise<Scan> {
    const scan = await this.deps.scans.get(orgId, scanId);
    if (!scan) throw AppError.notFound('scan', scanId);
    return scan;
  }

  /**
   * The version of everything the scan's answers show (the scan, its summary, its results), as the database keeps
   * it: its environment's version, which the database draws anew at every write of the scan, whoever writes. A
   * scan's results are written while it is in progress and shown only once it succeeded, which writes the scan:
   * they never change under one version. Undefined when the organization has no such scan.
   */
  version(orgId: string, scanId: string): Promise<number | undefined> {
    return this.deps.scans.environmentVersion(orgId, scanId);
  }

  /** The summary of the environment's latest successful scan: what GET /environments/{id} shows. */
  async latestSummary(orgId: string, env: Environment): Promise<ResourceSummary | null> {
    // No scan ever started: nothing to look for.
    if (env.lastScanId === null) return null;
    const scan =
      env.scanStatus === 'SUCCESS'
        ? await this.deps.scans.get(orgId, env.lastScanId)
        : await this.deps.scans.previousSuccess(orgId, env.id, Number.MAX_SAFE_INTEGER);
    return scan?.summary ?? null;
  }

  /** One item per (family, control, rule) the scan evaluated, in catalog order; empty until the scan succeeds. */
  async complianceByRules(
    orgId: string,
    scanId: string,
    filter: { families?: readonly string[]; results?: readonly string[] },
    page: PageRequest,
  ): Promise<Page<RuleComplianceItem>> {
    const scan = await this.get(orgId, scanId);
    if (scan.status !== 'SUCCESS') return { items: [], hasMore: false };
    const results = await this.ruleResultsOf(scan);
    const rules = results.map((r) => r.rule);
    const outcome = new Map(results.map((r) => [r.ruleId, r]));
    const families = scan.families.filter((f) => !filter.families?.length || filter.families.includes(f));
    const rulesOfControl = new Map<string, RuleInfo[]>();
    for (const rule of rules) for (const control of rule.controls) rulesOfControl.set(control.id, [...(rulesOfControl.get(control.id) ?? []), rule]);
    const all: Array<Omit<RuleComplianceItem, 'failedResources'>> = [];
    // Controls outside the catalog (custom rules') follow the family's catalog controls.
    const extraControls = [...new Map(rules.flatMap((r) => r.controls).filter((c) => !CATALOG_CONTROL_IDS.has(c.id)).map((c) => [c.id, c])).values()];
    for (const family of families) {
      for (const control of [...(CONTROLS_OF_FAMILY.get(family) ?? []), ...extraControls.filter((c) => c.family === family)]) {
        for (const rule of rulesOfControl.get(control.id) ?? []) {
          const result = outcome.get(rule.id);
          const item = {
            family,
            control: control.id,
            rule,
            result: result?.result ?? 'UNKNOWN',
            failedResourceCount: result?.failed ?? 0,
            missingTypes: result?.missingTypes ?? [],
            unsurveyedTypes: result?.unsurveyedTypes ?? [...rule.resourceTypes],
          };
          if (!filter.results?.length || filter.results.includes(item.result)) all.push(item);
        }
      }
    }
    const slice = all.slice(page.offset, page.offset + page.limit);
    const findings = await this.deps.results.findingsOfRules(scan.id, slice.map((i) => i.rule.id), LISTED_FAILURES);
    return {
      items: slice.map((item) => ({ ...item, failedResources: findings.get(item.rule.id) ?? [] })),
      hasMore: all.length > page.offset + page.limit,
    };
  }

  /** One item per resource type the scan saw: how many resources, how many comply, and the failing ones. */
  async complianceByResourceTypes(
    orgId: string,
    scanId: string,
    filter: { families?: readonly string[]; types?: readonly string[] },
    page: PageRequest,
  ): Promise<Page<TypeComplianceItem>> {
    const scan = await this.get(orgId, scanId);
    if (scan.status !== 'SUCCESS') return { items: [], hasMore: false };
    const families = new Set(filter.families?.length ? filter.families : scan.families);
    const rules = (await this.ruleResultsOf(scan)).map((r) => r.rule);
    const familiesOfRule = new Map(rules.map((r) => [r.id, r.families.filter((f) => families.has(f))]));
    const ruleIds = filter.families?.length ? rules.filter((r) => familiesOfRule.get(r.id)!.length > 0).map((r) => r.id) : null;
    const types = await this.deps.results.typeResults(scan.id, filter.types?.length ? filter.types : null, page);
    const items: TypeComplianceItem[] = [];
    for (const type of types.items) {
      const failing = await this.deps.results.findingsOfType(scan.id, type.resourceType, ruleIds, LISTED_FAILURES, ruleIds !== null);
      const noncompliantCount = failing.total ?? type.noncompliant;
      items.push({
        resourceType: type.resourceType,
        total: type.total,
        compliant: type.total - noncompliantCount,
        noncompliantCount,
        noncompliant: [...failing.resources].map(([resourceId, findings]) => ({
          resourceId,
          failures: findings.map((f) => ({ ruleId: f.ruleId, message: f.message, families: familiesOfRule.get(f.ruleId) ?? NO_FAMILIES })),
        })),
      });
    }
    return { items, hasMore: types.hasMore };
  }

  /** What each rule of a successful scan came to: every page of its results starts from them. */
  private ruleResultsOf(scan: Scan): Promise<readonly RuleResult[]> {
    return this.deps.results.ruleResults(scan.id);
  }

  private async environment(orgId: string, environmentId: string): Promise<Environment> {
    const env = await this.deps.environments.get(orgId, environmentId);
    if (!env) throw AppError.notFound('environment', environmentId);
    return env;
  }
}
