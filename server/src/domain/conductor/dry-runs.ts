import type { Clock } from '../clock.js';
import type { CloudAdapter } from '../cloud/adapter.js';
import { AppError, type ErrorDetail } from '../errors.js';
import { newId } from '../ids.js';
import type { JobQueue } from '../jobs/queue.js';
import { conductorTenant } from '../jobs/tenants.js';
import { silentLog, type Log } from '../log.js';
import type { DryRunRepository, ProcessRepository } from '../repositories.js';
import type { AccountService } from './accounts.js';
import type { CompletionWaiter } from './completion-waiter.js';
import type { CompositionChecks } from './composition-checks.js';
import { readCompositionArchive } from './composition-file.js';
import { refusal } from './lifecycle.js';
import { initialResources, observe, planKill, planReconcile, recompose, toPlannedOperations } from './planner.js';
import type { ProcessService } from './processes.js';
import { DRY_RUN_COMMANDS, isFinished, type DryRun, type DryRunCommand, type PlannedOperation, type Process } from './types.js';

/** The queue's job kind that computes a dry-run; its payload is `{ dryRunId }`. */
export const DRY_RUN_JOB = 'conductor.dry-run';
/** The longest `GET /dry-run/{id}?timeout=` waits, in seconds: any larger timeout is accepted and waits this long. */
export const MAX_DRY_RUN_WAIT_SECONDS = 60;

export interface DryRunServiceDeps {
  dryRuns: DryRunRepository;
  processes: ProcessRepository;
  processService: ProcessService;
  accounts: AccountService;
  checks: CompositionChecks;
  cloud: CloudAdapter;
  jobs: JobQueue;
  clock: Clock;
  waiter: CompletionWaiter;
  log?: Log;
}

export interface DryRunRequest {
  command: string;
  process?: string;
  account?: string;
  importResources: boolean;
  /** The request body; required for RUN and UPDATE, ignored otherwise. */
  archive?: Uint8Array;
  /** The request's id (X-Request-Id), carried by the dry-run's job onto its log lines. */
  requestId?: string;
}

const missing = (parameter: string, message: string): AppError =>
  new AppError('missing_parameter', 'Bad request', { details: [{ code: parameter, message, location: parameter }] });

/** The one error of a dry-run that could not be evaluated at all. */
const notCompleted = (reason: string): ErrorDetail => ({ code: 'dry_run.error', message: `the dry-run could not be completed: ${reason}`, location: 'query.command' });

/**
 * Dry-runs: what a RUN, UPDATE, KILL or RESUME command would do, computed by a job with the same checks and the
 * same planner the real command uses, reading the cloud but never changing it.
 */
export class DryRunService {
  constructor(private readonly deps: DryRunServiceDeps) {}

  /**
   * Queues a dry-run. What can be told at once is told at once: a missing parameter or body, an invalid archive
   * (400), an unknown process or account (404). Everything else makes the dry-run FAILED with its reasons.
   */
  async request(input: DryRunRequest): Promise<DryRun> {
    const command = input.command.toUpperCase() as DryRunCommand;
    if (!DRY_RUN_COMMANDS.includes(command)) throw missing('query.command', `command must be one of ${DRY_RUN_COMMANDS.join(', ')}`);
    let process: Process | undefined;
    let accountName: string;
    if (command === 'RUN') {
      if (input.process !== undefined) {
        throw new AppError('bad_request', 'Bad request', {
          details: [{ code: 'query.process', message: 'RUN creates a new process; process applies to KILL, RESUME and UPDATE only', location: 'query.process' }],
        });
      }
      if (input.account === undefined) throw missing('query.account', 'account is required for RUN');
      accountName = (await this.deps.accounts.find(input.account, 'query.account')).name;
    } else {
      if (input.process === undefined) throw missing('query.process', `process is required for ${command}`);
      process = await this.deps.processService.find(input.process, 'query.process');
      accountName = process.accountName;
      if (input.account !== undefined) {
        const account = await this.deps.accounts.find(input.account, 'query.account');
        if (account.name !== process.accountName) {
          throw new AppError('bad_request', 'Bad request', {
            details: [{ code: 'query.account', message: `process ${process.fid} runs in account '${process.accountName}', not '${account.name}'`, location: 'query.account' }],
          });
        }
      }
    }
    let compositionText: string | null = null;
    if (command === 'RUN' || command === 'UPDATE') {
      if (!input.archive || input.archive.length === 0) throw missing('body', `${command} needs the composition archive as the body`);
      compositionText = (await readCompositionArchive(input.archive)).text;
    }
    const id = newId();
    const job = this.deps.jobs.newJob(DRY_RUN_JOB, { dryRunId: id }, { maxAttempts: 3, requestId: input.requestId ?? null, tenant: conductorTenant(accountName) });
    const dryRun: DryRun = {
      id,
      command,
      status: 'PENDING',
      processFid: process?.fid ?? null,
      accountName,
      importResources: command === 'RUN' && input.importResources,
      compositionText,
      errors: [],
      plan: [],
      jobId: job.id,
      createdAt: this.deps.clock.nowSeconds(),
      finishedAt: null,
    };
    await this.deps.dryRuns.insert(dryRun, job);
    this.deps.jobs.wake();
    return dryRun;
  }

  /** The dry-run; with `timeoutSeconds` > 0, as soon as it finishes or when the time is up (at most 60 s). */
  async get(id: string, timeoutSeconds = 0): Promise<DryRun> {
    const dryRun = await this.read(id);
    if (isFinished(dryRun.status) || timeoutSeconds <= 0) return dryRun;
    const waited = this.deps.waiter.wait(id, Math.min(timeoutSeconds, MAX_DRY_RUN_WAIT_SECONDS) * 1000);
    // It may have finished between the first read and the waiter being in place.
    if (isFinished((await this.read(id)).status)) this.deps.waiter.notify(id);
    await waited;
    return this.read(id);
  }

