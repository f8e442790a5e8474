import type { Clock } from '../clock.js';
import { AppError } from '../errors.js';
import { newId } from '../ids.js';
import { DEFAULT_QUOTAS, upTo } from '../quotas.js';
import { resourceTypesOf } from '../cloud/catalog.js';
import { ALL, parseRoleArn, usesRoles, type Provider } from '../cloud/providers.js';
import type {
  EnvironmentRepository,
  Page,
  PageRequest,
  ScanRepository,
  SortDirection,
} from '../repositories.js';
import {
  DEFAULT_SCAN_INTERVAL,
  REGIONS_EDITABLE_SINCE,
  checkFamilies,
  checkName,
  checkOptionKeys,
  checkRegions,
  checkRemediateTypes,
  checkResourceGroups,
  checkResourceTypes,
  checkRoleArn,
  parseProvider,
  parseScanInterval,
  parseScheduleEnabled,
} from './rules.js';
import { driftEnabled } from './types.js';
import type {
  CreateEnvironmentInput,
  Environment,
  EnvironmentFilter,
  EnvironmentOrder,
  ProviderAccess,
  ProviderOptionsInput,
  RoleAccess,
  RoleOptionsInput,
  SubscriptionAccess,
  SubscriptionOptionsInput,
  UpdateEnvironmentInput,
} from './types.js';

export interface EnvironmentServiceDeps {
  environments: EnvironmentRepository;
  scans: ScanRepository;
  clock: Clock;
  /** Environments one organization may have (MAX_ENVIRONMENTS_PER_ORG); DEFAULT_QUOTAS.environments unless set. */
  quota?: number;
}

/** The environment use cases: every rule of seed 000 §2.2, §3.2, §4 and product.md §5 is enforced here. */
export class EnvironmentService {
  constructor(private readonly deps: EnvironmentServiceDeps) {}

  list(
    orgId: string,
    page: PageRequest,
    order: { by: EnvironmentOrder; direction: SortDirection },
    filter: EnvironmentFilter,
  ): Promise<Page<Environment>> {
    return this.deps.environments.list(orgId, page, order, filter);
  }

  async get(orgId: string, id: string): Promise<Environment> {
    const env = await this.deps.environments.get(orgId, id);
    if (!env) throw AppError.notFound('environment', id);
    return env;
  }

  /**
   * The version of what GET one environment shows (the environment and the summary of its latest successful scan),
   * as the database keeps it: drawn anew at every write of the environment or of one of its scans, whoever writes.
   * Undefined when the organization has no such environment.
   */
  version(orgId: string, id: string): Promise<number | undefined> {
    return this.deps.environments.version(orgId, id);
  }

  /**
   * The version of what a page of the organization's environments shows, as the database keeps it: drawn anew at
   * every write of one of its environments (created, changed, deleted, a scan starting or ending), whoever writes.
   */
  listVersion(orgId: string): Promise<number> {
    return this.deps.environments.listVersion(orgId);
  }

  async create(orgId: string, input: CreateEnvironmentInput): Promise<Environment> {
    const provider = parseProvider(input.provider);
    const optionKeys = Object.keys(input.provider_options ?? {});
    if (optionKeys.length === 0) throw AppError.missing(`provider_options.${provider}`);
    checkOptionKeys(provider, optionKeys);

    const access = newAccess(provider, input.provider_options);
    const surveyResourceTypes =
      input.survey_resource_types === undefined
        ? resourceTypesOf(provider).map((t) => t.type)
        : checkResourceTypes(provider, 'survey_resource_types', input.survey_resource_types);
    const now = this.deps.clock.nowSeconds();
    const env: Environment = {
      id: newId(),
      orgId,
      name: checkName(input.name),
      provider,
      access,
      complianceFamilies: checkFamilies(provider, input.compliance_families ?? []),
      surveyResourceTypes,
      surveyResourceGroups: resourceGroups(provider, input.survey_resource_groups, input.provider_options.provider_b) ?? (provider === 'provider_b' ? [ALL] : null),
      remediateResourceTypes: checkRemediateTypes(provider, input.remediate_resource_types ?? [], surveyResourceTypes),
      baselineId: newBaseline(input.baseline_id),
      remediation: remediationOf(provider, input.remediation) ?? false,
      scanInterval: input.scan_interval === undefined ? DEFAULT_SCAN_INTERVAL : parseScanInterval(input.scan_interval),
      scanScheduleEnabled: input.scan_schedule_enabled === undefined ? true : parseScheduleEnabled(input.scan_schedule_enabled),
      scheduleAnchorAt: now,
      lastScanId: null,
      lastScanAt: null,
      scanStatus: null,
      createdAt: now,
      updatedAt: now,
    };
    checkDrift(env, input.drift);
    await this.deps.environments.insert(env, upTo('environments', this.deps.quota ?? DEFAULT_QUOTAS.environments, 'this organization'));
    return env;
  }

