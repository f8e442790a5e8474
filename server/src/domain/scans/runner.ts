import type { Clock } from '../clock.js';
import type { CloudAdapter, SurveyScope } from '../cloud/adapter.js';
import { ALL, parseRoleArn, usesRoles } from '../cloud/providers.js';
import type { Environment } from '../environments/types.js';
import { AppError } from '../errors.js';
import { diffAttributes } from '../events/diff.js';
import type { Change, ComplianceDiff, Event, RuleChange } from '../events/types.js';
import { newId } from '../ids.js';
import type { ResourceDocument } from '../rules/engine.js';
import type { EvaluationPool, ScanBatchEvaluation } from '../rules/evaluation-pool.js';
import { holdLease, LeaseLostError } from '../jobs/queue.js';
import { yieldToEventLoop } from '../yield.js';
import type { EnvironmentRepository, EventRepository, ScanRepository, ScanResultRepository } from '../repositories.js';
import { ruleInfo, type ActiveRule, type RuleSource } from './rule-set.js';
import type { FamilySummary, Finding, ResourceSummary, ResourceTypeError, RuleResult, Scan, ScannedResource, TypeResult } from './types.js';

export interface ScanRunnerDeps {
  environments: EnvironmentRepository;
  scans: ScanRepository;
  results: ScanResultRepository;
  events: EventRepository;
  cloud: CloudAdapter;
  rules: RuleSource;
  clock: Clock;
  /** Evaluates the rules on each batch of resources, off the request thread. */
  evaluation: Pick<EvaluationPool, 'scanBatch'>;
  /** Called once a scan has succeeded, with the events it recorded (notifications hang off this). */
  afterScan?: (scan: Scan, events: readonly Event[]) => Promise<void>;
}

const PAGE = 1000;
/** Scanned resources written per statement batch; small enough that one write holds the request thread ~2 ms. */
const WRITE_SLICE = 100;

/** The cloud account a scan surveys, and how. */
export function surveyScope(env: Environment): SurveyScope {
  const access = env.access;
  if (access.kind === 'subscription') {
    const groups = env.surveyResourceGroups ?? [ALL];
    return {
      provider: env.provider,
      account: access.subscriptionId,
      regions: '*',
      resourceGroups: groups.includes(ALL) ? '*' : groups,
      types: env.surveyResourceTypes,
    };
  }
  const regions = access.regions ?? (access.region ? [access.region] : [ALL]);
  return {
    provider: env.provider,
    account: parseRoleArn(access.roleArn)!.account,
    regions: regions.includes(ALL) ? '*' : regions,
    types: env.surveyResourceTypes,
  };
}

/** A batch of listed resources whose rules are being evaluated in the worker threads. */
interface BatchInFlight {
  resources: ResourceDocument[];
  /** The resources as JSON text, as the worker threads read them and the results store them. */
  documents: string[];
  evaluation: Promise<ScanBatchEvaluation>;
}

/** Counters kept while resources stream by; the results themselves go to the database batch by batch. */
class Tally {
  readonly ruleEvaluated = new Map<string, number>();
  readonly ruleFailed = new Map<string, number>();
  readonly types = new Map<string, TypeResult>();
  readonly familyEvaluated = new Map<string, number>();
  readonly familyNoncompliant = new Map<string, number>();
  total = 0;
  noncompliant = 0;

  static bump(map: Map<string, number>, key: string): void {
    map.set(key, (map.get(key) ?? 0) + 1);
  }
}

/**
 * Runs one scan: lists the environment's inventory, evaluates the families' rules on every resource, stores the
 * results per resource and failing rule, then compares with the baseline (DRIFT events, and REMEDIATION when
 * enforcement is on) and with the previous successful scan (COMPLIANCE events). Memory stays bounded: resources
 * stream through in batches, and comparisons walk both scans in resource-id order page by page.
 */
export class ScanRunner {
  constructor(private readonly deps: ScanRunnerDeps) {}

