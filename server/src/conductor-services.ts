import type { Clock } from './domain/clock.js';
import type { CloudAdapter } from './domain/cloud/adapter.js';
import { AccountService } from './domain/conductor/accounts.js';
import { CompletionWaiter } from './domain/conductor/completion-waiter.js';
import type { CompositionValidator } from './domain/conductor/composition.js';
import { CompositionChecks } from './domain/conductor/composition-checks.js';
import { DRY_RUN_JOB, DryRunService } from './domain/conductor/dry-runs.js';
import { ProcessEnforcer } from './domain/conductor/enforcer.js';
import { PROCESS_JOB, ProcessChanges } from './domain/conductor/lifecycle.js';
import { ProcessJobRunner } from './domain/conductor/process-jobs.js';
import { ProcessService } from './domain/conductor/processes.js';
import type { JobQueue } from './domain/jobs/queue.js';
import { silentLog, type Log } from './domain/log.js';
import type { DatabaseHandle } from './storage/database.js';
import { KyselyConductorAccountRepository, KyselyDryRunRepository, KyselyProcessRepository } from './storage/repositories/conductor.js';

/** The conductor's accounts, processes and dry-runs, and the enforcement that keeps processes in shape. */
export interface ConductorServices {
  conductorAccounts: AccountService;
  processes: ProcessService;
  dryRuns: DryRunService;
  enforcer: ProcessEnforcer;
}

export interface ConductorDeps {
  database: DatabaseHandle;
  jobs: JobQueue;
  cloud: CloudAdapter;
  clock: Clock;
  /** The validation libraries every dry-run and every process creation or composition update must pass. */
  validator: CompositionValidator;
  /** Where the conductor's background work logs; unset, nowhere. */
  log?: Log;
  /** Processes neither killed nor released one account may have (MAX_PROCESSES_PER_ACCOUNT); unset, the default. */
  processQuota?: number;
}

/** Wires the conductor to the database and registers its jobs with the queue. */
export function createConductorServices({ database, jobs, cloud, clock, validator, log = silentLog, processQuota }: ConductorDeps): ConductorServices {
  const accounts = new AccountService(new KyselyConductorAccountRepository(database.db), clock);
  const processes = new KyselyProcessRepository(database.db);
  const dryRuns = new KyselyDryRunRepository(database.db);
  const changes = new ProcessChanges(processes, jobs, clock);
  const checks = new CompositionChecks(cloud, validator);
  const processService = new ProcessService({ accounts, processes, changes, checks, cloud, clock, ...(processQuota !== undefined && { quota: processQuota }) });
  const dryRunService = new DryRunService({
    dryRuns,
    processes,
    processService,
    accounts,
    checks,
    cloud,
    jobs,
    clock,
    waiter: new CompletionWaiter((ids) => dryRuns.finishedAmong(ids), undefined, log),
    log,
  });
  const runner = new ProcessJobRunner({ processes, changes, cloud, clock });
  jobs.register(
    PROCESS_JOB,
    (payload, context) => runner.run((payload as { jobId: string }).jobId, context.heartbeat, context.reached),
    (payload, reason) => runner.giveUp((payload as { jobId: string }).jobId, reason),
  );
  jobs.register(
    DRY_RUN_JOB,
    (payload, context) => dryRunService.run((payload as { dryRunId: string }).dryRunId, context.reached, context.signal),
    (payload, reason) => dryRunService.giveUp((payload as { dryRunId: string }).dryRunId, reason),
  );
  return {
    conductorAccounts: accounts,
    processes: processService,
    dryRuns: dryRunService,
    enforcer: new ProcessEnforcer({ processes, changes, cloud, jobs, clock, log }),
  };
}