  /** PATCH semantics: absent fields stay as they are. */
  async update(orgId: string, id: string, input: UpdateEnvironmentInput): Promise<Environment> {
    // The baseline check reads scans, which cannot happen while the environment is locked; it depends only on the
    // environment's identity, which no update changes.
    const baselineId = input.baseline_id === undefined ? undefined : await this.baseline(await this.get(orgId, id), input.baseline_id);
    const now = this.deps.clock.nowSeconds();
    const updated = await this.deps.environments.modify(orgId, id, (current) => applyUpdate(current, input, baselineId, now));
    if (!updated) throw AppError.notFound('environment', id);
    return updated;
  }

  async delete(orgId: string, id: string): Promise<void> {
    if (!(await this.deps.environments.delete(orgId, id))) throw AppError.notFound('environment', id);
  }

  /** `""` clears the baseline (and with it drift detection); otherwise it must be a SUCCESS scan of this environment. */
  private async baseline(env: Environment, baselineId: string): Promise<string | null> {
    if (baselineId === '') return null;
    const scan = await this.deps.scans.get(env.orgId, baselineId);
    if (!scan || scan.environmentId !== env.id) {
      throw AppError.invalid('baseline_id', `scan ${baselineId} is not a scan of environment ${env.id}`);
    }
    if (scan.status !== 'SUCCESS') {
      throw AppError.invalid('baseline_id', `scan ${baselineId} has status ${scan.status}; only a SUCCESS scan can be a baseline`);
    }
    return scan.id;
  }
}

/** A record being made from another: its own copy, which the function making it fills in before handing it out. */
type Draft<T> = { -readonly [K in keyof T]: T[K] };

/** The environment a PATCH leaves: absent fields stay as they are; `baselineId` is the checked baseline_id, if sent. */
function applyUpdate(current: Environment, input: UpdateEnvironmentInput, baselineId: string | null | undefined, now: number): Environment {
  const provider = current.provider;
  const next: Draft<Environment> = { ...current };

  if (input.provider !== undefined && input.provider !== provider) {
    const requested = parseProvider(input.provider);
    throw AppError.invalid(
      'provider',
      usesRoles(requested) && usesRoles(provider)
        ? `an environment cannot move between standard and government regions (${provider} to ${requested})`
        : `the provider of an environment cannot change (${provider} to ${requested})`,
    );
  }
  if (input.name !== undefined) next.name = checkName(input.name);
  if (input.provider_options !== undefined) {
    checkOptionKeys(provider, Object.keys(input.provider_options));
    next.access = updatedAccess(current, input.provider_options);
  }
  if (input.compliance_families !== undefined) next.complianceFamilies = checkFamilies(provider, input.compliance_families);
  if (input.survey_resource_types !== undefined) {
    next.surveyResourceTypes = checkResourceTypes(provider, 'survey_resource_types', input.survey_resource_types);
  }
  const groups = resourceGroups(provider, input.survey_resource_groups, input.provider_options?.provider_b);
  if (groups !== undefined) next.surveyResourceGroups = groups;
  if (input.remediate_resource_types !== undefined || input.survey_resource_types !== undefined) {
    next.remediateResourceTypes = checkRemediateTypes(
      provider,
      input.remediate_resource_types ?? current.remediateResourceTypes,
      next.surveyResourceTypes,
    );
  }
  next.remediation = remediationOf(provider, input.remediation) ?? current.remediation;
  if (baselineId !== undefined) next.baselineId = baselineId;
  checkDrift(next, input.drift);
  if (input.scan_interval !== undefined) {
    const interval = parseScanInterval(input.scan_interval);
    // Seed 000 §3.4 rule 1: a change takes effect at once; the next scan is one new interval from now.
    if (interval !== current.scanInterval) next.scheduleAnchorAt = now;
    next.scanInterval = interval;
  }
  if (input.scan_schedule_enabled !== undefined) {
    const enabled = parseScheduleEnabled(input.scan_schedule_enabled);
    // Turning the schedule back on restarts the timer rather than firing a scan that is long overdue.
    if (enabled && !current.scanScheduleEnabled) next.scheduleAnchorAt = Math.max(next.scheduleAnchorAt, now);
    next.scanScheduleEnabled = enabled;
  }

  next.updatedAt = now;
  return next;
}

