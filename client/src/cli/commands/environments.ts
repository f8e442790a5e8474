import { unwrap } from '../../index.js';
import type { CommandContext, FlagSpec, Group } from '../command.js';
import { UsageError } from '../exit-codes.js';
import { BODY_FLAGS, defined, jsonBody } from '../input.js';
import { time, type Output } from '../output.js';
import { LIST_FLAGS, readList, showList } from '../paging.js';
import type { CreateEnvironmentInput, Environment, EnvironmentWithSummary, Provider, UpdateEnvironmentInput } from '../schemas.js';

export const PROVIDERS = ['provider_a', 'provider_a_gov', 'provider_b'] as const satisfies readonly Provider[];

export function environmentTable(out: Output, items: readonly Environment[]): void {
  out.table(items, [
    { header: 'ID', value: (e) => e.id },
    { header: 'NAME', value: (e) => e.name, max: 40 },
    { header: 'PROVIDER', value: (e) => e.provider },
    { header: 'SCAN STATUS', value: (e) => e.scan_status },
    { header: 'LAST SCAN', value: (e) => time(e.last_scan_at) },
    { header: 'NEXT SCAN', value: (e) => (e.scan_schedule_enabled ? time(e.next_scan_at) : 'off') },
  ]);
}

function providerSummary(e: Environment): string {
  const options = e.provider_options as Record<string, Record<string, unknown> | undefined>;
  const a = options.provider_a ?? options.provider_a_gov;
  if (a) return `${String(a.role_arn)} in ${[a.regions ?? a.region].flat().join(',')}`;
  const b = options.provider_b;
  return b ? `subscription ${String(b.subscription_id)}` : '-';
}

export function environmentFields(out: Output, e: Environment | EnvironmentWithSummary): void {
  const summary = 'resource_summary' in e ? e.resource_summary : undefined;
  out.fields([
    ['ID', e.id],
    ['Name', e.name],
    ['Provider', e.provider],
    ['Access', providerSummary(e)],
    ['Families', e.compliance_families],
    ['Surveyed types', e.survey_resource_types.length === 0 ? 'all' : e.survey_resource_types],
    ['Remediated types', e.remediate_resource_types],
    ['Baseline', e.baseline_id],
    ['Drift detection', e.drift],
    ['Remediation', e.remediation],
    ['Scan schedule', e.scan_schedule_enabled ? `every ${e.scan_interval} s` : 'off'],
    ['Scan status', e.scan_status],
    ['Last scan', time(e.last_scan_at)],
    ['Next scan', e.scan_schedule_enabled ? time(e.next_scan_at) : '-'],
    ['Created', time(e.created_at)],
    ['Updated', time(e.updated_at)],
    ...(summary
      ? ([
          ['Resources', `${summary.total} (${summary.compliant} compliant, ${summary.noncompliant} noncompliant)`],
          ['Rules', `${summary.rules_passed} passed, ${summary.rules_failed} failed`],
        ] as const)
      : []),
  ]);
}

/** Flags that write the environment's fields; shared by create and update. */
const FIELD_FLAGS: Record<string, FlagSpec> = {
  ...BODY_FLAGS,
  name: { type: 'string', value: '<name>', description: 'the environment name' },
  provider: { type: 'string', value: '<provider>', description: `the cloud provider: ${PROVIDERS.join(', ')}` },
  'role-arn': { type: 'string', value: '<arn>', description: 'provider_a / provider_a_gov: the role the scanner assumes' },
  regions: { type: 'string', multiple: true, value: '<region,...>', description: 'provider_a / provider_a_gov: regions to scan (`*` for all)' },
  'subscription-id': { type: 'string', value: '<uuid>', description: 'provider_b: the subscription to scan (other provider_b options go in --body)' },
  families: { type: 'string', multiple: true, value: '<family,...>', description: 'compliance families to evaluate, e.g. CIS,NIST' },
  'survey-types': { type: 'string', multiple: true, value: '<type,...>', description: 'resource types to scan (default: all)' },
  'remediate-types': { type: 'string', multiple: true, value: '<type,...>', description: 'resource types baseline enforcement may change' },
  'scan-interval': { type: 'string', value: '<seconds>', description: 'seconds between scheduled scans (at least 600)' },
  schedule: { type: 'string', value: 'on|off', description: 'turn scheduled scans on or off' },
};

/** Applies the field flags over the JSON body; provider options go under the provider's key. */
function applyFieldFlags(ctx: CommandContext, body: Record<string, unknown>, provider: string | undefined): void {
  Object.assign(
    body,
    defined({
      name: ctx.string('name'),
      provider: ctx.choice('provider', PROVIDERS),
      compliance_families: ctx.optionalStrings('families'),
      survey_resource_types: ctx.optionalStrings('survey-types'),
      remediate_resource_types: ctx.optionalStrings('remediate-types'),
      scan_interval: ctx.int('scan-interval'),
      scan_schedule_enabled: ctx.onOff('schedule'),
    }),
  );
  const access = defined({ role_arn: ctx.string('role-arn'), regions: ctx.optionalStrings('regions'), subscription_id: ctx.string('subscription-id') });
  if (Object.keys(access).length === 0) return;
  if (provider === undefined) throw new UsageError('--role-arn, --regions and --subscription-id need --provider');
  const options = { ...(body.provider_options as Record<string, Record<string, unknown>> | undefined) };
  options[provider] = { ...options[provider], ...access };
  body.provider_options = options;
}