  /**
   * `heartbeat` extends the job's lease (false once another worker took the job over). It is called before every
   * write: a worker whose lease ran out while it was busy stops there, so it never writes over the new holder's
   * work nor records an outcome of its own. `signal` is aborted when the worker stops: the scan stops at its next
   * batch or page, records nothing, not even a failure, and is handed to another worker.
   */
  async run(orgId: string, scanId: string, heartbeat: () => Promise<boolean> = async () => true, signal?: AbortSignal): Promise<void> {
    const lease = () => holdLease(heartbeat, `scan ${scanId}`);
    const { scans, environments, clock } = this.deps;
    const scan = await scans.get(orgId, scanId);
    if (!scan) return;
    const env = await environments.get(orgId, scan.environmentId);
    if (!env) return; // deleted meanwhile; its scans went with it
    if (scan.status !== 'IN_PROGRESS') {
      // A job retried after its scan was recorded as finished (the process died just after): only the work that
      // follows may be missing, and it is safe to do again. Left undone, the environment would show the scan in
      // progress for good, and its schedule would never start another.
      if (env.lastScanId === scan.id && env.scanStatus === 'IN_PROGRESS') {
        await environments.recordScan(env.id, { scanId: scan.id, startedAt: scan.createdAt, status: scan.status, finishedAt: scan.finishedAt ?? clock.nowSeconds() });
      }
      if (scan.status === 'SUCCESS') await this.deps.afterScan?.(scan, await this.deps.events.ofScan(scan.id));
      return;
    }
    try {
      // A scan that was interrupted and is run again starts from a clean slate.
      await lease();
      await this.deps.results.clear(scan.id);
      await this.deps.events.clearScan(scan.id);
      const rules = await this.deps.rules.rulesFor(env.orgId, env.provider, scan.families);
      const { summary, typeErrors } = await this.collect(env, scan, rules, lease, signal);
      const events: Event[] = [];
      let remediationError = false;
      if (env.baselineId !== null && env.baselineId !== scan.id) {
        const drift = await this.drift(env, scan, env.baselineId, typeErrors, signal);
        events.push(...drift.events);
        remediationError = drift.remediationError;
      }
      events.push(...(await this.complianceChanges(env, scan, rules, signal)));
      await lease();
      await this.deps.events.insertMany(events);
      await lease();
      const finishedAt = clock.nowSeconds();
      await scans.update({
        ...scan,
        status: 'SUCCESS',
        summary,
        resourceTypeErrors: typeErrors,
        remediationError,
        finishedAt,
        updatedAt: finishedAt,
      });
      await environments.recordScan(env.id, { scanId: scan.id, startedAt: scan.createdAt, status: 'SUCCESS', finishedAt });
      await this.deps.afterScan?.({ ...scan, status: 'SUCCESS', finishedAt }, events);
    } catch (error) {
      // Whatever stopping the worker made fail (its database, its evaluation threads) is no fault of the scan; nor is
      // a database that could not serve for a moment: the job is retried, and the scan ends ERROR only once the
      // queue gives its last attempt up.
      if (error instanceof LeaseLostError || signal?.aborted || (error instanceof AppError && error.code === 'unavailable')) throw error;
      await this.fail(scan, env.id, error instanceof Error ? error.message : String(error));
    }
  }

  /**
   * The queue gave the scan's job up: a scan still in progress ends ERROR with the reason, and its environment
   * takes a new scan at once. One that already ended is left as it is, its environment brought up to date.
   */
  async giveUp(orgId: string, scanId: string, reason: string): Promise<void> {
    const scan = await this.deps.scans.get(orgId, scanId);
    if (!scan) return;
    if (scan.status === 'IN_PROGRESS') return this.fail(scan, scan.environmentId, `the scan was given up: ${reason}`);
    const env = await this.deps.environments.get(orgId, scan.environmentId);
    if (env && env.lastScanId === scan.id && env.scanStatus === 'IN_PROGRESS') {
      await this.deps.environments.recordScan(env.id, { scanId: scan.id, startedAt: scan.createdAt, status: scan.status, finishedAt: scan.finishedAt ?? this.deps.clock.nowSeconds() });
    }
  }

