import type { Clock } from '../clock.js';
import { isSupportedType } from '../cloud/catalog.js';
import type { Provider } from '../cloud/providers.js';
import { AppError } from '../errors.js';
import { newId } from '../ids.js';
import { atMost, DEFAULT_QUOTAS, upTo, type SizeAdmission } from '../quotas.js';
import { compileRule, type CompiledRule, type RuleOutcome } from '../rules/engine.js';
import type { EvaluationPool } from '../rules/evaluation-pool.js';
import type { ActiveRule } from '../scans/rule-set.js';
import type { Scan, ScannedResource } from '../scans/types.js';
import { yieldToEventLoop } from '../yield.js';
import type {
  ApiClientRepository,
  CustomRuleRepository,
  EnvironmentRepository,
  Page,
  PageRequest,
  RuleTestOutputRepository,
  ScanRepository,
  ScanResultRepository,
} from '../repositories.js';
import {
  DEFAULT_SEVERITY,
  PROVIDER_OF_ENVIRONMENT,
  checkFamilies,
  checkName,
  checkSeverity,
  compileText,
  controlId,
  resolveProviders,
  typeStillSupported,
} from './checks.js';
import { lintRule } from './lint.js';
import type {
  Author,
  CreateCustomRuleInput,
  CustomRule,
  CustomRuleFilter,
  CustomRuleStatus,
  CustomRuleWithWarnings,
  KeptRuleTestOutput,
  RuleTestInput,
  RuleTestResult,
  TestedResource,
  UpdateCustomRuleInput,
} from './types.js';

/** Rule tests list at most this many resources (and the input at most this many documents). */
export const MAX_TEST_RESOURCES = 1000;
/**
 * How long, and how many per organization, the answers of tests asked `via_download` are kept for their download:
 * long enough to fetch what was just asked for, and at most 20 answers of 1 000 resources each per organization.
 */
export const KEPT_TEST_OUTPUT_SECONDS = 3600;
export const KEPT_TEST_OUTPUTS_PER_ORGANIZATION = 20;
const PAGE = 1000;
const COMPILED_CACHE_SIZE = 1000;

export interface CustomRuleServiceDeps {
  rules: CustomRuleRepository;
  /** Answers of tests kept for download. */
  testOutputs: RuleTestOutputRepository;
  scans: ScanRepository;
  environments: EnvironmentRepository;
  results: ScanResultRepository;
  apiClients: ApiClientRepository;
  clock: Clock;
  /** Evaluates rule tests off the request thread. */
  evaluation: Pick<EvaluationPool, 'test'>;
  /** Custom rules one organization may have (MAX_CUSTOM_RULES_PER_ORG); DEFAULT_QUOTAS.customRules unless set. */
  quota?: number;
  /**
   * Characters of rule text one organization's rules may hold together (MAX_CUSTOM_RULE_TEXT_PER_ORG);
   * DEFAULT_QUOTAS.customRuleText unless set. It bounds the text every scan of the organization compiles and runs.
   */
  textQuota?: number;
}

/** The engine reports a field the document lacks this way; for a test that is UNKNOWN rather than an error. */
const MISSING_FIELD = /^No such key/;

/**
 * Custom rules (product.md §4): an organization's own CEL rules, checked on every write, tested against the
 * resources a scan stored, and handed to scans beside the built-in catalog (`activeRules`).
 */
export class CustomRuleService {
  /** Scans and result queries compile the enabled rules each time; the compiled form is kept by text. */
  private readonly compiled = new Map<string, CompiledRule | null>();

  constructor(private readonly deps: CustomRuleServiceDeps) {}

  list(orgId: string, filter: CustomRuleFilter, page: PageRequest): Promise<Page<CustomRule>> {
    return this.deps.rules.list(orgId, filter, page);
  }

  async get(orgId: string, id: string): Promise<CustomRule> {
    const rule = await this.deps.rules.get(orgId, id);
    if (!rule) throw AppError.notFound('custom rule', id);
    return rule;
  }

  async create(orgId: string, clientId: string, input: CreateCustomRuleInput): Promise<CustomRuleWithWarnings> {
    if (input.source !== undefined && input.source !== 'CUSTOM') throw AppError.invalid('source', 'must be CUSTOM');
    const name = checkName(input.name);
    const providers = resolveProviders(input.resource_type, input.providers, input.provider);
    const families = checkFamilies(input.families ?? [], providers);
    const severity = input.severity === undefined ? DEFAULT_SEVERITY : checkSeverity(input.severity);
    compileText('rule_text', input.rule_text);
    const author = await this.author(clientId);
    const now = this.deps.clock.nowSeconds();
    const rule: CustomRule = {
      id: newId(),
      orgId,
      name,
      description: input.description ?? '',
      providers,
      resourceType: input.resource_type,
      ruleText: input.rule_text,
      severity,
      status: 'ENABLED',
      families,
      createdAt: now,
      createdBy: author,
      updatedAt: now,
      updatedBy: author,
    };
    const admit = { rules: upTo('customRules', this.deps.quota ?? DEFAULT_QUOTAS.customRules, 'this organization'), text: this.textAdmission() };
    if (!(await this.deps.rules.insert(rule, admit))) throw new AppError('conflict', `name: a custom rule named '${name}' already exists`);
    return { rule, warnings: lintRule(rule.ruleText) };
  }

