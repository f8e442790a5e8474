import { submitDryRun, unwrap, waitForDryRun } from '../../index.js';
import type { CommandContext, Group } from '../command.js';
import { EXIT, UsageError, type ExitCode } from '../exit-codes.js';
import { archiveAt } from '../input.js';
import { time, type Output } from '../output.js';
import type { DryRun } from '../schemas.js';
import { WAIT_FLAGS, waitWithProgress } from '../wait.js';

const COMMANDS = ['RUN', 'UPDATE', 'KILL', 'RESUME'] as const;

export function dryRunView(out: Output, d: DryRun): void {
  out.fields([
    ['ID', d.id],
    ['Command', d.command],
    ['Status', d.status],
    ['Process', d.process],
    ['Account', d.account],
    ['Created', time(d.created_at)],
    ['Finished', time(d.finished_at)],
  ]);
  if (d.errors.length > 0) {
    out.line();
    out.table(d.errors, [
      { header: 'ERROR', value: (e) => e.code },
      { header: 'WHERE', value: (e) => e.location },
      { header: 'MESSAGE', value: (e) => e.message, max: 100 },
    ]);
  }
  if (d.plan.length > 0) {
    out.line();
    out.table(d.plan, [
      { header: 'OPERATION', value: (p) => p.operation },
      { header: 'RESOURCE', value: (p) => p.resource_name },
      { header: 'TYPE', value: (p) => p.resource_type },
      { header: 'RESOURCE ID', value: (p) => p.resource_id, max: 60 },
      { header: 'CHANGES', value: (p) => (p.changes ? Object.keys(p.changes) : null), max: 60 },
    ]);
  }
}

/** Waits for the dry-run's result, prints it, and turns FAILED into exit code 5. */
async function waitAndShow(ctx: CommandContext, id: string): Promise<ExitCode> {
  const finished = await waitWithProgress(ctx, `dry-run ${id}`, (d: DryRun) => d.status, (options) => waitForDryRun(ctx.conductor(), id, options));
  ctx.out.show(finished, (d) => dryRunView(ctx.out, d));
  if (finished.status === 'SUCCEEDED') return EXIT.ok;
  ctx.io.stderr.write(`dry-run ${finished.id} FAILED: ${finished.errors.map((e) => e.message).join('; ') || 'no reason given'}\n`);
  return EXIT.failed;
}

const ID_ARG = [{ name: 'dry-run-id', description: 'the dry-run id that submit printed' }] as const;

export const dryRun: Group = {
  name: 'dry-run',
  api: 'conductor',
  summary: 'what a command on a process would do, computed without changing anything',
  commands: [
    {
      name: 'submit',
      summary: 'queue a dry-run of RUN, UPDATE, KILL or RESUME (and, with --wait, wait for its result)',
      description:
        'RUN needs --account and a composition; UPDATE needs --process and a composition; KILL and RESUME need ' +
        '--process only. Without --wait, prints the dry-run id to pass to `dry-run wait`. With --wait, a dry-run ' +
        'ending FAILED exits 5, and a wait running out of --timeout exits 4.',
      args: [
        { name: 'command', description: `the command: ${COMMANDS.join(', ')} (any case)` },
        { name: 'composition', description: 'RUN and UPDATE: a directory holding composition.yaml, or a tar / tar.gz of it', optional: true },
      ],
      flags: {
        process: { type: 'string', value: '<process>', description: 'the target process\'s FID or alias (UPDATE, KILL, RESUME)' },
        account: { type: 'string', value: '<account>', description: 'the account (required for RUN)' },
        'import-resources': { type: 'boolean', description: 'RUN: adopt the resources listed under `imports`' },
        wait: { type: 'boolean', description: 'wait until the dry-run is SUCCEEDED or FAILED and print its plan' },
        ...WAIT_FLAGS,
      },
      examples: [
        'compliance-conductor dry-run submit update ./composition --process web-frontend --wait',
        'compliance-conductor dry-run submit KILL --process web-frontend --wait --timeout 2m',
      ],
      async run(ctx) {
        const command = COMMANDS.find((c) => c === ctx.arg(0).toUpperCase());
        if (!command) throw new UsageError(`the command must be one of ${COMMANDS.join(', ')}, not '${ctx.arg(0)}'`);
        const path = ctx.optionalArg(1);
        if ((command === 'RUN' || command === 'UPDATE') && path === undefined) throw new UsageError(`${command} needs a composition directory or archive`);
        if ((command === 'KILL' || command === 'RESUME') && path !== undefined) throw new UsageError(`${command} takes no composition`);
        const process = ctx.string('process');
        const account = ctx.string('account');
        const query = {
          command,
          ...(process !== undefined && { process }),
          ...(account !== undefined && { account }),
          ...(ctx.flag('import-resources') && { import_resources: true }),
        };
        const accepted = await submitDryRun(ctx.conductor(), query, path === undefined ? undefined : await archiveAt(path));
        if (ctx.flag('wait')) return waitAndShow(ctx, accepted.id);
        ctx.out.show(accepted, (a) => ctx.out.fields([['ID', a.id], ['Status', a.status]]));
      },
    },
    {
      name: 'get',
      summary: 'show a dry-run as it is now (PENDING, RUNNING, SUCCEEDED or FAILED)',
      args: ID_ARG,
      examples: ['compliance-conductor dry-run get 9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d'],
      async run(ctx) {
        const dryRun = await unwrap(ctx.conductor().GET('/dry-run/{id}', { params: { path: { id: ctx.arg(0) } } }));
        ctx.out.show(dryRun, (d) => dryRunView(ctx.out, d));
      },
    },
    {
      name: 'wait',
      summary: 'wait for a dry-run\'s result',
      description: 'Long-polls the dry-run until it is SUCCEEDED or FAILED and prints it; FAILED exits 5, running out of --timeout exits 4.',
      args: ID_ARG,
      flags: WAIT_FLAGS,
      examples: ['compliance-conductor dry-run wait 9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d --timeout 5m'],
      run: (ctx) => waitAndShow(ctx, ctx.arg(0)),
    },
  ],
};
