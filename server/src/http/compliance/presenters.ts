import { driftEnabled, nextScanAt, type Environment } from '../../domain/environments/types.js';
import type { RuleComplianceItem } from '../../domain/scans/service.js';
import type { ResourceSummary, Scan } from '../../domain/scans/types.js';
import type { Schemas } from './types.js';

/**
 * A read-only list of the domain shown in a body, as it is: a body is serialized and never changed, and the
 * generated body types (mutable lists) cannot say so.
 */
const shown = <T>(list: readonly T[]): T[] => list as T[];

/** The environment as the API shows it; the provider_b client secret is kept but never shown. */
export function environmentBody(env: Environment): Schemas['Environment'] {
  return {
    id: env.id,
    name: env.name,
    provider: env.provider,
    tenant_id: env.orgId,
    provider_options: providerOptionsBody(env),
    // The domain has checked every family and region against the provider; the spec lists them as enums.
    compliance_families: shown(env.complianceFamilies) as Schemas['ComplianceFamily'][],
    survey_resource_types: shown(env.surveyResourceTypes),
    ...(env.surveyResourceGroups !== null && { survey_resource_groups: shown(env.surveyResourceGroups) }),
    remediate_resource_types: shown(env.remediateResourceTypes),
    baseline_id: env.baselineId,
    drift: driftEnabled(env),
    remediation: env.remediation,
    scan_interval: env.scanInterval,
    scan_schedule_enabled: env.scanScheduleEnabled,
    scan_status: env.scanStatus,
    last_scan_at: env.lastScanAt,
    next_scan_at: nextScanAt(env),
    created_at: env.createdAt,
    updated_at: env.updatedAt,
  };
}

/** One environment with the summary of its latest successful scan, as GET /environments/{id} shows it. */
export function environmentWithSummaryBody(env: Environment, summary: ResourceSummary | null): Schemas['EnvironmentWithSummary'] {
  return { ...environmentBody(env), resource_summary: resourceSummaryBody(summary) };
}

function providerOptionsBody(env: Environment): Schemas['ProviderOptions'] {
  const access = env.access;
  if (access.kind === 'subscription') {
    return {
      provider_b: {
        subscription_id: access.subscriptionId,
        ...(access.tenantId !== undefined && { tenant_id: access.tenantId }),
        ...(access.applicationId !== undefined && { application_id: access.applicationId }),
        ...(env.surveyResourceGroups !== null && { survey_resource_groups: shown(env.surveyResourceGroups) }),
        ...(access.remediateResourceGroups !== undefined && { remediate_resource_groups: shown(access.remediateResourceGroups) }),
      },
    };
  }
  const options = {
    role_arn: access.roleArn,
    ...(access.regions !== undefined && { regions: access.regions }),
    ...(access.region !== undefined && { region: access.region }),
  } as Schemas['ProviderAOptions'];
  return env.provider === 'provider_a_gov' ? { provider_a_gov: options } : { provider_a: options };
}

export function scanBody(scan: Scan): Schemas['Scan'] {
  return {
    id: scan.id,
    environment_id: scan.environmentId,
    status: scan.status,
    created_at: scan.createdAt,
    updated_at: scan.updatedAt,
    finished_at: scan.finishedAt,
    message: scan.message,
    remediation_error: scan.remediationError,
  };
}

export function resourceSummaryBody(summary: ResourceSummary | null): Schemas['ResourceSummary'] {
  if (summary === null) return null;
  return {
    total: summary.total,
    compliant: summary.compliant,
    noncompliant: summary.noncompliant,
    resource_types: summary.resourceTypes,
    rules_passed: summary.rulesPassed,
    rules_failed: summary.rulesFailed,
    families: summary.families.map((f) => ({
      family: f.family as Schemas['ComplianceFamily'],
      compliant: f.compliant,
      noncompliant: f.noncompliant,
      rules_passed: f.rulesPassed,
      rules_failed: f.rulesFailed,
    })),
  };
}

export function scanWithSummaryBody(scan: Scan): Schemas['ScanWithSummary'] {
  return {
    ...scanBody(scan),
    resource_summary: resourceSummaryBody(scan.summary),
    resource_type_errors: scan.resourceTypeErrors.map((e) => ({ resource_type: e.resourceType, error_message: e.message })),
  };
}

export function ruleComplianceBody(item: RuleComplianceItem): Schemas['ComplianceByRule'] {
  return {
    family: item.family as Schemas['ComplianceFamily'],
    rule: item.control,
    rule_id: item.rule.id,
    severity: item.rule.severity,
    result: item.result,
    failed_resources: item.failedResources.map((f) => ({
      resource: { resource_id: f.resourceId, resource_type: f.resourceType },
      messages: [f.message],
    })),
    failed_resource_count: item.failedResourceCount,
    failed_resource_types: item.missingTypes.map((type) => ({ resource_type: type, messages: [`no ${type} resource exists`] })),
    unsurveyed_resource_types: item.unsurveyedTypes,
  };
}

