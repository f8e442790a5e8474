import { controlId } from '../../domain/custom-rules/checks.js';
import { parseRuleSearch } from '../../domain/custom-rules/search.js';
import type { CustomRule, CustomRuleWithWarnings, RuleWarning } from '../../domain/custom-rules/types.js';
import type { HandlerContext } from '../context.js';
import { pageBody } from '../paging.js';
import type { Req, Res, Schemas } from './types.js';

function customRuleBody(rule: CustomRule): Schemas['CustomRule'] {
  return {
    id: rule.id,
    name: rule.name,
    description: rule.description,
    // The deprecated single provider is the first of the list.
    provider: rule.providers[0],
    providers: rule.providers,
    resource_type: rule.resourceType,
    rule_text: rule.ruleText,
    severity: rule.severity,
    source: 'CUSTOM',
    status: rule.status,
    // The domain checked every family against the rule's providers; the spec lists them as an enum.
    families: rule.families as Schemas['ComplianceFamily'][],
    compliance_controls: rule.families.map((family) => controlId(family, rule.name)),
    created_at: rule.createdAt,
    created_by: rule.createdBy.id,
    created_by_display_name: rule.createdBy.name,
    updated_at: rule.updatedAt,
    updated_by: rule.updatedBy.id,
    updated_by_display_name: rule.updatedBy.name,
  };
}

const warningBody = (warning: RuleWarning): Schemas['CustomRuleError'] => ({ severity: 'warning', ...warning });

const withWarningsBody = ({ rule, warnings }: CustomRuleWithWarnings): Schemas['CustomRuleWithErrors'] => ({
  ...customRuleBody(rule),
  errors: warnings.map(warningBody),
});

export async function listCustomRules(req: Req<'listCustomRules'>, { services }: HandlerContext): Res<'listCustomRules'> {
  const { offset = 0, max_items = 100, query, status } = req.query;
  const filter = { ...parseRuleSearch(query), ...(status !== undefined && { status }) };
  const page = await services.customRules.list(req.principal.orgId, filter, { offset, limit: max_items });
  return { status: 200, body: pageBody(page, offset, customRuleBody) };
}

export async function createCustomRule(req: Req<'createCustomRule'>, { services }: HandlerContext): Res<'createCustomRule'> {
  const created = await services.customRules.create(req.principal.orgId, req.principal.clientId, req.body);
  return { status: 201, body: withWarningsBody(created) };
}

export async function getCustomRule(req: Req<'getCustomRule'>, { services }: HandlerContext): Res<'getCustomRule'> {
  return { status: 200, body: customRuleBody(await services.customRules.get(req.principal.orgId, req.path.rule_id)) };
}

export async function updateCustomRule(req: Req<'updateCustomRule'>, { services }: HandlerContext): Res<'updateCustomRule'> {
  const updated = await services.customRules.update(req.principal.orgId, req.principal.clientId, req.path.rule_id, req.body);
  return { status: 200, body: withWarningsBody(updated) };
}

export async function deleteCustomRule(req: Req<'deleteCustomRule'>, { services }: HandlerContext): Res<'deleteCustomRule'> {
  await services.customRules.delete(req.principal.orgId, req.path.rule_id);
  return { status: 204, body: undefined };
}

export async function testCustomRule(req: Req<'testCustomRule'>, { services }: HandlerContext): Res<'testCustomRule'> {
  const tested = await services.customRules.test(req.principal.orgId, req.body);
  return {
    status: 200,
    body: {
      result: tested.result,
      resource_count: tested.resourceCount,
      is_truncated: tested.resources.length < tested.resourceCount,
      resources: tested.resources,
      errors: tested.warnings.map(warningBody),
    },
  };
}

export async function testCustomRuleInput(req: Req<'testCustomRuleInput'>, { services }: HandlerContext): Res<'testCustomRuleInput'> {
  const input = await services.customRules.testInput(req.principal.orgId, req.query.scan_id, req.query.resource_type);
  return {
    status: 200,
    body: {
      scan_id: input.scanId,
      resource_type: input.resourceType,
      resources: input.documents as Schemas['TestCustomRuleInputScan']['resources'],
      is_truncated: input.isTruncated,
    },
  };
}