  /** Requests waiting in `get` for a dry-run to finish, right now. */
  get waitingRequests(): number {
    return this.deps.waiter.waiterCount;
  }

  /**
   * Answers every `get` waiting for a result, and every later one, at once with the current state; returns how many
   * were waiting.
   */
  stopWaiting(): number {
    return this.deps.waiter.close();
  }

  private async read(id: string): Promise<DryRun> {
    const dryRun = await this.deps.dryRuns.get(id);
    if (!dryRun) {
      throw new AppError('not_found', 'Resource not found', { details: [{ code: 'dry_run.not_found', message: `no dry-run with id '${id}'`, location: 'path.id' }] });
    }
    return dryRun;
  }

  /**
   * The job: computes the outcome, records it and wakes whoever waits for it. `reached` names the points a test
   * may crash the process at (see JobContext.reached). Once `signal` is aborted (the worker stops) it records
   * nothing more, and the dry-run stays RUNNING for the worker that takes the job up next.
   */
  async run(id: string, reached: (point: string) => void = () => {}, signal?: AbortSignal): Promise<void> {
    const dryRun = await this.deps.dryRuns.get(id);
    if (!dryRun || isFinished(dryRun.status)) return;
    signal?.throwIfAborted();
    await this.deps.dryRuns.update({ ...dryRun, status: 'RUNNING' });
    let outcome: { errors: ErrorDetail[]; plan: PlannedOperation[] };
    try {
      outcome = await this.evaluate(dryRun);
    } catch (error) {
      // Stopping the worker is not the dry-run's result, nor is a database that could not serve for a moment: the
      // job is retried, and the dry-run ends FAILED only once the queue gives its last attempt up.
      if (signal?.aborted || (error instanceof AppError && error.code === 'unavailable')) throw error;
      // A dry-run only reads: there is nothing to retry for, so an unexpected error is its result.
      (this.deps.log ?? silentLog).error({ err: error, dryRunId: id }, 'a dry-run could not be evaluated');
      outcome = { errors: [notCompleted((error as Error).message)], plan: [] };
    }
    // Evaluated, its outcome not yet recorded: a crash here leaves the dry-run RUNNING for the next attempt.
    reached('evaluated');
    const failed = outcome.errors.length > 0;
    await this.deps.dryRuns.update({
      ...dryRun,
      status: failed ? 'FAILED' : 'SUCCEEDED',
      errors: outcome.errors,
      plan: failed ? [] : outcome.plan,
      finishedAt: this.deps.clock.nowSeconds(),
    });
    this.deps.waiter.notify(id);
  }

  /** The queue gave the dry-run's job up: the dry-run ends FAILED with the reason, and waiters wake. */
  async giveUp(id: string, reason: string): Promise<void> {
    const dryRun = await this.deps.dryRuns.get(id);
    if (!dryRun || isFinished(dryRun.status)) return;
    await this.deps.dryRuns.update({
      ...dryRun,
      status: 'FAILED',
      errors: [notCompleted(reason)],
      plan: [],
      finishedAt: this.deps.clock.nowSeconds(),
    });
    this.deps.waiter.notify(id);
  }

  private async evaluate(dryRun: DryRun): Promise<{ errors: ErrorDetail[]; plan: PlannedOperation[] }> {
    const { cloud, checks, processes } = this.deps;
    if (dryRun.command === 'RUN') {
      const account = await this.deps.accounts.lookup(dryRun.accountName ?? '');
      if (!account) return { errors: [{ code: 'account.not_found', message: `account '${dryRun.accountName}' is no longer managed`, location: 'query.account' }], plan: [] };
      const checked = await checks.check(dryRun.compositionText ?? '', account, { importResources: dryRun.importResources });
      if (!checked.composition) return { errors: checked.problems, plan: [] };
      const resources = initialResources(dryRun.id, checked.composition, dryRun.importResources);
      return { errors: [], plan: toPlannedOperations(planReconcile(resources, await observe(cloud, account, resources))) };
    }

    const process = dryRun.processFid === null ? undefined : await processes.get(dryRun.processFid);
    if (!process || process.releasedAt !== null) {
      return { errors: [{ code: 'process.not_found', message: `process ${dryRun.processFid} is no longer managed`, location: 'query.process' }], plan: [] };
    }
    const request = dryRun.command === 'KILL' ? 'kill' : dryRun.command === 'RESUME' ? 'resume' : 'update_composition';
    const refused = refusal(process, request, process.lock, 'query.command');
    if (refused) return { errors: [refused], plan: [] };
    const resources = await processes.resources(process.fid);

    if (dryRun.command === 'UPDATE') {
      const checked = await checks.check(dryRun.compositionText ?? '', process, { importResources: false, adopted: resources });
      if (!checked.composition) return { errors: checked.problems, plan: [] };
      const { all } = recompose(process.fid, resources, checked.composition);
      return { errors: [], plan: toPlannedOperations(planReconcile(all, await observe(cloud, process, all))) };
    }
    const observed = await observe(cloud, process, resources);
    if (dryRun.command === 'KILL') return { errors: [], plan: toPlannedOperations(planKill(resources, observed)) };
    // RESUME: a process with enforcement on corrects what drifted while it was suspended.
    return { errors: [], plan: process.enforcement ? toPlannedOperations(planReconcile(resources, observed)) : [] };
  }
}