/**
 * `baseline_id` on create: a new environment has no scans, so nothing can be its baseline yet; `null` and `""`
 * (no baseline) are accepted so that a body built from an environment record still creates one.
 */
function newBaseline(baselineId: string | null | undefined): null {
  if (baselineId === undefined || baselineId === null || baselineId === '') return null;
  throw AppError.invalid(
    'baseline_id',
    `a new environment has no scans yet, so scan ${baselineId} cannot be its baseline; run a scan, then set baseline_id with PATCH /environments/{environment_id}`,
  );
}

/** Seed 000 §3.2: enforcement can be switched on or off in any state, for provider_a and provider_a_gov only. */
function remediationOf(provider: Provider, remediation: boolean | undefined): boolean | undefined {
  if (remediation !== undefined && !usesRoles(provider)) {
    throw AppError.invalid('remediation', 'baseline enforcement is available only for provider_a and provider_a_gov');
  }
  return remediation;
}

/**
 * `drift` is not a setting of its own: detection is on exactly while a baseline is set (seed 000 §3.2). A request
 * may send it when it agrees with the baseline the request leaves, so that a record sent back as it was read works.
 */
function checkDrift(env: Environment, drift: boolean | undefined): void {
  if (drift === undefined || drift === driftEnabled(env)) return;
  throw AppError.invalid(
    'drift',
    drift
      ? 'drift detection is on exactly while a baseline is set, and this environment has none; set baseline_id to a SUCCESS scan of it to turn drift detection on'
      : 'drift detection is on exactly while a baseline is set; send baseline_id "" to clear the baseline and turn drift detection off',
  );
}

function newAccess(provider: Provider, options: ProviderOptionsInput): ProviderAccess {
  if (provider === 'provider_b') return newSubscriptionAccess(options.provider_b ?? {});
  return newRoleAccess(provider, options[provider] ?? {});
}

function newRoleAccess(provider: 'provider_a' | 'provider_a_gov', input: RoleOptionsInput): RoleAccess {
  const field = `provider_options.${provider}`;
  if (input.role_arn === undefined) throw AppError.missing(`${field}.role_arn`);
  const roleArn = checkRoleArn(provider, `${field}.role_arn`, input.role_arn);
  if (input.regions !== undefined && input.region !== undefined) {
    throw AppError.invalid(`${field}.region`, 'is deprecated and cannot be combined with regions; send regions only');
  }
  if (input.region !== undefined) {
    return { kind: 'role', roleArn, region: checkRegions(provider, `${field}.region`, [input.region])[0]! };
  }
  if (input.regions === undefined) throw AppError.missing(`${field}.regions`);
  return { kind: 'role', roleArn, regions: checkRegions(provider, `${field}.regions`, input.regions) };
}

