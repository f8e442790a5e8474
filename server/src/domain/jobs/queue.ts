import { hostname } from 'node:os';
import type { Clock } from '../clock.js';
import { newId } from '../ids.js';
import { silentLog, type Log } from '../log.js';
import type { Job, JobRepository, RunningLimits } from '../repositories.js';
import type { FaultPoint } from './fault-points.js';
import { uncountedJobs, type AttemptOutcome, type JobMetrics } from './metrics.js';
import { SHARED_TENANT } from './tenants.js';

/** What a job handler may ask of the queue while it runs. */
export interface JobContext {
  job: Job;
  /**
   * Pushes the lease further out; long work calls it between steps. False when the lease was lost; throws
   * WorkerStoppingError once `signal` is aborted.
   */
  heartbeat(): Promise<boolean>;
  /**
   * Aborted, with a WorkerStoppingError, when this worker stops (the server shuts down). Long work checks it, or
   * calls `heartbeat`, at its batch points and then stops at once, writing nothing more: the queue hands the job
   * back, its attempt not counted, so that another worker takes it up at once.
   */
  signal: AbortSignal;
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
  constructor(job = 'the job', message = `${job} lost its lease; another worker carries on`) {
    super(message);
    this.name = 'LeaseLostError';
  }
}

/**
 * The worker is stopping and hands the job back. As with a lost lease, whoever notices stops at once and writes
 * nothing more, failure included: the job is queued again at once with its attempt not counted.
 */
export class WorkerStoppingError extends LeaseLostError {
  constructor(job = 'the job') {
    super(job, `${job} was handed back: its worker is stopping; another worker carries on`);
    this.name = 'WorkerStoppingError';
  }
}

/** Extends the lease, or throws LeaseLostError: call it before each write that only the holder may make. */
export async function holdLease(heartbeat: () => Promise<boolean>, job?: string): Promise<void> {
  if (!(await heartbeat())) throw new LeaseLostError(job);
}

/**
 * Called when the queue gives a job up (its last attempt failed, or its worker vanished with no attempt left), so
 * that the work it stood for ends in a state of its own with `message` (a scan ERROR, a dry-run FAILED, …) rather
 * than pending forever, and whatever waited on it takes new work at once. The job is recorded failed only once
 * this returns: a worker that dies or fails here leaves the give-up to the next worker, after the lease, so the
 * handler must do nothing twice when called again (settled work is left as it is).
 */
export type GiveUpHandler = (payload: unknown, message: string, job: Job) => Promise<void>;

export interface JobQueueOptions {
  /** How long a claim lasts without a heartbeat before another worker may take the job over. */
  leaseMs?: number;
  /** Idle polling interval; enqueueing in this process wakes the worker at once. */
  pollMs?: number;
  /** Jobs run at the same time by this worker. */
  concurrency?: number;
  /**
   * The most jobs of a kind one tenant may have running at once, by kind, counted across every worker sharing the
   * database (an organization's scans): a queued job of a kind at its limit waits while other work goes first.
   */
  runningLimits?: RunningLimits;
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
   * The party the work is for (`organizationTenant`, `conductorTenant` of tenants.ts): the queue serves tenants in
   * turn and caps their running jobs by kind. Work that names none shares the tenant `shared`.
   */
  tenant?: string;
  /**
   * The request that caused the work. Its id goes on the job's log lines and on what the job causes in turn (a
   * scan's webhook deliveries), so an operator can follow one request through the background work it started.
   */
  requestId?: string | null;
}

const passedUnwatched = (): void => {};

/** An attempt this worker is running, and what asks it to stop. */
interface RunningAttempt {
  job: Job;
  controller: AbortController;
  /** Still running when the worker stopped waiting for it: its outcome is no longer this worker's to record. */
  leftBehind: boolean;
}

/**
 * The durable job queue and its worker. Jobs live in the database, are claimed under a lease and finish only
 * while the lease is still held, so a job whose worker died is taken over after the lease runs out (or given up,
 * settling what it stood for, once its attempts are used up) and is never lost, and a worker that lost its lease
 * cannot record a second outcome. A worker that stops hands its jobs back rather than letting their leases run out.
 */