  /** PATCH semantics; the rule as it ends up is checked as a whole, as on create. */
  async update(orgId: string, clientId: string, id: string, input: UpdateCustomRuleInput): Promise<CustomRuleWithWarnings> {
    const author = await this.author(clientId);
    const now = this.deps.clock.nowSeconds();
    const next = await this.deps.rules.modify(orgId, id, (current) => {
      const resourceType = input.resource_type ?? current.resourceType;
      const providers =
        input.providers !== undefined || input.resource_type !== undefined
          ? resolveProviders(resourceType, input.providers ?? current.providers)
          : current.providers;
      const ruleText = input.rule_text ?? current.ruleText;
      compileText('rule_text', ruleText);
      return {
        ...current,
        name: input.name === undefined ? current.name : checkName(input.name),
        description: input.description ?? current.description,
        providers,
        resourceType,
        ruleText,
        severity: input.severity === undefined ? current.severity : checkSeverity(input.severity),
        families: checkFamilies(input.families ?? current.families, providers),
        // The rule now compiles and its type is supported, so an INVALID rule runs again unless told otherwise.
        status: input.status === undefined ? (current.status === 'INVALID' ? 'ENABLED' : current.status) : checkStatus(input.status),
        updatedAt: now,
        updatedBy: author,
      };
    }, this.textAdmission());
    if (!next) throw AppError.notFound('custom rule', id);
    if (next === 'name_taken') throw new AppError('conflict', `name: a custom rule named '${input.name ?? ''}' already exists`);
    return { rule: next, warnings: lintRule(next.ruleText) };
  }

  private textAdmission(): SizeAdmission {
    return atMost('customRuleText', this.deps.textQuota ?? DEFAULT_QUOTAS.customRuleText, 'this organization');
  }

  async delete(orgId: string, id: string): Promise<void> {
    if (!(await this.deps.rules.delete(orgId, id))) throw AppError.notFound('custom rule', id);
  }

  /**
   * The documents a rule of `resourceType` sees in the scan, by resource id, at most MAX_TEST_RESOURCES of them;
   * with no type (null), those of every type of the scan, under the same bound.
   */
  async testInput(orgId: string, scanId: string, resourceType: string | null): Promise<RuleTestInput> {
    await this.testableScan(orgId, scanId, resourceType);
    const types = resourceType === null ? undefined : [resourceType];
    const page = await this.deps.results.resourcesPage(scanId, null, MAX_TEST_RESOURCES + 1, types);
    return {
      scanId,
      resourceType,
      documents: page.slice(0, MAX_TEST_RESOURCES).map((r) => JSON.parse(r.document) as unknown),
      isTruncated: page.length > MAX_TEST_RESOURCES,
    };
  }

  /**
   * Evaluates a rule text, unsaved, on every resource of the type in the scan, page by page so that memory stays
   * bounded; the overall result covers them all, the answer lists the first MAX_TEST_RESOURCES.
   */
  /**
   * Evaluates a rule text on the scan's resources of a type. With `keep`, the answer is also kept for its download
   * (`testOutput`), under the id the result carries.
   */
  async test(orgId: string, input: { scan_id: string; rule_text: string; resource_type: string }, { keep = false } = {}): Promise<RuleTestResult & { outputId?: string }> {
    const rule = compileText('rule_text', input.rule_text);
    const scan = await this.testableScan(orgId, input.scan_id, input.resource_type);
    const listed: TestedResource[] = [];
    const seen = { PASS: 0, FAIL: 0, UNKNOWN: 0, ERROR: 0 };
    let after: string | null = null;
    for (;;) {
      const page = await this.deps.results.resourcesPage(input.scan_id, after, PAGE, [input.resource_type]);
      // The rule runs in a worker thread, which compiles it again from its text and budget.
      const outcomes = await this.deps.evaluation.test(
        { expression: rule.expression, budget: rule.budget },
        page.map((resource) => resource.document),
      );
      for (const [index, outcome] of outcomes.entries()) {
        const tested = testedResource(page[index]!, outcome);
        seen[tested.result] += 1;
        if (listed.length < MAX_TEST_RESOURCES) listed.push(tested);
      }
      if (page.length < PAGE) break;
      after = page[page.length - 1]!.resourceId;
      await yieldToEventLoop();
    }
    const count = seen.PASS + seen.FAIL + seen.UNKNOWN + seen.ERROR;
    const result: TestedResource['result'] =
      seen.ERROR > 0 ? 'ERROR' : seen.FAIL > 0 ? 'FAIL' : seen.UNKNOWN > 0 || count === 0 ? 'UNKNOWN' : 'PASS';
    const tested: RuleTestResult = { result, resourceCount: count, resources: listed, warnings: lintRule(input.rule_text) };
    if (!keep) return tested;
    const now = this.deps.clock.nowSeconds();
    const kept = { id: newId(), orgId, environmentId: scan.environmentId, createdAt: now, result: tested };
    await this.deps.testOutputs.keep(kept, now - KEPT_TEST_OUTPUT_SECONDS, KEPT_TEST_OUTPUTS_PER_ORGANIZATION);
    return { ...tested, outputId: kept.id };
  }