  /**
   * Marks a scan still in progress ERROR; the schedule restarts from now, as after any scan that ends. One that
   * ended meanwhile keeps its outcome: the scheduler, settling a scan whose job failed, may have read it in progress
   * just before the job's give-up settled it with its own message.
   */
  async fail(scan: Scan, environmentId: string, message: string): Promise<void> {
    if ((await this.deps.scans.get(scan.orgId, scan.id))?.status !== 'IN_PROGRESS') return;
    const now = this.deps.clock.nowSeconds();
    await this.deps.scans.update({ ...scan, status: 'ERROR', message, finishedAt: now, updatedAt: now });
    await this.deps.environments.recordScan(environmentId, { scanId: scan.id, startedAt: scan.createdAt, status: 'ERROR', finishedAt: now });
  }

  private async collect(env: Environment, scan: Scan, rules: ActiveRule[], lease: () => Promise<void>, signal?: AbortSignal) {
    const familyTypes = new Map<string, Set<string>>();
    for (const rule of rules) for (const family of rule.families) for (const type of rule.resourceTypes) {
      if (!familyTypes.has(family)) familyTypes.set(family, new Set());
      familyTypes.get(family)!.add(type);
    }

    // Rules cross to the worker threads as their text; each type lists the indexes of the rules that apply to it.
    const specs = rules.map((rule) => ({ expression: rule.compiled.expression, budget: rule.compiled.budget }));
    const ruleIndexesByType: Record<string, number[]> = {};
    for (const [index, rule] of rules.entries()) for (const type of rule.resourceTypes) (ruleIndexesByType[type] ??= []).push(index);

    const tally = new Tally();
    const typeErrors: ResourceTypeError[] = [];
    // Two batches at a time: while the worker threads evaluate one, the request thread writes the results of the
    // one before and reads the next, so neither waits on the other.
    let inFlight: BatchInFlight | null = null;
    for await (const batch of this.deps.cloud.listResources(surveyScope(env))) {
      if (batch.kind === 'type-error') {
        typeErrors.push({ resourceType: batch.type, message: batch.message });
        continue;
      }
      // Reading the page held the request thread (SQLite reads synchronously): let waiting requests in first.
      await yieldToEventLoop();
      signal?.throwIfAborted();
      const documents = batch.resources.map((document) => JSON.stringify(document));
      const evaluation = this.deps.evaluation.scanBatch(specs, ruleIndexesByType, documents);
      // Awaited once the batch before is written; until then a failure must not count as unhandled.
      evaluation.catch(() => undefined);
      if (inFlight) await this.record(scan.id, rules, familyTypes, tally, inFlight, lease);
      inFlight = { resources: batch.resources, documents, evaluation };
    }
    if (inFlight) await this.record(scan.id, rules, familyTypes, tally, inFlight, lease);

    const surveyed = new Set(env.surveyResourceTypes);
    const unlisted = new Set(typeErrors.map((e) => e.resourceType));
    const ruleResults: RuleResult[] = rules.map((rule) => {
      const unsurveyedTypes = rule.resourceTypes.filter((t) => !surveyed.has(t) || unlisted.has(t));
      const failed = tally.ruleFailed.get(rule.id) ?? 0;
      return {
        ruleId: rule.id,
        rule: ruleInfo(rule),
        result: failed > 0 ? 'FAIL' : unsurveyedTypes.length > 0 ? 'UNKNOWN' : 'PASS',
        evaluated: tally.ruleEvaluated.get(rule.id) ?? 0,
        failed,
        unsurveyedTypes,
        missingTypes: [],
      };
    });
    await lease();
    await this.deps.results.saveAggregates(scan.id, ruleResults, [...tally.types.values()]);

    const resultOf = new Map(ruleResults.map((r) => [r.ruleId, r.result]));
    const families: FamilySummary[] = scan.families.map((family) => {
      const familyRules = rules.filter((r) => r.families.includes(family));
      const evaluated = tally.familyEvaluated.get(family) ?? 0;
      const noncompliant = tally.familyNoncompliant.get(family) ?? 0;
      return {
        family,
        compliant: evaluated - noncompliant,
        noncompliant,
        rulesPassed: familyRules.filter((r) => resultOf.get(r.id) === 'PASS').length,
        rulesFailed: familyRules.filter((r) => resultOf.get(r.id) === 'FAIL').length,
      };
    });
    const summary: ResourceSummary = {
      total: tally.total,
      compliant: tally.total - tally.noncompliant,
      noncompliant: tally.noncompliant,
      resourceTypes: tally.types.size,
      rulesPassed: ruleResults.filter((r) => r.result === 'PASS').length,
      rulesFailed: ruleResults.filter((r) => r.result === 'FAIL').length,
      families,
    };
    return { summary, typeErrors };
  }

