import { permissionsFor, resourceTypeMetadata } from '../../domain/cloud/metadata.js';
import type { HandlerContext } from '../context.js';
import type { Req, Res } from './types.js';

export async function getResourceTypes(req: Req<'getResourceTypes'>, _context: HandlerContext): Res<'getResourceTypes'> {
  const { resourceTypes, recommended } = resourceTypeMetadata(req.path.provider, req.query.region);
  return { status: 200, body: { resource_types: resourceTypes, recommended_types: recommended } };
}

export async function getPermissions(req: Req<'getPermissions'>, _context: HandlerContext): Res<'getPermissions'> {
  const permissions = permissionsFor(req.path.provider, req.principal.orgId, req.query.survey_resource_type, req.query.remediate_resource_type);
  return {
    status: 200,
    body: {
      provider_a: {
        policy: permissions.policy,
        trust_relationship: permissions.trustRelationship,
        survey_actions: permissions.surveyActions,
        remediate_actions: permissions.remediateActions,
      },
    },
  };
}
