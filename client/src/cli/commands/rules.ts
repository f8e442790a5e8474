import { readFile } from 'node:fs/promises';
import { unwrap } from '../../index.js';
import type { CommandContext, FlagSpec, Group } from '../command.js';
import { UsageError } from '../exit-codes.js';
import { BODY_FLAGS, defined, jsonBody } from '../input.js';
import { time, type Output } from '../output.js';
import { LIST_FLAGS, readList, showList } from '../paging.js';
import type { ComplianceFamily, CreateCustomRuleInput, CustomRule, CustomRuleWithErrors, TestCustomRuleInput } from '../schemas.js';

const SEVERITIES = ['Informational', 'Low', 'Medium', 'High', 'Critical'] as const;
const RULE_PROVIDERS = ['PROVIDER_A', 'PROVIDER_A_GOV', 'PROVIDER_B'] as const;

const RULE_TEXT_FLAGS: Record<string, FlagSpec> = {
  'rule-text': { type: 'string', value: '<cel>', description: 'the CEL expression over `resource`, e.g. resource.properties.versioning == "Enabled"' },
  'rule-file': { type: 'string', value: '<path>', description: 'read the CEL expression from a file instead' },
};

/** The rule text from `--rule-text` or `--rule-file`, or undefined when neither is given. */
async function ruleText(ctx: CommandContext): Promise<string | undefined> {
  const inline = ctx.string('rule-text');
  const path = ctx.string('rule-file');
  if (inline !== undefined && path !== undefined) throw new UsageError('give the rule with --rule-text or --rule-file, not both');
  if (path === undefined) return inline;
  try {
    return (await readFile(path, 'utf8')).trimEnd();
  } catch (error) {
    throw new UsageError(`cannot read --rule-file ${path}: ${(error as Error).message}`);
  }
}

function ruleTable(out: Output, items: readonly CustomRule[]): void {
  out.table(items, [
    { header: 'ID', value: (r) => r.id },
    { header: 'NAME', value: (r) => r.name, max: 40 },
    { header: 'RESOURCE TYPE', value: (r) => r.resource_type },
    { header: 'SEVERITY', value: (r) => r.severity },
    { header: 'STATUS', value: (r) => r.status },
    { header: 'PROVIDERS', value: (r) => r.providers },
  ]);
}

function ruleFields(out: Output, r: CustomRule | CustomRuleWithErrors): void {
  out.fields([
    ['ID', r.id],
    ['Name', r.name],
    ['Description', r.description],
    ['Providers', r.providers],
    ['Resource type', r.resource_type],
    ['Severity', r.severity],
    ['Status', r.status],
    ['Families', r.families],
    ['Rule', r.rule_text],
    ['Created', `${time(r.created_at)} by ${r.created_by_display_name ?? r.created_by}`],
    ['Updated', `${time(r.updated_at)} by ${r.updated_by_display_name ?? r.updated_by}`],
    ...('errors' in r ? r.errors.map((e) => [e.severity === 'error' ? 'Error' : 'Warning', `${e.line ? `${e.line}:${e.column ?? 1}: ` : ''}${e.text}`] as const) : []),
  ]);
}

const RULE_ARG = [{ name: 'rule-id', description: 'the custom rule id' }] as const;

