import { parseSearch } from '../../domain/environments/search.js';
import type { CreateEnvironmentInput, EnvironmentFilter, UpdateEnvironmentInput } from '../../domain/environments/types.js';
import type { HandlerContext } from '../context.js';
import { pageBody } from '../paging.js';
import { nullAsAbsent } from './not-given.js';
import { environmentBody, environmentWithSummaryBody } from './presenters.js';
import type { Req, Res } from './types.js';

/** The lists a client may send as `null` for "not given" (see the spec's CreateEnvironmentInput, UpdateEnvironmentInput). */
const NULLABLE_LISTS = ['compliance_families', 'survey_resource_types', 'remediate_resource_types'] as const;

/** A caller restricted by its groups lists only the environments they cover. */
const withinCovered = (filter: EnvironmentFilter, covered: 'all' | string[]): EnvironmentFilter =>
  covered === 'all' ? filter : { ...filter, within: covered };

export async function listEnvironments(req: Req<'listEnvironments'>, { services }: HandlerContext): Res<'listEnvironments'> {
  const { offset = 0, max_items = 100, order_by = 'created_at', order_direction = 'desc', query } = req.query;
  const page = await services.environments.list(
    req.principal.orgId,
    { offset, limit: max_items },
    { by: order_by, direction: order_direction },
    withinCovered(parseSearch(query), req.principal.grants.environmentsAllowing('results')),
  );
  return { status: 200, body: pageBody(page, offset, environmentBody) };
}

export async function createEnvironment(req: Req<'createEnvironment'>, { services }: HandlerContext): Res<'createEnvironment'> {
  const env = await services.environments.create(req.principal.orgId, nullAsAbsent(req.body, NULLABLE_LISTS) as CreateEnvironmentInput);
  return { status: 201, body: environmentBody(env) };
}

export async function getEnvironment(req: Req<'getEnvironment'>, { services }: HandlerContext): Res<'getEnvironment'> {
  const env = await services.environments.get(req.principal.orgId, req.path.environment_id);
  const summary = await services.scans.latestSummary(req.principal.orgId, env);
  return { status: 200, body: environmentWithSummaryBody(env, summary) };
}

export async function updateEnvironment(req: Req<'updateEnvironment'>, { services }: HandlerContext): Res<'updateEnvironment'> {
  const env = await services.environments.update(req.principal.orgId, req.path.environment_id, nullAsAbsent(req.body, NULLABLE_LISTS) as UpdateEnvironmentInput);
  return { status: 200, body: environmentBody(env) };
}

export async function deleteEnvironment(req: Req<'deleteEnvironment'>, { services }: HandlerContext): Res<'deleteEnvironment'> {
  await services.environments.delete(req.principal.orgId, req.path.environment_id);
  return { status: 204, body: undefined };
}
