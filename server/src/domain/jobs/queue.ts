import { hostname } from 'node:os';
import type { Clock } from '../clock.js';
import { newId } from '../ids.js';
import { silentLog, type Log } from '../log.js';
import type { Job, JobRepository } from '../repositories.js';
import type { FaultPoint } from './fault-points.js';
import { uncountedJobs, type AttemptOutcome, type JobMetrics } from './metrics.js';

/** What a job handler may ask of the queue while it runs. */
export interface JobContext {
  job: Job;
  /** Pushes the lease further out; long work calls it between steps. False when the lease was lost. */
  heartbeat(): Promise<boolean>;
  /**
   * The handler passed a point of its own worth crashing at (`sent`: a delivery went out, not yet recorded), named
   * `job:<kind>:<point>` for the fault matrix; does nothing unless the queue was given a fault-point hook.
   */
  reached(point: string): void;
}

export type JobHandler = (payload: unknown, context: JobContext) => Promise<void>;

/**
 * The job was taken over by another worker (this one's lease ran out): whoever notices stops at once, writing
 * nothing more, and leaves the work, and every outcome, to the new holder.
 */
export class LeaseLostError extends Error {
  constructor(job = 'the job') {
    super(`${job} lost its lease; another worker carries on`);
    this.name = 'LeaseLostError';
  }
}

/** Extends the lease, or throws LeaseLostError: call it before each write that only the holder may make. */
export async function holdLease(heartbeat: () => Promise<boolean>, job?: string): Promise<void> {
  if (!(await heartbeat())) throw new LeaseLostError(job);
}

/**
 * Called once when the queue gives a job up (its last attempt failed, or its worker vanished with no attempt
 * left), so the work it stood for can be settled, e.g. a dry-run marked FAILED, rather than left pending forever.
 */
export type GiveUpHandler = (payload: unknown, message: string) => Promise<void>;

export interface JobQueueOptions {
  /** How long a claim lasts without a heartbeat before another worker may take the job over. */
  leaseMs?: number;
  /** Idle polling interval; enqueueing in this process wakes the worker at once. */
  pollMs?: number;
  /** Jobs run at the same time by this worker. */
  concurrency?: number;
  /** First retry delay; doubles with every attempt, up to `maxBackoffMs`. */
  backoffMs?: number;
  maxBackoffMs?: number;
  /** Where the starts, outcomes, retries and give-ups of jobs are written, each line with the job's id and kind. */
  log?: Log;
  metrics?: JobMetrics;
  /**
   * Called at the points every job passes: `job:<kind>:claimed`, `…:heartbeat` (each lease extension),
   * `…:handled` (the handler returned, its success not yet recorded) and `…:recorded`, and at the handler's own
   * points. Tests arm it to kill the process at one of them; unset, as in production, nothing is called.
   */
  faultPoint?: FaultPoint;
}

export interface EnqueueOptions {
  maxAttempts?: number;
  /** Queue this work at most once: a second enqueue with the same key does nothing. */
  dedupeKey?: string;
  /**
   * The job's id, chosen by the caller (a new one by default). With `dedupeKey`, whoever enqueues the same work
   * knows the job's id whether or not it was the one that queued it.
   */
  id?: string;
  /** Milliseconds since the epoch; now by default. */
  runAt?: number;
  /**
   * The request that caused the work. Its id goes on the job's log lines and on what the job causes in turn (a
   * scan's webhook deliveries), so an operator can follow one request through the background work it started.
   */
  requestId?: string | null;
}

const passedUnwatched = (): void => {};

/**
 * The durable job queue and its worker. Jobs live in the database, are claimed under a lease and finish only
 * while the lease is still held, so a job whose worker died is taken over after the lease runs out (or failed
 * with a message once its attempts are used up) and is never lost, and a worker that lost its lease cannot
 * record a second outcome.
 */