export class JobQueue {
  private readonly handlers = new Map<string, { run: JobHandler; giveUp: GiveUpHandler }>();
  private readonly owner = `${hostname()}:${process.pid}:${newId().slice(0, 8)}`;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly attempts = new Map<string, RunningAttempt>();
  /** Claiming passes under way: `stop` waits for them, so that no job is claimed after it returns. */
  private readonly fills = new Set<Promise<void>>();
  private readonly leaseMs: number;
  private readonly pollMs: number;
  private readonly concurrency: number;
  private readonly runningLimits: RunningLimits;
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
    this.runningLimits = options.runningLimits ?? {};
    this.backoffMs = options.backoffMs ?? 1_000;
    this.maxBackoffMs = options.maxBackoffMs ?? 300_000;
    this.log = options.log ?? silentLog;
    this.metrics = options.metrics ?? uncountedJobs;
    this.faultPoint = options.faultPoint;
  }

  /**
   * `onGiveUp` is required: without it a job given up would leave what it stands for (a scan IN_PROGRESS, a
   * dry-run PENDING, …) unfinished for good, refusing new work on it.
   */
  register(kind: string, handler: JobHandler, onGiveUp: GiveUpHandler): void {
    if (this.handlers.has(kind)) throw new Error(`a handler for job kind '${kind}' is already registered`);
    if (typeof onGiveUp !== 'function') throw new Error(`job kind '${kind}' needs a give-up handler`);
    this.handlers.set(kind, { run: handler, giveUp: onGiveUp });
  }

  /** The kinds of job this queue has handlers for. */
  kinds(): string[] {
    return [...this.handlers.keys()];
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
      tenant: options.tenant ?? SHARED_TENANT,
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
    if (job) await this.track(this.execute(job));
    return job;
  }

  private async claimNext(): Promise<Job | undefined> {
    const now = this.clock.nowMs();
    // An attempt of this worker whose lease ran out while it was busy (a long pause) is alive: this worker neither
    // takes it over nor gives it up, as its leases could not tell the two attempts apart. Other workers may.
    const running = [...this.attempts.keys()];
    // Jobs whose worker vanished with no attempt left are taken under this worker's lease, settled, then failed:
    // should this worker die in between, the next one to find the lease run out gives them up again.
    for (const job of await this.jobs.claimAbandoned(this.owner, now, now + this.leaseMs, running)) {
      const message = `abandoned: the worker stopped before finishing, and all ${job.attempts} attempts are used up`;
      this.logOf(job).error({ attempt: job.attempts, maxAttempts: job.maxAttempts, error: message }, `job given up after ${job.attempts} attempts`);
      if (await this.giveUp(job, message)) this.metrics.abandoned(job.kind);
    }
    return this.jobs.claim(this.owner, now, now + this.leaseMs, running, this.runningLimits);
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.schedule(0);
  }

  /**
   * Stops claiming jobs and hands back the ones in flight: each attempt is asked to stop (JobContext.signal) and,
   * once it has, its job is queued again at once with the attempt not counted, so that another worker takes it up
   * within its poll interval rather than after the lease. Only a stopped attempt is handed back, so that nothing it
   * writes can land after another worker took the job up: one still running after `timeoutMs` is left behind, its
   * job taken over once its lease runs out, as after a crash. Resolves once every job this worker held is finished,
   * handed back or left behind: the database may be closed then.
   */
  async stop(timeoutMs = 10_000): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    let timeout: NodeJS.Timeout | undefined;
    const timedOut = new Promise((resolve) => (timeout = setTimeout(resolve, timeoutMs)));
    // A pass claiming right now hands back what it claims once it sees the worker stopped (see fill).
    await Promise.race([Promise.allSettled([...this.fills]), timedOut]);
    for (const attempt of this.attempts.values()) attempt.controller.abort(new WorkerStoppingError(`job ${attempt.job.id}`));
    await Promise.race([Promise.allSettled([...this.inFlight]), timedOut]);
    clearTimeout(timeout);
    for (const attempt of this.attempts.values()) {
      if (attempt.leftBehind) continue;
      attempt.leftBehind = true;
      this.logOf(attempt.job).warn(
        { attempt: attempt.job.attempts, maxAttempts: attempt.job.maxAttempts, timeoutMs },
        'job still running when the worker stopped: left to its lease, to be taken over once the lease runs out',
      );
    }
  }

  private schedule(delayMs: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      const fill = this.fill().finally(() => this.fills.delete(fill));
      this.fills.add(fill);
    }, delayMs);
    this.timer.unref();
  }

  /** Claims that failed in a row (the database away or busy), and the longest pause they lead to. */
  private claimFailures = 0;
  private static readonly MAX_CLAIM_BACKOFF_MS = 2_000;

  /**
   * Claims jobs until the worker is full or nothing is due, then sleeps for one poll interval; after a failed
   * claim, for longer.
   */
  private async fill(): Promise<void> {
    let pause = this.pollMs;
    while (this.running && this.inFlight.size < this.concurrency) {
      let job: Job | undefined;
      try {
        job = await this.claimNext();
        this.claimFailures = 0;
      } catch (error) {
        // Each failure in a row doubles the pause, up to a bound short enough that work resumes soon after the
        // database is back: the worker neither spins nor fills the log while it is away.
        this.claimFailures += 1;
        pause = Math.min(this.pollMs * 2 ** this.claimFailures, JobQueue.MAX_CLAIM_BACKOFF_MS);
        this.log.error({ err: error, retryInMs: pause }, 'claiming a job failed');
      }
      if (!job) break;
      if (!this.running) {
        // Claimed while the worker was stopping: handed back rather than started.
        await this.handBack(job, this.logOf(job), { attempt: job.attempts, maxAttempts: job.maxAttempts });
        break;
      }
      void this.track(this.execute(job)).finally(() => this.wake());
    }
    if (this.running) this.schedule(pause);
  }

  /** Counts the attempt as in flight until it ends: `stop` waits for it, and the worker's concurrency counts it. */
  private track(run: Promise<void>): Promise<void> {
    const tracked = run.finally(() => this.inFlight.delete(tracked));
    this.inFlight.add(tracked);
    return tracked;
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
      await this.jobs.fail(job.id, this.owner, message, now()).catch((error: unknown) => log.error({ err: error }, 'recording the failure of a job failed'));
      return;
    }
    const running: RunningAttempt = { job, controller: new AbortController(), leftBehind: false };
    this.attempts.set(job.id, running);
    const { signal } = running.controller;
    const context: JobContext = {
      job,
      signal,
      heartbeat: async () => {
        signal.throwIfAborted();
        point?.(`job:${job.kind}:heartbeat`);
        const held = await this.jobs.extendLease(job.id, this.owner, now() + this.leaseMs, now());
        // Asked to stop while the lease was being extended: the step that would follow is not started.
        signal.throwIfAborted();
        return held;
      },
      reached: point ? (name) => point(`job:${job.kind}:${name}`) : passedUnwatched,
    };
    log.info(attempt, 'job started');
    this.metrics.attemptStarted(job.kind);
    // Real time, not the clock: tests move the clock, and the metric is about this process's work.
    const started = performance.now();
    const elapsed = () => ({ ...attempt, durationMs: Math.round(performance.now() - started) });
    const ended = (outcome: AttemptOutcome) => {
      const seconds = (performance.now() - started) / 1000;
      this.metrics.attemptEnded(job.kind, outcome, seconds);
      return { ...attempt, durationMs: Math.round(seconds * 10_000) / 10 };
    };
    let failure: { error: unknown } | undefined;
    try {
      await handler.run(job.payload, context);
    } catch (error) {
      failure = { error };
    }
    try {
      if (running.leftBehind) {
        // `stop` stopped waiting for it, and the database may be closed: the next holder records the outcome.
        log.warn(elapsed(), 'attempt left behind by its stopped worker ended; its outcome is not recorded');
      } else if (!failure) {
        point?.(`job:${job.kind}:handled`);
        await this.jobs.complete(job.id, this.owner, now());
        point?.(`job:${job.kind}:recorded`);
        log.info(ended('succeeded'), 'job succeeded');
      } else if (signal.aborted) {
        // Stopped because the worker stops, whatever it threw: not a failure of the job, which goes to another worker.
        await this.handBack(job, log, elapsed());
      } else if (failure.error instanceof LeaseLostError) {
        // Its outcome is the new holder's to record: nothing to retry or fail here.
        log.warn(ended('lease_lost'), 'job taken over by another worker; this attempt stopped');
      } else {
        const { error } = failure;
        const message = error instanceof Error ? error.message : String(error);
        if (job.attempts >= job.maxAttempts) {
          log.error({ ...ended('given_up'), err: error }, 'job failed on its last attempt, giving up');
          if (await this.jobs.extendLease(job.id, this.owner, now() + this.leaseMs, now())) await this.giveUp(job, message);
        } else {
          const delay = Math.min(this.backoffMs * 2 ** (job.attempts - 1), this.maxBackoffMs);
          log.warn({ ...ended('retrying'), retryInMs: delay, err: error }, `job failed, retrying in ${delay / 1000} s`);
          await this.jobs.retry(job.id, this.owner, message, now() + delay, now());
        }
      }
    } catch (error) {
      // The lease runs out and the job is taken up again: an outcome that could not be written is not lost.
      log.error({ err: error }, 'recording the outcome of a job failed');
    } finally {
      this.attempts.delete(job.id);
    }
  }

  /** Queues the job again at once with this attempt not counted, if this worker still holds it. */
  private async handBack(job: Job, log: Log, fields: Record<string, unknown>): Promise<void> {
    try {
      if (await this.jobs.handBack(job.id, this.owner, this.clock.nowMs())) log.info(fields, 'job handed back: this worker is stopping; another takes it up at once');
    } catch (error) {
      log.error({ err: error }, 'handing a job back failed; it is taken up again once its lease runs out');
    }
  }

  /** The log of one job: every line names the job, its kind and the request that caused it, if one did. */
  private logOf(job: Job): Log {
    return this.log.child(job.requestId === null ? { jobId: job.id, kind: job.kind } : { jobId: job.id, kind: job.kind, requestId: job.requestId });
  }

  /**
   * Settles what the job stood for (its kind's give-up handler), then records the job failed. False when settling
   * failed: the job stays leased to this worker, and the next worker to find the lease run out tries again.
   */
  private async giveUp(job: Job, message: string): Promise<boolean> {
    const handler = this.handlers.get(job.kind);
    try {
      await handler?.giveUp(job.payload, message, job);
    } catch (error) {
      this.logOf(job).error({ err: error }, 'settling the given-up job failed; tried again once its lease runs out');
      return false;
    }
    return this.jobs.fail(job.id, this.owner, message, this.clock.nowMs());
  }
}
