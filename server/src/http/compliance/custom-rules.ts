import { controlId } from '../../domain/custom-rules/checks.js';
import { parseRuleSearch } from '../../domain/custom-rules/search.js';
import type { CustomRule, CustomRuleWithWarnings, RuleTestResult, RuleWarning } from '../../domain/custom-rules/types.js';
import type { HandlerContext } from '../context.js';
import { pageBody } from '../paging.js';
import { nullAsAbsent } from './not-given.js';
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

/** The lists a client may send as `null` for "not given" (see the spec's CreateCustomRuleInput, UpdateCustomRuleInput). */
const NULLABLE_LISTS = ['providers', 'families'] as const;

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
  const created = await services.customRules.create(req.principal.orgId, req.principal.clientId, nullAsAbsent(req.body, NULLABLE_LISTS));
  return { status: 201, body: withWarningsBody(created) };
}

export async function getCustomRule(req: Req<'getCustomRule'>, { services }: HandlerContext): Res<'getCustomRule'> {
  return { status: 200, body: customRuleBody(await services.customRules.get(req.principal.orgId, req.path.rule_id)) };
}

export async function updateCustomRule(req: Req<'updateCustomRule'>, { services }: HandlerContext): Res<'updateCustomRule'> {
  const updated = await services.customRules.update(req.principal.orgId, req.principal.clientId, req.path.rule_id, nullAsAbsent(req.body, NULLABLE_LISTS));
  return { status: 200, body: withWarningsBody(updated) };
}

export async function deleteCustomRule(req: Req<'deleteCustomRule'>, { services }: HandlerContext): Res<'deleteCustomRule'> {
  await services.customRules.delete(req.principal.orgId, req.path.rule_id);
  return { status: 204, body: undefined };
}

const testOutputBody = (tested: RuleTestResult): Schemas['TestCustomRuleOutput'] => ({
  result: tested.result,
  resource_count: tested.resourceCount,
  is_truncated: tested.resources.length < tested.resourceCount,
  resources: tested.resources,
  errors: tested.warnings.map(warningBody),
});

export async function testCustomRule(req: Req<'testCustomRule'>, { services }: HandlerContext): Res<'testCustomRule'> {
  const tested = await services.customRules.test(req.principal.orgId, req.body, { keep: req.query.via_download === true });
  return {
    status: 200,
    body: {
      ...testOutputBody(tested),
      ...(tested.outputId !== undefined && { links: { output: `/v0/rules/test/outputs/${tested.outputId}` } }),
    },
  };
}

export async function getCustomRuleTestOutput(req: Req<'getCustomRuleTestOutput'>, { services }: HandlerContext): Res<'getCustomRuleTestOutput'> {
  const kept = await services.customRules.testOutput(req.principal.orgId, req.path.output_id);
  return { status: 200, body: testOutputBody(kept.result) };
}

/** Where `GET /rules/test/input` answers the input of this scan (and type), relative to the server's root. */
function testInputUrl(scanId: string, resourceType: string | null): string {
  const query = new URLSearchParams({ scan_id: scanId, ...(resourceType !== null && { resource_type: resourceType }) });
  return `/v0/rules/test/input?${query.toString()}`;
}

export async function testCustomRuleInput(req: Req<'testCustomRuleInput'>, { services }: HandlerContext): Res<'testCustomRuleInput'> {
  const { scan_id, resource_type, via_download } = req.query;
  const input = await services.customRules.testInput(req.principal.orgId, scan_id, resource_type ?? null);
  return {
    status: 200,
    body: {
      scan_id: input.scanId,
      resource_type: input.resourceType,
      resources: input.documents as Schemas['TestCustomRuleInputScan']['resources'],
      is_truncated: input.isTruncated,
      // Nothing is stored: the download asks for the same input again (a scan's resources never change).
      ...(via_download === true && { links: { output: testInputUrl(input.scanId, input.resourceType) } }),
    },
  };
}