  /** Counts a batch's outcomes and writes its results, a slice at a time. */
  private async record(scanId: string, rules: ActiveRule[], familyTypes: Map<string, Set<string>>, tally: Tally, batch: BatchInFlight, lease: () => Promise<void>): Promise<void> {
    const { misses, evaluated } = await batch.evaluation;
    const failedRules = new Array<number>(batch.documents.length).fill(0);
    const failedFamilies = new Map<number, Set<string>>();
    const findings: Finding[] = [];
    for (const [index, count] of evaluated.entries()) if (count > 0) tally.ruleEvaluated.set(rules[index]!.id, (tally.ruleEvaluated.get(rules[index]!.id) ?? 0) + count);
    for (const miss of misses) {
      const rule = rules[miss.rule]!;
      const document = batch.resources[miss.document]!;
      failedRules[miss.document]! += 1;
      Tally.bump(tally.ruleFailed, rule.id);
      const families = failedFamilies.get(miss.document) ?? new Set<string>();
      for (const family of rule.families) families.add(family);
      failedFamilies.set(miss.document, families);
      findings.push({
        ruleId: rule.id,
        resourceId: document.id,
        resourceType: document.type,
        result: miss.result,
        message: miss.result === 'FAIL' ? rule.message : `the rule could not be evaluated: ${miss.message}`,
      });
    }
    const resources: ScannedResource[] = batch.resources.map((document, index) => {
      const failed = failedRules[index]!;
      tally.total += 1;
      if (failed > 0) tally.noncompliant += 1;
      const typeResult = tally.types.get(document.type) ?? { resourceType: document.type, total: 0, noncompliant: 0 };
      typeResult.total += 1;
      if (failed > 0) typeResult.noncompliant += 1;
      tally.types.set(document.type, typeResult);
      for (const [family, types] of familyTypes) {
        if (!types.has(document.type)) continue;
        Tally.bump(tally.familyEvaluated, family);
        if (failedFamilies.get(index)?.has(family)) Tally.bump(tally.familyNoncompliant, family);
      }
      return { resourceId: document.id, resourceType: document.type, document: batch.documents[index]!, failedRules: failed };
    });
    // A slice at a time, letting waiting requests in between: on SQLite every write completes synchronously,
    // holding the request thread for as long as it takes.
    await lease();
    for (let start = 0; start < resources.length; start += WRITE_SLICE) {
      const slice = resources.slice(start, start + WRITE_SLICE);
      const ids = new Set(slice.map((r) => r.resourceId));
      await this.deps.results.addBatch(scanId, slice, findings.filter((f) => ids.has(f.resourceId)));
      await yieldToEventLoop();
    }
  }

