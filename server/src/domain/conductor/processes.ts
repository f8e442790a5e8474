import type { Clock } from '../clock.js';
import type { CloudAdapter } from '../cloud/adapter.js';
import { AppError } from '../errors.js';
import { newId } from '../ids.js';
import { DEFAULT_QUOTAS, upTo } from '../quotas.js';
import type { ProcessRepository } from '../repositories.js';
import type { AccountService } from './accounts.js';
import type { CompositionChecks } from './composition-checks.js';
import { readCompositionArchive } from './composition-file.js';
import { aliasTaken, ChangeDraft, illegalStateChange, processNotFound, type ProcessChanges, refusal } from './lifecycle.js';
import { changesCloud, differences, initialResources, observe, planReconcile, recompose } from './planner.js';
import { queryWindow } from './times.js';
import type { CloudOperation, HistoryEntry, Process, ProcessAction, ProcessJob, ProcessResource, ResourceStatus } from './types.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface ProcessView {
  process: Process;
  /** The current resources, in composition order, each with its status as the cloud shows it now. */
  resources: ProcessResource[];
}

export interface ProcessPatch {
  /** `''` removes the alias. */
  alias?: string;
  action?: ProcessAction;
  enforcement?: boolean;
  lock?: boolean;
}

export interface ProcessServiceDeps {
  accounts: AccountService;
  processes: ProcessRepository;
  changes: ProcessChanges;
  checks: CompositionChecks;
  cloud: CloudAdapter;
  clock: Clock;
  /**
   * Processes neither killed nor released one account may have (MAX_PROCESSES_PER_ACCOUNT);
   * DEFAULT_QUOTAS.processesPerAccount unless set.
   */
  quota?: number;
}

/** A create refused because the account has its quota of processes; `errors` names the account parameter. */
const quotaReached = (message: string): AppError =>
  new AppError('conflict', 'Process quota reached', { details: [{ code: 'process.quota_reached', message, location: 'query.account' }] });

const badRequest = (problems: AppError['details']): AppError => new AppError('bad_request', 'Bad request', { details: problems });

function refuseUuidAlias(alias: string | undefined, location: string): void {
  if (alias !== undefined && UUID.test(alias)) {
    throw badRequest([{ code: location, message: `an alias cannot be a UUID ('${alias}'), so that it is never mistaken for an FID`, location }]);
  }
}

/**
 * Processes: units of managed infrastructure created from a composition. Requests change the desired state and
 * record every change in the history; jobs (process-jobs.ts) bring the cloud to it.
 */
export class ProcessService {
  constructor(private readonly deps: ProcessServiceDeps) {}

  /**
   * A process by FID or alias. Released processes are gone; killed ones have lost their alias and are found by
   * FID only. `title` names the 404 (PATCH answers "Process not found").
   */
  async find(ref: string, location = 'path.process', title?: string): Promise<Process> {
    const process = UUID.test(ref) ? await this.deps.processes.get(ref.toLowerCase()) : await this.deps.processes.findByAlias(ref);
    if (!process || process.releasedAt !== null) throw processNotFound(ref, location, title);
    return process;
  }

  /** Processes neither killed nor released, oldest first; an unknown account has none. */
  async list(accountRef: string | undefined): Promise<Array<{ process: Process; resourceCount: number }>> {
    if (accountRef === undefined) return this.deps.processes.listLive(undefined);
    const account = await this.deps.accounts.lookup(accountRef);
    return account ? this.deps.processes.listLive(account.name) : [];
  }

  /**
   * Creates a process RUNNING with enforcement on and lock off, and a job that creates its resources (and adopts
   * the imports, with import_resources). The composition is checked first; any problem is a 400 listing them all.
   */
  async create(input: { archive: Uint8Array; account: string; alias?: string; importResources: boolean; actor: string }): Promise<ProcessView> {
    const account = await this.deps.accounts.find(input.account, 'query.account');
    refuseUuidAlias(input.alias, 'query.alias');
    const { text, digest } = await readCompositionArchive(input.archive);
    const checked = await this.deps.checks.check(text, account, { importResources: input.importResources });
    if (!checked.composition) throw badRequest(checked.problems);

    const now = this.deps.clock.nowSeconds();
    const fid = newId();
    // A new process is the first change of a process that did not exist: version 0 becomes version 1.
    const draft = new ChangeDraft(
      {
        fid,
        alias: input.alias ?? null,
        accountName: account.name,
        provider: account.provider,
        accountId: account.accountId,
        state: 'RUNNING',
        enforcement: true,
        lock: false,
        compositionDigest: digest,
        version: 0,
        releasedAt: null,
        createdAt: now,
        updatedAt: now,
      },
      now,
      input.actor,
    );
    const resources = initialResources(fid, checked.composition, input.importResources);
    const job = draft.startJob('create');
    draft.record('created', { composition_digest: digest, resources: checked.composition.resources.length, imports: resources.length - checked.composition.resources.length }, job.id);
    const { process } = draft;
    const admit = upTo('processesPerAccount', this.deps.quota ?? DEFAULT_QUOTAS.processesPerAccount, `account '${account.name}'`, quotaReached);
    if (!(await this.deps.processes.insert(process, resources, draft.history, job, admit))) throw aliasTaken(input.alias ?? '');
    await this.deps.changes.enqueue(job, process.accountName);
    return { process, resources };
  }

