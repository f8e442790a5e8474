import { unwrap, waitForScan } from '../../index.js';
import type { CommandContext, FlagSpec, Group } from '../command.js';
import { EXIT, type ExitCode } from '../exit-codes.js';
import { time, type Output } from '../output.js';
import { LIST_FLAGS, readList, showList } from '../paging.js';
import { WAIT_FLAGS, waitWithProgress } from '../wait.js';
import type { ComplianceFamily, Scan, ScanWithSummary } from '../schemas.js';

const FAMILY_FLAG: FlagSpec = { type: 'string', multiple: true, value: '<family,...>', description: 'only these compliance families (default: the environment\'s)' };

export function scanTable(out: Output, items: readonly Scan[]): void {
  out.table(items, [
    { header: 'ID', value: (s) => s.id },
    { header: 'STATUS', value: (s) => s.status },
    { header: 'STARTED', value: (s) => time(s.created_at) },
    { header: 'FINISHED', value: (s) => time(s.finished_at) },
    { header: 'MESSAGE', value: (s) => s.message, max: 60 },
  ]);
}

export function scanFields(out: Output, s: Scan | ScanWithSummary): void {
  const summary = 'resource_summary' in s ? s.resource_summary : undefined;
  out.fields([
    ['ID', s.id],
    ['Environment', s.environment_id],
    ['Status', s.status],
    ['Started', time(s.created_at)],
    ['Finished', time(s.finished_at)],
    ['Message', s.message],
    ['Remediation error', s.remediation_error],
    ...(summary
      ? ([
          ['Resources', `${summary.total} (${summary.compliant} compliant, ${summary.noncompliant} noncompliant) of ${summary.resource_types} types`],
          ['Rules', `${summary.rules_passed} passed, ${summary.rules_failed} failed`],
        ] as const)
      : []),
    ...('resource_type_errors' in s && s.resource_type_errors.length > 0
      ? ([['Type errors', s.resource_type_errors.map((e) => `${e.resource_type}: ${e.error_message}`).join('; ')]] as const)
      : []),
  ]);
}

/** Waits for the scan to finish, prints it, and turns an ERROR into exit code 5. */
async function waitAndShow(ctx: CommandContext, scanId: string): Promise<ExitCode> {
  const finished = await waitWithProgress(ctx, `scan ${scanId}`, (s: Scan) => s.status, (options) => waitForScan(ctx.compliance(), scanId, options));
  ctx.out.show(finished, (s) => scanFields(ctx.out, s));
  if (finished.status !== 'ERROR') return EXIT.ok;
  ctx.io.stderr.write(`scan ${finished.id} ended in ERROR${finished.message ? `: ${finished.message}` : ''}\n`);
  return EXIT.failed;
}

const SCAN_ARG = [{ name: 'scan-id', description: 'the scan id' }] as const;

