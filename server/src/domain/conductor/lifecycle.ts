import type { Clock } from '../clock.js';
import { AppError, type ErrorDetail } from '../errors.js';
import { newId } from '../ids.js';
import type { JobQueue } from '../jobs/queue.js';
import { conductorTenant } from '../jobs/tenants.js';
import type { ProcessRepository } from '../repositories.js';
import type { HistoryEntry, HistoryEvent, JobPurpose, Process, ProcessAction, ProcessJob, ProcessResource } from './types.js';

/** The queue's job kind that runs a process's jobs; its payload is `{ jobId }`. */
export const PROCESS_JOB = 'conductor.process';

/** What a request or a job asks of a process's lifecycle. */
export type LifecycleRequest = ProcessAction | 'release' | 'update_composition';

const label = (process: Process): string => `process '${process.alias ?? process.fid}'`;

const ALLOWED_FROM: Record<LifecycleRequest, Process['state'][]> = {
  suspend: ['RUNNING'],
  resume: ['SUSPENDED'],
  kill: ['RUNNING', 'SUSPENDED'],
  update_composition: ['RUNNING'],
  release: ['RUNNING', 'SUSPENDED', 'KILLED'],
};

const GERUND: Record<LifecycleRequest, string> = {
  suspend: 'suspending it',
  resume: 'resuming it',
  kill: 'killing it',
  update_composition: 'accepting a new composition',
  release: 'releasing it',
};

/**
 * Why the process cannot do `request` now, or undefined when it can. `lock` is the lock state the request
 * leaves (`{ lock: false, action: 'resume' }` unlocks and then resumes), and `location` the input to blame.
 */
export function refusal(process: Process, request: LifecycleRequest, lock: boolean, location: string): ErrorDetail | undefined {
  const name = label(process);
  if (process.state === 'KILLING') return { code: 'process.illegal_state', message: `${name} is being killed; it accepts no change`, location };
  if (lock) {
    return { code: 'process.locked', message: `${name} is locked; unlock it (lock: false) before ${GERUND[request]}`, location };
  }
  if (!ALLOWED_FROM[request].includes(process.state)) {
    const what = request === 'update_composition' ? 'accept a new composition' : request;
    return { code: 'process.illegal_state', message: `${name} is ${process.state}; it cannot ${what} (allowed from ${ALLOWED_FROM[request].join(' or ')})`, location };
  }
  return undefined;
}

export const illegalStateChange = (detail: ErrorDetail): AppError => new AppError('illegal_state', 'Illegal state change', { details: [detail] });

/**
 * One change to a process under construction: the process as it will be, the history entries and jobs it
 * records, and the resources it adds or changes. Written at once by `ProcessChanges.apply`.
 */
export class ChangeDraft {
  /** The process as the change leaves it; edit freely. */
  readonly process: Process;
  readonly history: HistoryEntry[] = [];
  readonly jobs: ProcessJob[] = [];
  readonly newResources: ProcessResource[] = [];
  readonly desiredResources: ProcessResource[] = [];
  finishedJob: ProcessJob | undefined;

  constructor(
    readonly current: Process,
    private readonly now: number,
    private readonly actor: string,
  ) {
    this.process = { ...current, version: current.version + 1, updatedAt: now };
  }

  record(event: HistoryEvent, details: Record<string, unknown>, jobId: string | null = null): HistoryEntry {
    const entry: HistoryEntry = {
      id: newId(),
      fid: this.current.fid,
      ordinal: this.process.version,
      seq: this.history.length,
      at: this.now,
      event,
      jobId,
      actor: this.actor,
      details,
    };
    this.history.push(entry);
    return entry;
  }

  startJob(purpose: JobPurpose): ProcessJob {
    const job: ProcessJob = {
      id: newId(),
      fid: this.current.fid,
      purpose,
      status: 'queued',
      queueJobId: null,
      ordinal: this.process.version,
      message: null,
      createdAt: this.now,
      finishedAt: null,
    };
    this.jobs.push(job);
    return job;
  }

  get isEmpty(): boolean {
    return this.history.length === 0 && this.jobs.length === 0 && this.newResources.length === 0 && this.desiredResources.length === 0 && !this.finishedJob;
  }
}

const ATTEMPTS = 5;

export const processNotFound = (ref: string, location: string, title = 'Resource not found'): AppError =>
  new AppError('not_found', title, { details: [{ code: 'process.not_found', message: `no process with FID or alias '${ref}'`, location }] });

/**
 * Writes changes to processes. A change is computed from the process as stored and written only if nobody
 * changed the process meanwhile; otherwise it is computed again from the new state, so concurrent requests and
 * jobs (in this server process or another) never overwrite each other. Jobs a change starts are queued once the
 * change is written; one that a crash left unqueued is queued by the enforcer's tick.
 */
export class ProcessChanges {
  constructor(
    private readonly processes: ProcessRepository,
    private readonly jobs: JobQueue,
    private readonly clock: Clock,
  ) {}

  /** Returns the written draft, or the untouched one when `build` changed nothing. Released processes are not found. */
  async apply(fid: string, actor: string, build: (draft: ChangeDraft) => Promise<void> | void): Promise<ChangeDraft> {
    for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
      const current = await this.processes.get(fid);
      if (!current || current.releasedAt !== null) throw processNotFound(fid, 'path.process');
      const draft = new ChangeDraft(current, this.clock.nowSeconds(), actor);
      await build(draft);
      if (draft.isEmpty) return draft;
      const outcome = await this.processes.apply({
        process: draft.process,
        expectedVersion: current.version,
        newResources: draft.newResources,
        desiredResources: draft.desiredResources,
        history: draft.history,
        newJobs: draft.jobs,
        ...(draft.finishedJob && { finishedJob: draft.finishedJob }),
      });
      if (outcome === 'alias_taken') throw aliasTaken(draft.process.alias ?? '');
      if (outcome === 'ok') {
        for (const job of draft.jobs) await this.enqueue(job, draft.process.accountName);
        return draft;
      }
    }
    throw new AppError('conflict', 'Conflict', {
      details: [{ code: 'process.busy', message: `process ${fid} changed ${ATTEMPTS} times while this change was being made; try again`, location: 'path.process' }],
    });
  }

  /**
   * Hands a registered job to the durable queue. Idempotent: the queue job takes the process job's id and is
   * queued once, so the request that registered the job and the enforcer (which queues a job its request died
   * before queuing) may both call this. The job works for the process's account (`accountName`).
   */
  async enqueue(job: ProcessJob, accountName: string): Promise<void> {
    await this.jobs.enqueue(PROCESS_JOB, { jobId: job.id }, { maxAttempts: 3, id: job.id, dedupeKey: `${PROCESS_JOB}:${job.id}`, tenant: conductorTenant(accountName) });
    await this.processes.attachQueueJob(job.id, job.id);
  }
}

export const aliasTaken = (alias: string): AppError =>
  new AppError('conflict', 'Alias already taken', {
    details: [{ code: 'process.alias_taken', message: `another process already has the alias '${alias}'`, location: 'body.alias' }],
  });