  async get(ref: string): Promise<ProcessView> {
    const process = await this.find(ref);
    const resources = (await this.deps.processes.resources(process.fid)).filter((r) => !r.retired);
    return { process, resources: await this.withLiveStatus(process, resources) };
  }

  /** Present resources are compared with the cloud now: gone is `deleted`, different is `drifted`. */
  private async withLiveStatus(process: Process, resources: ProcessResource[]): Promise<ProcessResource[]> {
    const present = resources.filter((r) => r.status === 'present');
    const observed = await observe(this.deps.cloud, process, present);
    return resources.map((r) => {
      if (r.status !== 'present') return r;
      const actual = observed.get(r.id);
      const status: ResourceStatus = !actual ? 'deleted' : Object.keys(differences(r, actual)).length > 0 ? 'drifted' : 'present';
      return { ...r, status };
    });
  }

  /**
   * Applies a PATCH entirely or not at all. The lock is checked against the lock state the request leaves, so
   * one request can unlock and act. Returns the process after the change and its transaction id: the job the
   * change started, else the last history entry it recorded, else (nothing changed) the process's latest entry.
   */
  async update(ref: string, patch: ProcessPatch, actor: string): Promise<{ process: Process; transactionId: string }> {
    const target = await this.find(ref, 'path.process', 'Process not found');
    refuseUuidAlias(patch.alias, 'body.alias');
    const draft = await this.deps.changes.apply(target.fid, actor, async (draft) => {
      const { current, process: next } = draft;
      if (current.state === 'KILLING' || current.state === 'KILLED') {
        throw illegalStateChange({ code: 'process.illegal_state', message: `process '${current.alias ?? current.fid}' is ${current.state}; it accepts no change`, location: 'body' });
      }
      const lock = patch.lock ?? current.lock;
      if (patch.action) {
        const why = refusal(current, patch.action, lock, 'body.action');
        if (why) throw illegalStateChange(why);
      }
      const alias = patch.alias === undefined ? current.alias : patch.alias === '' ? null : patch.alias;
      if (alias !== current.alias) {
        next.alias = alias;
        draft.record('alias_changed', { from: current.alias, to: alias });
      }
      let enforcementEntry: HistoryEntry | undefined;
      if (patch.enforcement !== undefined && patch.enforcement !== current.enforcement) {
        next.enforcement = patch.enforcement;
        enforcementEntry = draft.record('enforcement_changed', { from: current.enforcement, to: patch.enforcement });
      }
      if (lock !== current.lock) {
        next.lock = lock;
        draft.record('lock_changed', { from: current.lock, to: lock });
      }
      let actionEntry: HistoryEntry | undefined;
      if (patch.action === 'suspend') {
        next.state = 'SUSPENDED';
        actionEntry = draft.record('suspended', { from_state: current.state });
      } else if (patch.action === 'resume') {
        next.state = 'RUNNING';
        actionEntry = draft.record('resumed', { from_state: current.state });
      } else if (patch.action === 'kill') {
        this.requestKill(draft);
      }
      // Resuming, or turning enforcement on, catches up with drift that happened meanwhile.
      const trigger = patch.action === 'resume' ? actionEntry : patch.enforcement === true ? enforcementEntry : undefined;
      if (trigger && next.state === 'RUNNING' && next.enforcement && (await this.drifted(next))) {
        trigger.jobId = draft.startJob('correct').id;
      }
    });
    // Every process has at least its `created` entry.
    const transactionId = draft.jobs[0]?.id ?? draft.history.at(-1)?.id ?? (await this.deps.processes.latestHistoryEntry(target.fid))!.id;
    return { process: draft.isEmpty ? draft.current : draft.process, transactionId };
  }

  private requestKill(draft: ChangeDraft): void {
    const job = draft.startJob('kill');
    draft.process.state = 'KILLING';
    draft.record('kill_requested', { from_state: draft.current.state }, job.id);
  }