function newSubscriptionAccess(input: SubscriptionOptionsInput): SubscriptionAccess {
  if (input.subscription_id === undefined) throw AppError.missing('provider_options.provider_b.subscription_id');
  return {
    kind: 'subscription',
    subscriptionId: input.subscription_id,
    ...(input.tenant_id !== undefined && { tenantId: input.tenant_id }),
    ...(input.application_id !== undefined && { applicationId: input.application_id }),
    ...(input.client_secret !== undefined && { clientSecret: input.client_secret }),
    ...(input.remediate_resource_groups !== undefined && {
      remediateResourceGroups: checkResourceGroups('provider_options.provider_b.remediate_resource_groups', input.remediate_resource_groups),
    }),
  };
}

function updatedAccess(env: Environment, options: ProviderOptionsInput): ProviderAccess {
  const access = env.access;
  if (access.kind === 'subscription') {
    const input = options.provider_b ?? {};
    for (const immutable of ['subscription_id', 'tenant_id'] as const) {
      if (input[immutable] !== undefined) {
        throw AppError.invalid(`provider_options.provider_b.${immutable}`, 'cannot change; create a new environment for another subscription');
      }
    }
    return {
      ...access,
      ...(input.application_id !== undefined && { applicationId: input.application_id }),
      ...(input.client_secret !== undefined && { clientSecret: input.client_secret }),
      ...(input.remediate_resource_groups !== undefined && {
        remediateResourceGroups: checkResourceGroups('provider_options.provider_b.remediate_resource_groups', input.remediate_resource_groups),
      }),
    };
  }

  const provider = env.provider as 'provider_a' | 'provider_a_gov';
  const field = `provider_options.${provider}`;
  const input = options[provider] ?? {};
  const next: Draft<RoleAccess> = { ...access };
  if (input.region !== undefined) {
    throw AppError.invalid(`${field}.region`, 'is deprecated and accepted on create only; send regions');
  }
  if (input.role_arn !== undefined) {
    const roleArn = checkRoleArn(provider, `${field}.role_arn`, input.role_arn);
    const before = parseRoleArn(access.roleArn)?.account;
    const after = parseRoleArn(roleArn)?.account;
    if (before !== after) {
      throw AppError.invalid(`${field}.role_arn`, `must stay in account ${before}; the environment's scans and baseline belong to that account`);
    }
    next.roleArn = roleArn;
  }
  if (input.regions !== undefined) {
    // Seed 000 §4 rules 1 and 2: the list replaces the old one, and only environments that expose `regions` and
    // were created after 28 April 2020 may change it.
    if (access.region !== undefined || env.createdAt < REGIONS_EDITABLE_SINCE) {
      throw AppError.invalid(
        `${field}.regions`,
        access.region !== undefined
          ? `this environment was created with the deprecated region '${access.region}' and its region cannot change`
          : 'environments created before 28 April 2020 cannot change their regions',
      );
    }
    next.regions = checkRegions(provider, `${field}.regions`, input.regions);
  }
  return next;
}

/**
 * Seed 000 §2.2 puts survey_resource_groups on the environment; the public service kept it in
 * provider_options.provider_b. Both are accepted; sending both with different lists is ambiguous, so it is refused.
 */
function resourceGroups(
  provider: Provider,
  topLevel: string[] | undefined,
  inOptions: SubscriptionOptionsInput | undefined,
): string[] | undefined {
  const nested = inOptions?.survey_resource_groups;
  if (topLevel === undefined && nested === undefined) return undefined;
  if (provider !== 'provider_b') throw AppError.invalid('survey_resource_groups', 'applies to provider_b environments only');
  if (topLevel !== undefined && nested !== undefined && JSON.stringify(topLevel) !== JSON.stringify(nested)) {
    throw AppError.invalid(
      'survey_resource_groups',
      'differs from provider_options.provider_b.survey_resource_groups; send one of them',
    );
  }
  return checkResourceGroups('survey_resource_groups', (topLevel ?? nested)!);
}