  /**
   * DRIFT: every resource added, modified or removed since the baseline, with attribute-level changes. With
   * enforcement on (provider_a and provider_a_gov), each drifted resource of the types to correct is brought back
   * to its baseline state in the cloud, and the attempt recorded as a REMEDIATION event.
   */
  private async drift(env: Environment, scan: Scan, baselineId: string, typeErrors: ResourceTypeError[], signal?: AbortSignal) {
    const unlisted = new Set(typeErrors.map((e) => e.resourceType));
    // Only types listed in this scan are compared: an unlisted type would look as if all its resources were removed.
    const types = env.surveyResourceTypes.filter((t) => !unlisted.has(t));
    const correctable = new Set(env.remediateResourceTypes.length > 0 ? env.remediateResourceTypes : env.surveyResourceTypes);
    const enforce = env.remediation && usesRoles(env.provider);
    const account = surveyScope(env).account;
    const events: Event[] = [];
    let remediationError = false;
    const now = this.deps.clock.nowSeconds();

    for await (const [before, after] of this.pairResources(baselineId, scan.id, types)) {
      signal?.throwIfAborted();
      if (before?.document === after?.document) continue;
      const oldDocument = before ? (JSON.parse(before.document) as ResourceDocument) : null;
      const newDocument = after ? (JSON.parse(after.document) as ResourceDocument) : null;
      const change: Change = !before ? 'ADDED' : !after ? 'REMOVED' : 'MODIFIED';
      const resourceDiff = {
        resourceId: (before ?? after)!.resourceId,
        resourceType: (before ?? after)!.resourceType,
        change,
        attributes: diffAttributes(oldDocument, newDocument),
      };
      if (change === 'MODIFIED' && resourceDiff.attributes.length === 0) continue;
      const base = { orgId: env.orgId, environmentId: env.id, scanId: scan.id, createdAt: now };
      events.push({ ...base, id: newId(), eventType: 'DRIFT', resourceDiff });
      if (!enforce || !correctable.has(resourceDiff.resourceType)) continue;
      const outcome = await this.deps.cloud.restoreResource(env.provider, account, resourceDiff.resourceId, oldDocument);
      if (!outcome.ok) remediationError = true;
      events.push({ ...base, id: newId(), eventType: 'REMEDIATION', resourceDiff, remediated: outcome.ok, error: outcome.ok ? null : outcome.message });
    }
    return { events, remediationError };
  }

  /**
   * Pairs the resources of two scans by id: [in the first, in the second], either side missing when the resource
   * is in one scan only. Walks each scan page by page and looks the page's ids up in the other, so memory stays
   * bounded and no ordering has to agree between JavaScript and the database's collation.
   */
  private async *pairResources(firstScan: string, secondScan: string, types: readonly string[]) {
    const results = this.deps.results;
    for await (const page of pages<ScannedResource, string>((after) => results.resourcesPage(secondScan, after, PAGE, types), (r) => r.resourceId)) {
      const others = await results.resourcesByIds(firstScan, page.map((r) => r.resourceId));
      for (const resource of page) yield [others.get(resource.resourceId), resource] as const;
    }
    for await (const page of pages<ScannedResource, string>((after) => results.resourcesPage(firstScan, after, PAGE, types), (r) => r.resourceId)) {
      const others = await results.resourcesByIds(secondScan, page.map((r) => r.resourceId));
      for (const resource of page) if (!others.has(resource.resourceId)) yield [resource, undefined] as const;
    }
  }