  /** Whether the cloud differs from the process's desired state (resources whose last operation failed aside). */
  private async drifted(process: Process): Promise<boolean> {
    const resources = (await this.deps.processes.resources(process.fid)).filter((r) => r.status !== 'failed');
    return changesCloud(planReconcile(resources, await observe(this.deps.cloud, process, resources)));
  }

  /** `kill`: a job deletes the resources (KILLING, then KILLED). Otherwise the process is released at once. */
  async delete(ref: string, kill: boolean, actor: string): Promise<{ kind: 'released'; process: Process } | { kind: 'killing'; process: Process; job: ProcessJob }> {
    const target = await this.find(ref);
    if (kill) {
      const draft = await this.deps.changes.apply(target.fid, actor, (draft) => {
        const why = refusal(draft.current, 'kill', draft.current.lock, 'query.kill');
        if (why) throw illegalStateChange(why);
        this.requestKill(draft);
      });
      return { kind: 'killing', process: draft.process, job: draft.jobs[0]! };
    }
    const draft = await this.deps.changes.apply(target.fid, actor, (draft) => {
      const why = refusal(draft.current, 'release', draft.current.lock, 'query.kill');
      if (why) throw illegalStateChange(why);
      draft.process.alias = null;
      draft.process.releasedAt = draft.process.updatedAt;
      draft.record('released', { from_state: draft.current.state, alias: draft.current.alias });
    });
    return { kind: 'released', process: draft.process };
  }

  /**
   * Replaces the composition of a RUNNING, unlocked process and starts a job that creates, updates and deletes
   * resources to match. The composition is checked first (400 listing every problem).
   */
  async updateComposition(ref: string, archive: Uint8Array, actor: string): Promise<{ process: Process; job: ProcessJob }> {
    const target = await this.find(ref);
    const early = refusal(target, 'update_composition', target.lock, 'path.process');
    if (early) throw illegalStateChange(early);
    const { text, digest } = await readCompositionArchive(archive);
    const checked = await this.deps.checks.check(text, target, { importResources: false, adopted: await this.deps.processes.resources(target.fid) });
    if (!checked.composition) throw badRequest(checked.problems);
    const composition = checked.composition;
    const draft = await this.deps.changes.apply(target.fid, actor, async (draft) => {
      const why = refusal(draft.current, 'update_composition', draft.current.lock, 'path.process');
      if (why) throw illegalStateChange(why);
      const { added, changed } = recompose(target.fid, await this.deps.processes.resources(target.fid), composition);
      draft.newResources.push(...added);
      draft.desiredResources.push(...changed);
      draft.process.compositionDigest = digest;
      const job = draft.startJob('update');
      draft.record('composition_updated', { composition_digest: digest, previous_digest: draft.current.compositionDigest }, job.id);
    });
    return { process: draft.process, job: draft.jobs[0]! };
  }

  async history(ref: string, start: string | undefined, end: string | undefined): Promise<HistoryEntry[]> {
    const window = queryWindow(start, end);
    const process = await this.find(ref);
    return this.deps.processes.history(process.fid, window);
  }

  /** Operations of every job, or of the first or the last job only; then restricted to the time window. */
  async operations(ref: string, filter: { start?: string; end?: string; first: boolean; last: boolean }): Promise<CloudOperation[]> {
    if (filter.first && filter.last) {
      throw badRequest([{ code: 'query.last', message: 'first and last cannot both be true: choose the first or the last batch', location: 'query.last' }]);
    }
    const window = queryWindow(filter.start, filter.end);
    const process = await this.find(ref);
    if (!filter.first && !filter.last) return this.deps.processes.operations(process.fid, { window });
    const jobs = await this.deps.processes.jobs(process.fid);
    const job = filter.first ? jobs[0] : jobs.at(-1);
    return this.deps.processes.operations(process.fid, { jobIds: job ? [job.id] : [], window });
  }

  /** One job's operations; a history entry recorded without a job has none; any other id is a 404. */
  async jobOperations(ref: string, jobId: string, start: string | undefined, end: string | undefined): Promise<CloudOperation[]> {
    const window = queryWindow(start, end);
    const process = await this.find(ref);
    const job = await this.deps.processes.getJob(jobId);
    if (job && job.fid === process.fid) return this.deps.processes.operations(process.fid, { jobIds: [job.id], window });
    if (await this.deps.processes.historyEntry(process.fid, jobId)) return [];
    throw new AppError('not_found', 'Resource not found', {
      details: [{ code: 'job.not_found', message: `process ${process.fid} has no job or history entry '${jobId}'`, location: 'path.job_id' }],
    });
  }
}
