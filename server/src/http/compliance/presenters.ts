import { driftEnabled, nextScanAt, type Environment } from '../../domain/environments/types.js';
import type { Schemas } from './types.js';

/** The environment as the API shows it; the provider_b client secret is kept but never shown. */
export function environmentBody(env: Environment): Schemas['Environment'] {
  return {
    id: env.id,
    name: env.name,
    provider: env.provider,
    tenant_id: env.orgId,
    provider_options: providerOptionsBody(env),
    // The domain has checked every family and region against the provider; the spec lists them as enums.
    compliance_families: env.complianceFamilies as Schemas['ComplianceFamily'][],
    survey_resource_types: env.surveyResourceTypes,
    ...(env.surveyResourceGroups !== null && { survey_resource_groups: env.surveyResourceGroups }),
    remediate_resource_types: env.remediateResourceTypes,
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

function providerOptionsBody(env: Environment): Schemas['ProviderOptions'] {
  const access = env.access;
  if (access.kind === 'subscription') {
    return {
      provider_b: {
        subscription_id: access.subscriptionId,
        ...(access.tenantId !== undefined && { tenant_id: access.tenantId }),
        ...(access.applicationId !== undefined && { application_id: access.applicationId }),
        ...(env.surveyResourceGroups !== null && { survey_resource_groups: env.surveyResourceGroups }),
        ...(access.remediateResourceGroups !== undefined && { remediate_resource_groups: access.remediateResourceGroups }),
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
