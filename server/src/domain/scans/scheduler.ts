import type { Clock } from '../clock.js';
import { AppError } from '../errors.js';
import type { JobQueue } from '../jobs/queue.js';
import type { EnvironmentRepository, ScanRepository } from '../repositories.js';
import type { ScanRunner } from './runner.js';
import type { ScanService } from './service.js';
import { silentLog, type Log } from '../log.js';
import { PeriodicTask } from '../periodic.js';

/**
 * A scan without a job is given up after this long. A scan and its job are now written in one transaction, so only
 * a scan recorded by an older version (which wrote them apart, and might have died between) can be left so.
 */
const UNQUEUED_GRACE_SECONDS = 120;
const BATCH = 50;

/**
 * Scheduled scans, seed 000 §3.4: an environment is due one interval after the later of the end of its last scan
 * and the last change of its interval. The schedule lives in the database, so it survives restarts and several
 * server processes can tick at once: the one-scan-in-progress rule lets exactly one of them start each scan.
 */
export class ScanScheduler {
  private readonly periodic: PeriodicTask;

  constructor(
    private readonly environments: EnvironmentRepository,
    private readonly scans: ScanRepository,
    private readonly jobs: JobQueue,
    private readonly service: ScanService,
    private readonly runner: ScanRunner,
    private readonly clock: Clock,
    log: Log = silentLog,
  ) {
    this.periodic = new PeriodicTask('scan scheduler tick', () => this.tick(), log);
  }

  /** Starts the scans that are due and settles scans whose job died. Returns how many scans it started. */
  async tick(): Promise<number> {
    await this.settleOrphans();
    let started = 0;
    for (const env of await this.environments.dueForScan(this.clock.nowSeconds(), BATCH)) {
      try {
        await this.service.start(env.orgId, env.id);
        started += 1;
      } catch (error) {
        // Another process started it first, or it was deleted meanwhile: either way nothing is left to do.
        if (!(error instanceof AppError && (error.code === 'work_already_started' || error.code === 'not_found'))) throw error;
      }
    }
    return started;
  }

  start(intervalMs: number): void {
    this.periodic.start(intervalMs);
  }

  stop(): void {
    this.periodic.stop();
  }

  /** A scan in progress whose job failed for good (or never existed) is marked ERROR with the reason. */
  private async settleOrphans(): Promise<void> {
    const now = this.clock.nowSeconds();
    for (const scan of await this.scans.inProgress()) {
      if (scan.jobId === null) {
        if (scan.createdAt < now - UNQUEUED_GRACE_SECONDS) await this.runner.fail(scan, scan.environmentId, 'the scan was never queued');
        continue;
      }
      const job = await this.jobs.get(scan.jobId);
      if (!job) await this.runner.fail(scan, scan.environmentId, 'the scan job is gone');
      else if (job.status === 'failed') await this.runner.fail(scan, scan.environmentId, `the scan job failed: ${job.lastError ?? 'unknown error'}`);
    }
  }
}