  /**
   * COMPLIANCE: resources present in both this scan and the previous successful one whose result for a rule
   * changed (PASS to FAIL or back), one event per resource listing the rules that changed.
   */
  private async complianceChanges(env: Environment, scan: Scan, rules: ActiveRule[], signal?: AbortSignal): Promise<Event[]> {
    const previous = await this.deps.scans.previousSuccess(env.orgId, env.id, scan.createdAt, scan.id);
    if (!previous) return [];
    const [before, after] = await Promise.all([this.deps.results.ruleResults(previous.id), this.deps.results.ruleResults(scan.id)]);
    const evaluatedBefore = new Set(before.filter((r) => r.evaluated > 0).map((r) => r.ruleId));
    const evaluatedNow = new Set(after.filter((r) => r.evaluated > 0).map((r) => r.ruleId));
    const ruleById = new Map(rules.map((r) => [r.id, r]));

    const changes = new Map<string, { resourceType: string; rules: RuleChange[]; states: [string | null, string | null] }>();
    const state = (resource: ScannedResource | undefined) => (resource ? (resource.failedRules > 0 ? 'NONCOMPLIANT' : 'COMPLIANT') : null);
    const results = this.deps.results;
    const key = (f: Finding) => `${f.resourceId}\u0000${f.ruleId}`;

    // A finding in one scan and not the other is a rule whose result changed, if the resource is in both scans
    // (a resource that came or went is drift) and the rule was evaluated in both.
    const walk = async (fromScan: string, toScan: string, failedBefore: boolean) => {
      for await (const page of pages<Finding, { resourceId: string; ruleId: string }>((after) => results.findingsPage(fromScan, after, PAGE), (f) => ({ resourceId: f.resourceId, ruleId: f.ruleId }))) {
        signal?.throwIfAborted();
        const ids = [...new Set(page.map((f) => f.resourceId))];
        const [counterparts, here, there] = await Promise.all([
          results.findingsOfResources(toScan, ids),
          results.resourcesByIds(fromScan, ids),
          results.resourcesByIds(toScan, ids),
        ]);
        const matched = new Set(counterparts.map(key));
        for (const finding of page) {
          const rule = ruleById.get(finding.ruleId);
          if (matched.has(key(finding)) || !there.has(finding.resourceId) || !rule) continue;
          if (!evaluatedBefore.has(rule.id) || !evaluatedNow.has(rule.id)) continue;
          const [oldResource, newResource] = failedBefore ? [here.get(finding.resourceId), there.get(finding.resourceId)] : [there.get(finding.resourceId), here.get(finding.resourceId)];
          const entry = changes.get(finding.resourceId) ?? { resourceType: finding.resourceType, rules: [], states: [state(oldResource), state(newResource)] };
          entry.rules.push({
            ruleId: rule.id,
            summary: rule.title,
            families: rule.families,
            controls: rule.controls.map((c) => c.id),
            oldState: failedBefore ? 'FAIL' : 'PASS',
            newState: failedBefore ? 'PASS' : 'FAIL',
            oldMessage: failedBefore ? finding.message : null,
            newMessage: failedBefore ? null : finding.message,
          });
          changes.set(finding.resourceId, entry);
        }
      }
    };
    await walk(previous.id, scan.id, true);
    await walk(scan.id, previous.id, false);

    const now = this.deps.clock.nowSeconds();
    return [...changes].map(([resourceId, change]) => {
      const complianceDiff: ComplianceDiff = {
        resourceId,
        resourceType: change.resourceType,
        oldState: change.states[0] as ComplianceDiff['oldState'],
        newState: change.states[1] as ComplianceDiff['newState'],
        rules: change.rules,
      };
      return { id: newId(), orgId: env.orgId, environmentId: env.id, scanId: scan.id, eventType: 'COMPLIANCE' as const, createdAt: now, complianceDiff };
    });
  }
}

/**
 * Keyset pages of a list until it runs out: `fetch(after)` returns the page after the given position. Waiting
 * requests get their turn between pages (the consumer's work on a page is bounded by the page's size).
 */
async function* pages<T, K>(fetch: (after: K | null) => Promise<T[]>, position: (item: T) => K): AsyncIterable<T[]> {
  let after: K | null = null;
  for (;;) {
    const page = await fetch(after);
    if (page.length > 0) yield page;
    if (page.length < PAGE) return;
    after = position(page[page.length - 1]!);
    await yieldToEventLoop();
  }
}
