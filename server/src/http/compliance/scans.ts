import type { HandlerContext } from '../context.js';
import { pageBody } from '../paging.js';
import { ruleComplianceBody, scanBody, scanWithSummaryBody } from './presenters.js';
import { typeCompliancePageJson } from './type-compliance-json.js';
import type { Req, Res } from './types.js';

export async function listScans(req: Req<'listScans'>, { services }: HandlerContext): Res<'listScans'> {
  const { environment_id, offset = 0, max_items = 100, order_direction = 'desc', status, range_from, range_to } = req.query;
  const page = await services.scans.list(
    req.principal.orgId,
    environment_id,
    { statuses: status, rangeFrom: range_from, rangeTo: range_to },
    { offset, limit: max_items },
    order_direction,
  );
  return { status: 200, body: pageBody(page, offset, scanBody) };
}

export async function createScan(req: Req<'createScan'>, { services }: HandlerContext): Res<'createScan'> {
  const scan = await services.scans.start(req.principal.orgId, req.query.environment_id, req.requestId);
  return { status: 201, body: scanBody(scan) };
}

export async function getScan(req: Req<'getScan'>, { services }: HandlerContext): Res<'getScan'> {
  return { status: 200, body: scanWithSummaryBody(await services.scans.get(req.principal.orgId, req.path.scan_id)) };
}

export async function getComplianceByRules(req: Req<'getComplianceByRules'>, { services }: HandlerContext): Res<'getComplianceByRules'> {
  const { offset = 0, max_items = 100, family, result } = req.query;
  const page = await services.scans.complianceByRules(req.principal.orgId, req.path.scan_id, { families: family, results: result }, { offset, limit: max_items });
  return { status: 200, body: pageBody(page, offset, ruleComplianceBody) };
}

export async function getComplianceByResourceTypes(
  req: Req<'getComplianceByResourceTypes'>,
  { services }: HandlerContext,
): Res<'getComplianceByResourceTypes'> {
  const { offset = 0, max_items = 100, family, resource_type } = req.query;
  const page = await services.scans.complianceByResourceTypes(
    req.principal.orgId,
    req.path.scan_id,
    { families: family, types: resource_type },
    { offset, limit: max_items },
  );
  return { status: 200, body: typeCompliancePageJson(page, offset) };
}
