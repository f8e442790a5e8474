import type { Provider } from '../cloud/providers.js';

/*
 * An environment as the layers hand it to one another: read-only, so that the compiler, not a check at run time,
 * forbids a reader to change what it was given. A use case that changes one makes a new one (`{ ...env, name }`).
 */

/** How the service reaches a role-based account (provider_a, provider_a_gov). */
export interface RoleAccess {
  readonly kind: 'role';
  readonly roleArn: string;
  /** The regions to scan; `['*']` for all. Absent on legacy environments, which have `region` instead. */
  readonly regions?: readonly string[];
  /** Deprecated single region: such an environment's region can never change. */
  readonly region?: string;
}

/** How the service reaches a provider_b subscription. The client secret is kept but never shown. */
export interface SubscriptionAccess {
  readonly kind: 'subscription';
  readonly subscriptionId: string;
  readonly tenantId?: string;
  readonly applicationId?: string;
  readonly clientSecret?: string;
  readonly remediateResourceGroups?: readonly string[];
}

export type ProviderAccess = RoleAccess | SubscriptionAccess;

export type ScanStatus = 'IN_PROGRESS' | 'SUCCESS' | 'ERROR';

export interface Environment {
  readonly id: string;
  readonly orgId: string;
  readonly name: string;
  readonly provider: Provider;
  readonly access: ProviderAccess;
  readonly complianceFamilies: readonly string[];
  readonly surveyResourceTypes: readonly string[];
  /** provider_b only; `['*']` means every group, including groups that appear later. */
  readonly surveyResourceGroups: readonly string[] | null;
  readonly remediateResourceTypes: readonly string[];
  readonly baselineId: string | null;
  readonly remediation: boolean;
  readonly scanInterval: number;
  readonly scanScheduleEnabled: boolean;
  /** The later of the end of the last scan and the last interval change; the next scan is one interval after it. */
  readonly scheduleAnchorAt: number;
  readonly lastScanId: string | null;
  readonly lastScanAt: number | null;
  readonly scanStatus: ScanStatus | null;
  readonly createdAt: number;
  readonly updatedAt: number;
}

/** Drift detection is on exactly while a baseline is set (seed 000 §3.2). */
export const driftEnabled = (env: Environment): boolean => env.baselineId !== null;

/** Seed 000 §3.4: next scheduled scan = max(end of last scan, last interval change) + interval. */
export const nextScanAt = (env: Environment): number | null =>
  env.scanScheduleEnabled ? env.scheduleAnchorAt + env.scanInterval : null;

/**
 * Create and update commands carry the fields exactly as users send them (names and loose types alike), because
 * the rules below answer in those names: `scan_interval: must be at least 600 seconds`.
 */
export interface RoleOptionsInput {
  role_arn?: string;
  regions?: string[];
  region?: string;
}

export interface SubscriptionOptionsInput {
  subscription_id?: string;
  tenant_id?: string;
  application_id?: string;
  client_secret?: string;
  survey_resource_groups?: string[];
  remediate_resource_groups?: string[];
}

export interface ProviderOptionsInput {
  provider_a?: RoleOptionsInput;
  provider_a_gov?: RoleOptionsInput;
  provider_b?: SubscriptionOptionsInput;
}

export interface CreateEnvironmentInput {
  name: string;
  provider: string;
  provider_options: ProviderOptionsInput;
  compliance_families?: string[];
  survey_resource_types?: string[];
  survey_resource_groups?: string[];
  remediate_resource_types?: string[];
  baseline_id?: string | null;
  drift?: boolean;
  remediation?: boolean;
  scan_interval?: number | string;
  scan_schedule_enabled?: boolean | string;
}

export interface UpdateEnvironmentInput {
  name?: string;
  provider?: string;
  provider_options?: ProviderOptionsInput;
  compliance_families?: string[];
  survey_resource_types?: string[];
  survey_resource_groups?: string[];
  remediate_resource_types?: string[];
  baseline_id?: string;
  drift?: boolean;
  remediation?: boolean;
  scan_interval?: number | string;
  scan_schedule_enabled?: boolean | string;
}

export const ENVIRONMENT_ORDER = ['created_at', 'name', 'provider', 'updated_at'] as const;
export type EnvironmentOrder = (typeof ENVIRONMENT_ORDER)[number];

/** Search terms of the list's `query` parameter, already parsed. */
export interface EnvironmentFilter {
  provider?: string[];
  name?: string[];
  id?: string[];
  arn?: string[];
  status?: string[];
  text?: string[];
  /** Only these environments (the caller's groups cover no others). */
  within?: readonly string[];
}
