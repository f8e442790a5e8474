import { createProcess, unwrap, updateProcessComposition } from '../../index.js';
import type { CommandContext, FlagSpec, Group } from '../command.js';
import { UsageError } from '../exit-codes.js';
import { BODY_FLAGS, archiveAt, defined, jsonBody } from '../input.js';
import { time, type Output } from '../output.js';
import type { HistoryEntry, Operation, Process, ProcessPatch, ProcessSummary } from '../schemas.js';

function processTable(out: Output, items: readonly ProcessSummary[]): void {
  out.table(items, [
    { header: 'FID', value: (p) => p.fid },
    { header: 'ALIAS', value: (p) => p.alias },
    { header: 'ACCOUNT', value: (p) => p.account },
    { header: 'STATE', value: (p) => p.state },
    { header: 'ENFORCEMENT', value: (p) => p.enforcement },
    { header: 'LOCK', value: (p) => p.lock },
    { header: 'RESOURCES', value: (p) => p.resource_count, align: 'right' },
    { header: 'UPDATED', value: (p) => time(p.updated_at) },
  ]);
}

export function processView(out: Output, p: Process): void {
  out.fields([
    ['FID', p.fid],
    ['Alias', p.alias],
    ['Account', p.account],
    ['State', p.state],
    ['Enforcement', p.enforcement],
    ['Lock', p.lock],
    ['Composition', p.composition_digest],
    ['Created', time(p.created_at)],
    ['Updated', time(p.updated_at)],
  ]);
  out.line();
  out.table(p.resources, [
    { header: 'NAME', value: (r) => r.name },
    { header: 'TYPE', value: (r) => r.type },
    { header: 'REGION', value: (r) => r.region },
    { header: 'STATUS', value: (r) => r.status },
    { header: 'RESOURCE ID', value: (r) => r.resource_id, max: 80 },
  ]);
}

function historyTable(out: Output, items: readonly HistoryEntry[]): void {
  out.table(items, [
    { header: 'TIME', value: (h) => time(h.at) },
    { header: 'EVENT', value: (h) => h.event },
    { header: 'ACTOR', value: (h) => h.actor },
    { header: 'JOB', value: (h) => h.job_id },
    { header: 'DETAILS', value: (h) => (Object.keys(h.details).length === 0 ? '-' : h.details), max: 80 },
  ]);
}

function opsTable(out: Output, items: readonly Operation[]): void {
  out.table(items, [
    { header: 'TIME', value: (o) => time(o.at) },
    { header: 'OPERATION', value: (o) => o.operation },
    { header: 'RESOURCE', value: (o) => o.resource_name },
    { header: 'TYPE', value: (o) => o.resource_type },
    { header: 'STATUS', value: (o) => o.status },
    { header: 'JOB', value: (o) => o.job_id },
    { header: 'MESSAGE', value: (o) => o.message, max: 60 },
  ]);
}

const PROCESS_ARG = { name: 'process', description: 'the process\'s FID or alias' } as const;

const RANGE_FLAGS: Record<string, FlagSpec> = {
  start: { type: 'string', value: '<time>', description: 'only entries at or after this minute: "mm/dd/YYYY HH:MM" (UTC) or ISO 8601' },
  end: { type: 'string', value: '<time>', description: 'only entries up to the end of this minute (same formats)' },
};

const range = (ctx: CommandContext) => {
  const start = ctx.minute('start');
  const end = ctx.minute('end');
  return { ...(start !== undefined && { start }), ...(end !== undefined && { end }) };
};

