import { AppError } from '../errors.js';
import { isSupportedType, resourceTypesOf } from './catalog.js';
import { ALL, regionsOf, usesRoles, type Provider } from './providers.js';

/** What the metadata endpoints answer, computed from the resource-type catalog. */
export function resourceTypeMetadata(provider: Provider, region: string | undefined): { resourceTypes: string[]; recommended: string[] } {
  if (region !== undefined && region !== ALL) {
    if (!usesRoles(provider)) throw AppError.invalid('region', 'provider_b has no regions; leave region out');
    if (!regionsOf(provider).includes(region)) throw AppError.invalid('region', `'${region}' is not a region of ${provider}`);
  }
  // Without a region, provider_a lists its global types only; provider_b's types do not depend on the region.
  const types = resourceTypesOf(provider).filter((t) => t.global || region !== undefined || !usesRoles(provider));
  return { resourceTypes: types.map((t) => t.type), recommended: types.filter((t) => t.recommended).map((t) => t.type) };
}

export interface PermissionSet {
  surveyActions: string[];
  remediateActions: string[];
  policy: Record<string, unknown>;
  trustRelationship: Record<string, unknown>;
}

/**
 * The role a provider_a / provider_a_gov environment needs: the actions to survey the given types and to correct
 * them, as a role policy, and the trust relationship letting the service assume the role for this organization.
 */
export function permissionsFor(provider: Provider, orgId: string, survey: readonly string[] | undefined, remediate: readonly string[] | undefined): PermissionSet {
  if (!usesRoles(provider)) throw AppError.invalid('provider', 'permissions apply to provider_a and provider_a_gov only');
  const catalog = resourceTypesOf(provider);
  const pick = (field: string, types: readonly string[] | undefined) => {
    for (const type of types ?? []) {
      if (!isSupportedType(provider, type)) throw AppError.invalid(field, `'${type}' is not a supported resource type of ${provider}`);
    }
    return types?.length ? catalog.filter((t) => types.includes(t.type)) : catalog;
  };
  const surveyActions = [...new Set(pick('survey_resource_type', survey).flatMap((t) => t.surveyActions))].sort();
  const remediateActions = [...new Set(pick('remediate_resource_type', remediate).flatMap((t) => t.remediateActions))].sort();
  const partition = provider === 'provider_a' ? 'prova' : 'prova-us-gov';
  return {
    surveyActions,
    remediateActions,
    policy: {
      Version: '2012-10-17',
      Statement: [
        { Sid: 'Survey', Effect: 'Allow', Action: surveyActions, Resource: '*' },
        { Sid: 'Remediate', Effect: 'Allow', Action: remediateActions, Resource: '*' },
      ],
    },
    trustRelationship: {
      Version: '2012-10-17',
      Statement: [
        {
          Effect: 'Allow',
          Principal: { Account: `arn:${partition}:iam::000000000000:root` },
          Action: 'sts:AssumeRole',
          Condition: { StringEquals: { 'sts:ExternalId': orgId } },
        },
      ],
    },
  };
}