export const scans: Group = {
  name: 'scans',
  api: 'compliance',
  summary: 'start scans, wait for them, and read their compliance results',
  commands: [
    {
      name: 'trigger',
      summary: 'start a scan of an environment now (and, with --wait, wait for its end)',
      description:
        'Prints the new scan (IN_PROGRESS). With --wait, polls it until it ends and prints the finished scan; ' +
        'a scan ending in ERROR exits 5, a wait running out of --timeout exits 4.',
      args: [{ name: 'environment-id', description: 'the environment to scan' }],
      flags: { wait: { type: 'boolean', description: 'wait until the scan is SUCCESS or ERROR' }, ...WAIT_FLAGS },
      examples: ['compliance-conductor scans trigger 3f1c2a9e-8b7d-4c6e-9f10-2a3b4c5d6e7f --wait --timeout 15m'],
      async run(ctx) {
        const started = await unwrap(ctx.compliance().POST('/scans', { params: { query: { environment_id: ctx.arg(0) } } }));
        if (ctx.flag('wait')) return waitAndShow(ctx, started.id);
        ctx.out.show(started, (s) => scanFields(ctx.out, s));
      },
    },
    {
      name: 'wait',
      summary: 'wait for a scan to end',
      description: 'Polls the scan until it is SUCCESS or ERROR and prints it; ERROR exits 5, running out of --timeout exits 4.',
      args: SCAN_ARG,
      flags: WAIT_FLAGS,
      examples: ['compliance-conductor scans wait 7b2e4f6a-1c3d-4e5f-8a9b-0c1d2e3f4a5b --timeout 5m'],
      run: (ctx) => waitAndShow(ctx, ctx.arg(0)),
    },
    {
      name: 'list',
      summary: 'list the scans of an environment, newest first',
      flags: {
        'environment-id': { type: 'string', value: '<id>', description: 'the environment (required)' },
        status: { type: 'string', multiple: true, value: '<status,...>', description: 'only scans in these states: IN_PROGRESS, SUCCESS, ERROR' },
        ...LIST_FLAGS,
      },
      examples: ['compliance-conductor scans list --environment-id 3f1c2a9e-8b7d-4c6e-9f10-2a3b4c5d6e7f --status ERROR'],
      async run(ctx) {
        const environment_id = ctx.requiredString('environment-id');
        const status = ctx.choices('status', ['IN_PROGRESS', 'SUCCESS', 'ERROR'] as const);
        const list = await readList(ctx, (offset, max_items) =>
          unwrap(ctx.compliance().GET('/scans', { params: { query: { environment_id, offset, max_items, ...(status && { status }) } } })),
        );
        showList(ctx, list, (items) => scanTable(ctx.out, items));
      },
    },
    {
      name: 'get',
      summary: 'show a scan with its resource summary',
      args: SCAN_ARG,
      examples: ['compliance-conductor scans get 7b2e4f6a-1c3d-4e5f-8a9b-0c1d2e3f4a5b'],
      async run(ctx) {
        const scan = await unwrap(ctx.compliance().GET('/scans/{scan_id}', { params: { path: { scan_id: ctx.arg(0) } } }));
        ctx.out.show(scan, (s) => scanFields(ctx.out, s));
      },
    },
    {
      name: 'rules',
      summary: 'a scan\'s results by rule',
      args: SCAN_ARG,
      flags: {
        result: { type: 'string', multiple: true, value: '<result,...>', description: 'only these results: PASS, FAIL, UNKNOWN' },
        family: FAMILY_FLAG,
        ...LIST_FLAGS,
      },
      examples: ['compliance-conductor scans rules 7b2e4f6a-1c3d-4e5f-8a9b-0c1d2e3f4a5b --result FAIL --family CIS'],
      async run(ctx) {
        const scan_id = ctx.arg(0);
        const result = ctx.choices('result', ['PASS', 'FAIL', 'UNKNOWN'] as const);
        const family = ctx.optionalStrings('family') as ComplianceFamily[] | undefined;
        const list = await readList(ctx, (offset, max_items) =>
          unwrap(
            ctx.compliance().GET('/scans/{scan_id}/compliance_by_rules', {
              params: { path: { scan_id }, query: { offset, max_items, ...(result && { result }), ...(family && { family }) } },
            }),
          ),
        );
        showList(ctx, list, (items) =>
          ctx.out.table(items, [
            { header: 'FAMILY', value: (r) => r.family },
            { header: 'RULE ID', value: (r) => r.rule_id },
            { header: 'SEVERITY', value: (r) => r.severity },
            { header: 'RESULT', value: (r) => r.result },
            { header: 'FAILED', value: (r) => r.failed_resource_count, align: 'right' },
            { header: 'RULE', value: (r) => r.rule, max: 60 },
          ]),
        );
      },
    },
    {
      name: 'resource-types',
      summary: 'a scan\'s results by resource type',
      args: SCAN_ARG,
      flags: {
        family: FAMILY_FLAG,
        'resource-type': { type: 'string', multiple: true, value: '<type,...>', description: 'only these resource types, e.g. PROVA.S3.Bucket' },
        ...LIST_FLAGS,
      },
      examples: ['compliance-conductor scans resource-types 7b2e4f6a-1c3d-4e5f-8a9b-0c1d2e3f4a5b --resource-type PROVA.S3.Bucket'],
      async run(ctx) {
        const scan_id = ctx.arg(0);
        const family = ctx.optionalStrings('family') as ComplianceFamily[] | undefined;
        const resource_type = ctx.optionalStrings('resource-type');
        const list = await readList(ctx, (offset, max_items) =>
          unwrap(
            ctx.compliance().GET('/scans/{scan_id}/compliance_by_resource_types', {
              params: { path: { scan_id }, query: { offset, max_items, ...(family && { family }), ...(resource_type && { resource_type }) } },
            }),
          ),
        );
        showList(ctx, list, (items) =>
          ctx.out.table(items, [
            { header: 'RESOURCE TYPE', value: (t) => t.resource_type },
            { header: 'TOTAL', value: (t) => t.total, align: 'right' },
            { header: 'COMPLIANT', value: (t) => t.compliant, align: 'right' },
            { header: 'NONCOMPLIANT', value: (t) => t.noncompliant_count, align: 'right' },
          ]),
        );
      },
    },
  ],
};