export const processes: Group = {
  name: 'processes',
  api: 'conductor',
  summary: 'processes: compositions of cloud resources the conductor creates and keeps as declared',
  commands: [
    {
      name: 'list',
      summary: 'list the processes',
      flags: { account: { type: 'string', value: '<account>', description: 'only the processes of this account (name or account id)' } },
      examples: ['compliance-conductor processes list --account prod-main'],
      async run(ctx) {
        const account = ctx.string('account');
        const list = await unwrap(ctx.conductor().GET('/processes', { params: { query: { ...(account !== undefined && { account }) } } }));
        ctx.out.show(list, (l) => processTable(ctx.out, l.items));
      },
    },
    {
      name: 'create',
      summary: 'create a process from a composition (a directory holding composition.yaml, or a tar / tar.gz)',
      description: 'A directory is packed into a tar of its regular files; the process\'s resources are then created by a job.',
      args: [{ name: 'composition', description: 'a directory holding composition.yaml, or a tar / tar.gz archive of it' }],
      flags: {
        account: { type: 'string', value: '<account>', description: 'the account to create the resources in (required)' },
        alias: { type: 'string', value: '<alias>', description: 'a name for the process, usable wherever its FID is' },
        'import-resources': { type: 'boolean', description: 'adopt the resources listed under `imports` instead of creating them' },
      },
      examples: ['compliance-conductor processes create examples/conductor/composition --account prod-main --alias web-frontend'],
      async run(ctx) {
        const account = ctx.requiredString('account');
        const alias = ctx.string('alias');
        const archive = await archiveAt(ctx.arg(0));
        const query = { account, ...(alias !== undefined && { alias }), ...(ctx.flag('import-resources') && { import_resources: true }) };
        const created = await createProcess(ctx.conductor(), query, archive);
        ctx.out.show(created, (p) => processView(ctx.out, p));
      },
    },
    {
      name: 'get',
      summary: 'show a process and its resources',
      args: [PROCESS_ARG],
      examples: ['compliance-conductor processes get web-frontend'],
      async run(ctx) {
        const process = await unwrap(ctx.conductor().GET('/processes/{process}', { params: { path: { process: ctx.arg(0) } } }));
        ctx.out.show(process, (p) => processView(ctx.out, p));
      },
    },
    {
      name: 'update',
      summary: 'change a process\'s alias, enforcement or lock, or suspend / resume / kill it',
      description: 'The body is the API\'s ProcessPatch, from --body or --file, with the flags applied over it; all of it applies, or none.',
      args: [PROCESS_ARG],
      flags: {
        ...BODY_FLAGS,
        alias: { type: 'string', value: '<alias>', description: 'the new alias ("" removes it)' },
        enforcement: { type: 'string', value: 'on|off', description: 'correct drift from the composition automatically' },
        lock: { type: 'string', value: 'on|off', description: 'a locked process refuses state changes, composition updates and kills' },
        action: { type: 'string', value: '<action>', description: 'a state change: suspend, resume or kill' },
      },
      examples: ['compliance-conductor processes update web-frontend --lock off --action suspend'],
      async run(ctx) {
        const body = await jsonBody(ctx);
        Object.assign(
          body,
          defined({
            alias: ctx.string('alias'),
            enforcement: ctx.onOff('enforcement'),
            lock: ctx.onOff('lock'),
            action: ctx.choice('action', ['suspend', 'resume', 'kill'] as const),
          }),
        );
        if (Object.keys(body).length === 0) throw new UsageError('nothing to change: give --body, --file, --alias, --enforcement, --lock or --action');
        const accepted = await unwrap(
          ctx.conductor().PATCH('/processes/{process}', { params: { path: { process: ctx.arg(0) } }, body: body as ProcessPatch }),
        );
        ctx.out.show(accepted, (a) =>
          ctx.out.fields([
            ['FID', a.fid],
            ['Alias', a.alias],
            ['State', a.state],
            ['Enforcement', a.enforcement],
            ['Lock', a.lock],
            ['Transaction', a.transaction_id],
          ]),
        );
      },
    },
    {
      name: 'update-composition',
      summary: 'replace a process\'s composition; a job applies the difference',
      args: [PROCESS_ARG, { name: 'composition', description: 'a directory holding composition.yaml, or a tar / tar.gz archive of it' }],
      examples: ['compliance-conductor processes update-composition web-frontend ./composition'],
      async run(ctx) {
        const archive = await archiveAt(ctx.arg(1));
        const accepted = await updateProcessComposition(ctx.conductor(), ctx.arg(0), archive);
        ctx.out.show(accepted, (a) => ctx.out.line(`Composition of ${a.fid} accepted; job ${a.job_id} applies it (see processes ops).`));
      },
    },
    {
      name: 'kill',
      summary: 'delete a process\'s resources in the cloud; the process ends KILLED',
      args: [PROCESS_ARG],
      examples: ['compliance-conductor processes kill web-frontend'],
      async run(ctx) {
        const answer = await unwrap(ctx.conductor().DELETE('/processes/{process}', { params: { path: { process: ctx.arg(0) }, query: { kill: true } } }));
        ctx.out.show(answer, (a) =>
          ctx.out.line('job_id' in a ? `Process ${a.fid} is ${a.state}; job ${a.job_id} deletes its resources (see processes ops).` : `${a.status} process ${a.fid}.`),
        );
      },
    },
    {
      name: 'release',
      summary: 'stop managing a process, leaving its resources in the cloud',
      args: [PROCESS_ARG],
      examples: ['compliance-conductor processes release web-frontend'],
      async run(ctx) {
        const released = await unwrap(ctx.conductor().DELETE('/processes/{process}', { params: { path: { process: ctx.arg(0) }, query: { kill: false } } }));
        ctx.out.show(released, (r) => ctx.out.line(`${'status' in r ? r.status : r.state} process ${r.fid}; its resources are left in the cloud.`));
      },
    },
    {
      name: 'history',
      summary: 'what happened to a process, oldest first',
      args: [PROCESS_ARG],
      flags: RANGE_FLAGS,
      examples: ['compliance-conductor processes history web-frontend --start "06/01/2026 00:00"'],
      async run(ctx) {
        const history = await unwrap(
          ctx.conductor().GET('/processes/{process}/history', { params: { path: { process: ctx.arg(0) }, query: range(ctx) } }),
        );
        ctx.out.show(history, (h) => historyTable(ctx.out, h.items));
      },
    },
    {
      name: 'ops',
      summary: 'the cloud operations a process\'s jobs performed, oldest first',
      args: [PROCESS_ARG],
      flags: {
        job: { type: 'string', value: '<job-id>', description: 'only the operations of this job' },
        first: { type: 'boolean', description: 'only the first job\'s operations (the creation)' },
        last: { type: 'boolean', description: 'only the most recent job\'s operations' },
        ...RANGE_FLAGS,
      },
      examples: ['compliance-conductor processes ops web-frontend --last', 'compliance-conductor processes ops web-frontend --job 0c1d2e3f-4a5b-4c6d-8e9f-a0b1c2d3e4f5'],
      async run(ctx) {
        const process = ctx.arg(0);
        const job = ctx.string('job');
        if (job !== undefined && (ctx.flag('first') || ctx.flag('last'))) throw new UsageError('--job cannot be combined with --first or --last');
        const ops = job
          ? await unwrap(ctx.conductor().GET('/processes/{process}/ops/{job_id}', { params: { path: { process, job_id: job }, query: range(ctx) } }))
          : await unwrap(
              ctx.conductor().GET('/processes/{process}/ops', {
                params: { path: { process }, query: { ...range(ctx), ...(ctx.flag('first') && { first: true }), ...(ctx.flag('last') && { last: true }) } },
              }),
            );
        ctx.out.show(ops, (o) => opsTable(ctx.out, o.items));
      },
    },
  ],
};