  /** A test's answer kept for its download: the organization's, and no older than KEPT_TEST_OUTPUT_SECONDS. */
  async testOutput(orgId: string, id: string): Promise<KeptRuleTestOutput> {
    const kept = await this.deps.testOutputs.get(orgId, id, this.deps.clock.nowSeconds() - KEPT_TEST_OUTPUT_SECONDS);
    if (!kept) throw AppError.notFound('rule test output', id);
    return kept;
  }

  /**
   * The RuleSource extension: the organization's ENABLED rules of the provider, as one scan evaluates them. A
   * rule is reported under `<FAMILY> CUSTOM <name>` in each of its families the scan evaluates, or in every family
   * of the scan when it names none. A rule that can no longer run is marked INVALID and left out.
   */
  readonly activeRules = async (orgId: string, provider: Provider, families: readonly string[]): Promise<ActiveRule[]> => {
    const active: ActiveRule[] = [];
    for (const rule of await this.deps.rules.enabledFor(orgId, PROVIDER_OF_ENVIRONMENT[provider])) {
      const compiled = this.compile(rule);
      if (!compiled) {
        await this.deps.rules.markInvalid(orgId, rule.id, rule.ruleText);
        continue;
      }
      const ruleFamilies = rule.families.length > 0 ? rule.families.filter((f) => families.includes(f)) : [...families];
      if (ruleFamilies.length === 0) continue;
      active.push({
        id: rule.id,
        title: rule.name,
        severity: rule.severity,
        message: rule.description || `Custom rule ${rule.name} failed`,
        resourceTypes: [rule.resourceType],
        compiled,
        controls: ruleFamilies.map((family) => ({ id: controlId(family, rule.name), family, title: rule.name })),
        families: ruleFamilies,
      });
    }
    return active;
  };

  /** The compiled rule, or null when it can no longer run (its text stopped compiling or its type went away). */
  private compile(rule: CustomRule): CompiledRule | null {
    if (!typeStillSupported(rule.resourceType, rule.providers)) return null;
    let compiled = this.compiled.get(rule.ruleText);
    if (compiled === undefined) {
      try {
        compiled = compileRule(rule.ruleText);
      } catch {
        compiled = null;
      }
      if (this.compiled.size >= COMPILED_CACHE_SIZE) this.compiled.clear();
      this.compiled.set(rule.ruleText, compiled);
    }
    return compiled;
  }

  /** A scan of the organization that succeeded, whose provider supports the type. */
  private async testableScan(orgId: string, scanId: string, resourceType: string | null): Promise<Scan> {
    const field = 'scan_id';
    const scan = await this.deps.scans.get(orgId, scanId);
    if (!scan) throw new AppError('not_found', `${field}: scan ${scanId} not found`);
    if (scan.status !== 'SUCCESS') {
      throw AppError.invalid(field, `scan ${scanId} has status ${scan.status}; only a SUCCESS scan holds the resources to test against`);
    }
    const env = await this.deps.environments.get(orgId, scan.environmentId);
    if (!env) throw new AppError('not_found', `${field}: scan ${scanId} not found`);
    if (resourceType !== null && !isSupportedType(env.provider, resourceType)) {
      throw AppError.invalid('resource_type', `'${resourceType}' is not a supported resource type of ${env.provider}, the provider of scan ${scanId}`);
    }
    return scan;
  }

  private async author(clientId: string): Promise<Author> {
    const client = await this.deps.apiClients.get(clientId);
    return { id: clientId, name: client?.name ?? clientId };
  }
}

function checkStatus(value: string): Exclude<CustomRuleStatus, 'INVALID'> {
  if (value === 'ENABLED' || value === 'DISABLED') return value;
  throw AppError.invalid('status', 'must be ENABLED or DISABLED');
}

/** A rule over its evaluation budget on any resource is refused as a whole: its other results would mislead. */
function testedResource(resource: ScannedResource, outcome: RuleOutcome): TestedResource {
  if (outcome.result === 'ERROR' && outcome.overBudget) throw AppError.invalid('rule_text', `${outcome.message} on resource ${resource.resourceId}`);
  const base = { id: resource.resourceId, type: resource.resourceType };
  if (outcome.result !== 'ERROR') return { ...base, result: outcome.result, message: null };
  return { ...base, result: MISSING_FIELD.test(outcome.message) ? 'UNKNOWN' : 'ERROR', message: outcome.message };
}