const ID_ARG = [{ name: 'environment-id', description: 'the environment id' }] as const;

export const environments: Group = {
  name: 'environments',
  api: 'compliance',
  summary: 'cloud accounts to scan, with their schedule, baseline and remediation settings',
  commands: [
    {
      name: 'list',
      summary: 'list the environments',
      flags: {
        ...LIST_FLAGS,
        search: {
          type: 'string',
          multiple: true,
          value: '<term>',
          description: 'only environments matching every term: name:, id:, arn:, provider:, status: prefixes, or text in the name',
        },
      },
      examples: ['compliance-conductor environments list', 'compliance-conductor environments list --search provider:provider_a --search prod --json'],
      async run(ctx) {
        const query = ctx.searchQuery();
        const list = await readList(ctx, (offset, max_items) =>
          unwrap(ctx.compliance().GET('/environments', { params: { query: { offset, max_items, ...(query !== undefined && { query }) } } })),
        );
        showList(ctx, list, (items) => environmentTable(ctx.out, items));
      },
    },
    {
      name: 'get',
      summary: 'show an environment and the resource summary of its last scan',
      args: ID_ARG,
      examples: ['compliance-conductor environments get 3f1c2a9e-8b7d-4c6e-9f10-2a3b4c5d6e7f'],
      async run(ctx) {
        const environment = await unwrap(ctx.compliance().GET('/environments/{environment_id}', { params: { path: { environment_id: ctx.arg(0) } } }));
        ctx.out.show(environment, (e) => environmentFields(ctx.out, e));
      },
    },
    {
      name: 'create',
      summary: 'create an environment',
      description: 'The body is the API\'s CreateEnvironmentInput, from --body or --file, with the flags applied over it.',
      flags: FIELD_FLAGS,
      examples: [
        'compliance-conductor environments create --name prod --provider provider_a \\\n    --role-arn arn:prova:iam::123456789012:role/scanner --regions us-east-1,us-west-2 --families CIS',
        'compliance-conductor environments create --file environment.json',
      ],
      async run(ctx) {
        const body = await jsonBody(ctx);
        applyFieldFlags(ctx, body, ctx.choice('provider', PROVIDERS) ?? (body.provider as string | undefined));
        const created = await unwrap(ctx.compliance().POST('/environments', { body: body as CreateEnvironmentInput }));
        ctx.out.show(created, (e) => environmentFields(ctx.out, e));
      },
    },
    {
      name: 'update',
      summary: 'change an environment\'s settings',
      description: 'The body is the API\'s UpdateEnvironmentInput (absent fields are unchanged), with the flags applied over it.',
      args: ID_ARG,
      flags: {
        ...FIELD_FLAGS,
        baseline: { type: 'string', value: '<scan-id>', description: 'the scan whose resources are the baseline ("" clears it, turning drift detection off)' },
        remediation: { type: 'string', value: 'on|off', description: 'turn baseline enforcement on or off' },
      },
      examples: ['compliance-conductor environments update 3f1c2a9e-8b7d-4c6e-9f10-2a3b4c5d6e7f --schedule off --regions us-east-1'],
      async run(ctx) {
        const id = ctx.arg(0);
        const body = await jsonBody(ctx);
        const needsProvider = ctx.has('role-arn') || ctx.has('regions') || ctx.has('subscription-id');
        let provider = ctx.choice('provider', PROVIDERS) ?? (body.provider as string | undefined);
        if (needsProvider && provider === undefined) {
          provider = (await unwrap(ctx.compliance().GET('/environments/{environment_id}', { params: { path: { environment_id: id } } }))).provider;
        }
        applyFieldFlags(ctx, body, provider);
        Object.assign(body, defined({ baseline_id: ctx.string('baseline'), remediation: ctx.onOff('remediation') }));
        if (Object.keys(body).length === 0) throw new UsageError('nothing to change: give --body, --file or a field flag');
        const updated = await unwrap(
          ctx.compliance().PATCH('/environments/{environment_id}', { params: { path: { environment_id: id } }, body: body as UpdateEnvironmentInput }),
        );
        ctx.out.show(updated, (e) => environmentFields(ctx.out, e));
      },
    },
    {
      name: 'delete',
      summary: 'delete an environment with its scans and events',
      args: ID_ARG,
      examples: ['compliance-conductor environments delete 3f1c2a9e-8b7d-4c6e-9f10-2a3b4c5d6e7f'],
      async run(ctx) {
        const id = ctx.arg(0);
        await unwrap(ctx.compliance().DELETE('/environments/{environment_id}', { params: { path: { environment_id: id } } }));
        // The API answers 204 without a body; with --json there is nothing to print.
        if (!ctx.out.json) ctx.out.line(`Deleted environment ${id}.`);
      },
    },
  ],
};