export class JobQueue {
  private readonly handlers = new Map<string, JobHandler>();
  private readonly giveUpHandlers = new Map<string, GiveUpHandler>();
  private readonly owner = `${hostname()}:${process.pid}:${newId().slice(0, 8)}`;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly leaseMs: number;
  private readonly pollMs: number;
  private readonly concurrency: number;
  private readonly backoffMs: number;
  private readonly maxBackoffMs: number;
  private readonly log: Log;
  private readonly metrics: JobMetrics;
  private readonly faultPoint: FaultPoint | undefined;
  private running = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly jobs: JobRepository,
    private readonly clock: Clock,
    options: JobQueueOptions = {},
  ) {
    this.leaseMs = options.leaseMs ?? 60_000;
    this.pollMs = options.pollMs ?? 250;
    this.concurrency = options.concurrency ?? 2;
    this.backoffMs = options.backoffMs ?? 1_000;
    this.maxBackoffMs = options.maxBackoffMs ?? 300_000;
    this.log = options.log ?? silentLog;
    this.metrics = options.metrics ?? uncountedJobs;
    this.faultPoint = options.faultPoint;
  }

  register(kind: string, handler: JobHandler, onGiveUp?: GiveUpHandler): void {
    if (this.handlers.has(kind)) throw new Error(`a handler for job kind '${kind}' is already registered`);
    this.handlers.set(kind, handler);
    if (onGiveUp) this.giveUpHandlers.set(kind, onGiveUp);
  }

  async enqueue(kind: string, payload: unknown, options: EnqueueOptions = {}): Promise<Job> {
    const job = this.newJob(kind, payload, options);
    if (await this.jobs.insert(job, options.dedupeKey)) this.wake();
    return job;
  }

  /**
   * A job record not yet queued, for a repository that writes it in the same transaction as the work it stands
   * for (a scan, a dry-run), so that neither exists without the other. Call `wake` once that transaction commits.
   */
  newJob(kind: string, payload: unknown, options: Omit<EnqueueOptions, 'dedupeKey'> = {}): Job {
    const now = this.clock.nowMs();
    return {
      id: options.id ?? newId(),
      kind,
      payload,
      status: 'queued',
      attempts: 0,
      maxAttempts: options.maxAttempts ?? 3,
      runAt: options.runAt ?? now,
      leaseOwner: null,
      leaseExpiresAt: null,
      lastError: null,
      createdAt: now,
      updatedAt: now,
      finishedAt: null,
      requestId: options.requestId ?? null,
    };
  }

  /** A job was queued: start on it now rather than at the next poll, when this worker has room. */
  wake(): void {
    if (this.running && this.inFlight.size < this.concurrency) this.schedule(0);
  }

  get(id: string): Promise<Job | undefined> {
    return this.jobs.get(id);
  }

  /**
   * Claims and runs one due job, if any; returns it as it was claimed. Tests drive the queue with this; the
   * polling loop of `start` uses it too.
   */
  async runOnce(): Promise<Job | undefined> {
    const job = await this.claimNext();
    if (job) await this.execute(job);
    return job;
  }

  private async claimNext(): Promise<Job | undefined> {
    const now = this.clock.nowMs();
    const abandoned = await this.jobs.failAbandoned(
      now,
      (attempts) => `abandoned: the worker stopped before finishing, and all ${attempts} attempts are used up`,
    );
    for (const job of abandoned) {
      const message = job.lastError ?? 'abandoned';
      this.metrics.abandoned(job.kind);
      this.logOf(job).error({ attempt: job.attempts, maxAttempts: job.maxAttempts, error: message }, `job given up after ${job.attempts} attempts`);
      await this.giveUp(job, message);
    }
    return this.jobs.claim(this.owner, now, now + this.leaseMs);
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.schedule(0);
  }

  /** Stops claiming new jobs and waits for the ones in flight, up to `timeoutMs`. */
  async stop(timeoutMs = 10_000): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    let timeout: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...this.inFlight]),
      new Promise((resolve) => (timeout = setTimeout(resolve, timeoutMs))),
    ]);
    clearTimeout(timeout);
  }

  private schedule(delayMs: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.fill(), delayMs);
    this.timer.unref();
  }

  /** Claims jobs until the worker is full or nothing is due, then sleeps for one poll interval. */
  private async fill(): Promise<void> {
    while (this.running && this.inFlight.size < this.concurrency) {
      let job: Job | undefined;
      try {
        job = await this.claimNext();
      } catch (error) {
        this.log.error({ err: error }, 'claiming a job failed');
      }
      if (!job) break;
      const run = this.execute(job).finally(() => {
        this.inFlight.delete(run);
        this.wake();
      });
      this.inFlight.add(run);
    }
    if (this.running) this.schedule(this.pollMs);
  }

  private async execute(job: Job): Promise<void> {
    const handler = this.handlers.get(job.kind);
    const now = () => this.clock.nowMs();
    const log = this.logOf(job);
    const attempt = { attempt: job.attempts, maxAttempts: job.maxAttempts };
    const point = this.faultPoint;
    point?.(`job:${job.kind}:claimed`);
    if (!handler) {
      const message = `no handler for job kind '${job.kind}'`;
      log.error({ ...attempt, error: message }, 'job failed, not retried');
      await this.jobs.fail(job.id, this.owner, message, now());
      return;
    }
    const context: JobContext = {
      job,
      heartbeat: () => {
        point?.(`job:${job.kind}:heartbeat`);
        return this.jobs.extendLease(job.id, this.owner, now() + this.leaseMs, now());
      },
      reached: point ? (name) => point(`job:${job.kind}:${name}`) : passedUnwatched,
    };
    log.info(attempt, 'job started');
    this.metrics.attemptStarted(job.kind);
    // Real time, not the clock: tests move the clock, and the metric is about this process's work.
    const started = performance.now();
    const ended = (outcome: AttemptOutcome) => {
      const seconds = (performance.now() - started) / 1000;
      this.metrics.attemptEnded(job.kind, outcome, seconds);
      return { ...attempt, durationMs: Math.round(seconds * 10_000) / 10 };
    };
    try {
      await handler(job.payload, context);
      point?.(`job:${job.kind}:handled`);
      await this.jobs.complete(job.id, this.owner, now());
      point?.(`job:${job.kind}:recorded`);
      log.info(ended('succeeded'), 'job succeeded');
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (error instanceof LeaseLostError) {
        // Its outcome is the new holder's to record: nothing to retry or fail here.
        log.warn(ended('lease_lost'), 'job taken over by another worker; this attempt stopped');
      } else if (job.attempts >= job.maxAttempts) {
        log.error({ ...ended('given_up'), err: error }, 'job failed on its last attempt, giving up');
        if (await this.jobs.fail(job.id, this.owner, message, now())) await this.giveUp(job, message);
      } else {
        const delay = Math.min(this.backoffMs * 2 ** (job.attempts - 1), this.maxBackoffMs);
        log.warn({ ...ended('retrying'), retryInMs: delay, err: error }, `job failed, retrying in ${delay / 1000} s`);
        await this.jobs.retry(job.id, this.owner, message, now() + delay, now());
      }
    }
  }

  /** The log of one job: every line names the job, its kind and the request that caused it, if one did. */
  private logOf(job: Job): Log {
    return this.log.child(job.requestId === null ? { jobId: job.id, kind: job.kind } : { jobId: job.id, kind: job.kind, requestId: job.requestId });
  }

  private async giveUp(job: Job, message: string): Promise<void> {
    const onGiveUp = this.giveUpHandlers.get(job.kind);
    if (!onGiveUp) return;
    try {
      await onGiveUp(job.payload, message);
    } catch (error) {
      // The job is failed either way; what it stood for stays as it was, and the log says so.
      this.logOf(job).error({ err: error }, 'settling the given-up job failed');
    }
  }
}