export const rules: Group = {
  name: 'rules',
  api: 'compliance',
  summary: 'custom rules: CEL expressions evaluated on every scan',
  commands: [
    {
      name: 'list',
      summary: 'list the custom rules',
      flags: {
        search: { type: 'string', multiple: true, value: '<term>', description: 'only rules matching every term: name:, id:, resource_type:, provider:, severity: prefixes, or text' },
        status: { type: 'string', value: '<status>', description: 'only rules in this state: ENABLED, DISABLED, INVALID' },
        ...LIST_FLAGS,
      },
      examples: ['compliance-conductor rules list --search resource_type:PROVA.S3 --status ENABLED'],
      async run(ctx) {
        const query = ctx.searchQuery();
        const status = ctx.choice('status', ['ENABLED', 'DISABLED', 'INVALID'] as const);
        const list = await readList(ctx, (offset, max_items) =>
          unwrap(ctx.compliance().GET('/rules', { params: { query: { offset, max_items, ...(query && { query }), ...(status && { status }) } } })),
        );
        showList(ctx, list, (items) => ruleTable(ctx.out, items));
      },
    },
    {
      name: 'get',
      summary: 'show a custom rule',
      args: RULE_ARG,
      examples: ['compliance-conductor rules get 5d6e7f80-1a2b-4c3d-8e9f-0a1b2c3d4e5f'],
      async run(ctx) {
        const rule = await unwrap(ctx.compliance().GET('/rules/{rule_id}', { params: { path: { rule_id: ctx.arg(0) } } }));
        ctx.out.show(rule, (r) => ruleFields(ctx.out, r));
      },
    },
    {
      name: 'create',
      summary: 'create a custom rule',
      description: 'The body is the API\'s CreateCustomRuleInput, from --body or --file, with the flags applied over it.\nWarnings about the rule text are printed with it.',
      flags: {
        ...BODY_FLAGS,
        name: { type: 'string', value: '<name>', description: 'the rule name (unique in the organization)' },
        'resource-type': { type: 'string', value: '<type>', description: 'the resource type it checks, e.g. PROVA.S3.Bucket' },
        ...RULE_TEXT_FLAGS,
        severity: { type: 'string', value: '<severity>', description: `one of ${SEVERITIES.join(', ')}` },
        providers: { type: 'string', multiple: true, value: '<provider,...>', description: `the providers it applies to: ${RULE_PROVIDERS.join(', ')}` },
        families: { type: 'string', multiple: true, value: '<family,...>', description: 'the compliance families it reports under' },
      },
      examples: [
        'compliance-conductor rules create --name "Bucket versioning" --resource-type PROVA.S3.Bucket \\\n    --rule-text \'resource.properties.versioning == "Enabled"\' --severity Medium --providers PROVIDER_A',
      ],
      async run(ctx) {
        const body = await jsonBody(ctx);
        Object.assign(
          body,
          defined({
            name: ctx.string('name'),
            resource_type: ctx.string('resource-type'),
            rule_text: await ruleText(ctx),
            severity: ctx.choice('severity', SEVERITIES),
            providers: ctx.choices('providers', RULE_PROVIDERS),
            families: ctx.optionalStrings('families') as ComplianceFamily[] | undefined,
          }),
        );
        const created = await unwrap(ctx.compliance().POST('/rules', { body: body as CreateCustomRuleInput }));
        ctx.out.show(created, (r) => ruleFields(ctx.out, r));
      },
    },
    {
      name: 'test',
      summary: 'evaluate a rule text on the resources of a finished scan, without saving it',
      description: 'Prints the overall result and each resource\'s; a FAIL result is still a successful test (exit 0).',
      flags: {
        ...BODY_FLAGS,
        'scan-id': { type: 'string', value: '<id>', description: 'a SUCCESS scan whose resources to evaluate' },
        'resource-type': { type: 'string', value: '<type>', description: 'the resource type to evaluate, e.g. PROVA.S3.Bucket' },
        ...RULE_TEXT_FLAGS,
      },
      examples: [
        'compliance-conductor rules test --scan-id 7b2e4f6a-1c3d-4e5f-8a9b-0c1d2e3f4a5b --resource-type PROVA.S3.Bucket \\\n    --rule-text \'resource.properties.versioning == "Enabled"\'',
      ],
      async run(ctx) {
        const body = await jsonBody(ctx);
        Object.assign(body, defined({ scan_id: ctx.string('scan-id'), resource_type: ctx.string('resource-type'), rule_text: await ruleText(ctx) }));
        const tested = await unwrap(ctx.compliance().POST('/rules/test', { body: body as TestCustomRuleInput }));
        ctx.out.show(tested, (t) => {
          ctx.out.fields([
            ['Result', t.result],
            ['Resources', t.is_truncated ? `${t.resource_count} (the first ${t.resources.length} below)` : t.resource_count],
            ...t.errors.map((e) => [e.severity === 'error' ? 'Error' : 'Warning', e.text] as const),
          ]);
          ctx.out.line();
          ctx.out.table(t.resources, [
            { header: 'RESOURCE', value: (r) => r.id, max: 80 },
            { header: 'RESULT', value: (r) => r.result },
            { header: 'MESSAGE', value: (r) => r.message, max: 80 },
          ]);
        });
      },
    },
    {
      name: 'delete',
      summary: 'delete a custom rule',
      args: RULE_ARG,
      examples: ['compliance-conductor rules delete 5d6e7f80-1a2b-4c3d-8e9f-0a1b2c3d4e5f'],
      async run(ctx) {
        const id = ctx.arg(0);
        await unwrap(ctx.compliance().DELETE('/rules/{rule_id}', { params: { path: { rule_id: id } } }));
        if (!ctx.out.json) ctx.out.line(`Deleted custom rule ${id}.`);
      },
    },
  ],
};
