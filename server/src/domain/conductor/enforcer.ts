import type { Clock } from '../clock.js';
import type { CloudAdapter } from '../cloud/adapter.js';
import type { JobQueue } from '../jobs/queue.js';
import type { ProcessRepository } from '../repositories.js';
import type { ProcessChanges } from './lifecycle.js';
import { changesCloud, observe, planReconcile } from './planner.js';
import { SERVER_ACTOR, type Process } from './types.js';
import { silentLog, type Log } from '../log.js';
import { PeriodicTask } from '../periodic.js';

/**
 * A job registered but never queued (its server process died in between) is queued after this long. Queuing is
 * idempotent, so this only spares the queue the jobs their own request is about to queue.
 */
const UNQUEUED_GRACE_SECONDS = 10;
const BATCH = 50;

export interface ProcessEnforcerDeps {
  processes: ProcessRepository;
  changes: ProcessChanges;
  cloud: CloudAdapter;
  jobs: JobQueue;
  clock: Clock;
  log?: Log;
}

/**
 * Enforcement: every tick compares each RUNNING process with enforcement on with the cloud, and starts a
 * correction job for one whose resources drifted. It also settles process jobs the queue gave up on, and queues
 * those a crash left unqueued. Like the scan scheduler it keeps no state of its own, so several server processes
 * may tick at once: a process with a job in flight is left to that job.
 */
export class ProcessEnforcer {
  private readonly periodic: PeriodicTask;

  constructor(private readonly deps: ProcessEnforcerDeps) {
    this.periodic = new PeriodicTask('process enforcement tick', () => this.tick(), deps.log ?? silentLog);
  }

  /** Returns how many correction jobs it started. */
  async tick(): Promise<number> {
    const busy = await this.settleJobs();
    let started = 0;
    let after: string | null = null;
    for (;;) {
      const batch = await this.deps.processes.listEnforced(after, BATCH);
      for (const process of batch) {
        if (!busy.has(process.fid) && (await this.correctIfDrifted(process))) started += 1;
      }
      if (batch.length < BATCH) return started;
      after = batch[batch.length - 1]!.fid;
    }
  }

  start(intervalMs: number): void {
    this.periodic.start(intervalMs);
  }

  stop(): void {
    this.periodic.stop();
  }

  /**
   * Resources whose last operation failed are left alone: correcting them again every tick would only record
   * the same failure. A composition update, a resume or turning enforcement on tries them again.
   */
  private async correctIfDrifted(process: Process): Promise<boolean> {
    const resources = (await this.deps.processes.resources(process.fid)).filter((r) => r.status !== 'failed');
    if (!changesCloud(planReconcile(resources, await observe(this.deps.cloud, process, resources)))) return false;
    const draft = await this.deps.changes.apply(process.fid, SERVER_ACTOR, (draft) => {
      if (draft.current.state === 'RUNNING' && draft.current.enforcement) draft.startJob('correct');
    });
    return draft.jobs.length > 0;
  }

  /** Settles unfinished jobs; returns the processes that still have one in flight. */
  private async settleJobs(): Promise<Set<string>> {
    const now = this.deps.clock.nowSeconds();
    const busy = new Set<string>();
    for (const job of await this.deps.processes.unfinishedJobs(1000)) {
      if (job.queueJobId === null) {
        if (job.createdAt < now - UNQUEUED_GRACE_SECONDS) {
          // Processes are never deleted (a released one stays), so its account is there to name the job's tenant.
          const process = await this.deps.processes.get(job.fid);
          if (process) await this.deps.changes.enqueue(job, process.accountName);
        }
        busy.add(job.fid);
        continue;
      }
      const queued = await this.deps.jobs.get(job.queueJobId);
      if (queued && (queued.status === 'queued' || queued.status === 'running')) {
        busy.add(job.fid);
        continue;
      }
      const reason = !queued
        ? 'the job is gone from the queue'
        : queued.status === 'failed'
          ? `the job failed: ${queued.lastError ?? 'unknown error'}`
          : 'the job ended without recording its outcome';
      // The queue fails a job only once its give-up recorded the process job's end: read it again, lest that
      // record be overwritten with this one.
      const latest = await this.deps.processes.getJob(job.id);
      if (!latest || latest.status === 'succeeded' || latest.status === 'failed') continue;
      await this.deps.processes.updateJob({ ...latest, status: 'failed', message: reason, finishedAt: now });
    }
    return busy;
  }
}
