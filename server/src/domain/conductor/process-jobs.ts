import type { Clock } from '../clock.js';
import type { CloudAdapter } from '../cloud/adapter.js';
import { newId } from '../ids.js';
import { holdLease } from '../jobs/queue.js';
import type { ProcessRepository, ResourceProgress } from '../repositories.js';
import type { ProcessChanges } from './lifecycle.js';
import { observe, planKill, planReconcile, type Step } from './planner.js';
import { SERVER_ACTOR, type CloudOperation, type OperationKind, type Process, type ProcessJob, type ProcessResource } from './types.js';

export interface ProcessJobRunnerDeps {
  processes: ProcessRepository;
  changes: ProcessChanges;
  cloud: CloudAdapter;
  clock: Clock;
}

/** A resource's name in the cloud: its composition name, made unique per process so that processes never collide. */
export const cloudName = (process: Process, resource: ProcessResource): string => `${resource.name}-${process.fid.slice(0, 8)}`;

/**
 * Carries out a process's jobs. Create, update and correction jobs bring the cloud to the process's current
 * desired state (so a job that runs late converges to the latest composition); a kill job deletes everything and
 * ends the process KILLED. Each cloud operation is recorded as it is done, with the resource's new cloud side,
 * so a job interrupted by a crash and run again plans from where it stopped and repeats nothing that succeeded.
 */
export class ProcessJobRunner {
  constructor(private readonly deps: ProcessJobRunnerDeps) {}

  /** `reached` names the points a test may crash the process at (see JobContext.reached). */
  async run(jobId: string, heartbeat: () => Promise<boolean>, reached: (point: string) => void = () => {}): Promise<void> {
    const { processes } = this.deps;
    const job = await processes.getJob(jobId);
    if (!job || job.status === 'succeeded' || job.status === 'failed') return;
    const process = await processes.get(job.fid);
    if (!process || process.releasedAt !== null) return this.finish(job, 'the process was released before the job ran');
    if (job.status === 'queued') await processes.updateJob({ ...job, status: 'running' });
    if (job.purpose === 'kill') return this.kill(process, job, heartbeat, reached);

    if (process.state === 'KILLING' || process.state === 'KILLED') return this.finish(job, 'the process was killed before the job ran');
    if (job.purpose === 'correct' && (process.state !== 'RUNNING' || !process.enforcement)) {
      return this.finish(job, 'enforcement was turned off, or the process suspended, before the correction ran');
    }
    const resources = await processes.resources(process.fid);
    const steps = planReconcile(resources, await observe(this.deps.cloud, process, resources));
    const operations = await this.carryOut(process, job, steps, heartbeat, reached);
    if (job.purpose !== 'correct' || operations.length === 0) return this.finish(job, null);
    const failed = operations.filter((o) => o.status === 'failed').length;
    await this.deps.changes.apply(process.fid, SERVER_ACTOR, (draft) => {
      draft.record('drift_corrected', { resources: operations.length - failed, failed }, job.id);
      draft.finishedJob = this.finished(job, failed > 0 ? `${failed} resource(s) could not be corrected; see the job's ops` : null);
    });
  }

  /**
   * The queue gave the job up: it is recorded failed with the reason, so its ops and the process's history show
   * where it stopped; whatever its attempts did in the cloud stays recorded as ops.
   */
  async giveUp(jobId: string, reason: string): Promise<void> {
    const job = await this.deps.processes.getJob(jobId);
    if (!job || job.status === 'succeeded' || job.status === 'failed') return;
    const failed: ProcessJob = { ...job, status: 'failed', message: reason, finishedAt: this.deps.clock.nowSeconds() };
    const process = job.purpose === 'kill' ? await this.deps.processes.get(job.fid) : undefined;
    // A released process's history is closed (and changing it refused): only the job records the reason.
    if (!process || process.releasedAt !== null) return void (await this.deps.processes.updateJob(failed));
    // A kill that cannot finish must not leave the process KILLING for good, refusing everything: it is left
    // SUSPENDED (nothing re-creates what was already deleted), and the kill can be requested again.
    await this.deps.changes.apply(job.fid, SERVER_ACTOR, (draft) => {
      draft.finishedJob = failed;
      if (draft.current.state !== 'KILLING') return;
      draft.process.state = 'SUSPENDED';
      draft.record('kill_failed', { reason }, job.id);
    });
  }

  private async kill(process: Process, job: ProcessJob, heartbeat: () => Promise<boolean>, reached: (point: string) => void): Promise<void> {
    if (process.state !== 'KILLING') return this.finish(job, `the process is ${process.state}; nothing to kill`);
    const resources = await this.deps.processes.resources(process.fid);
    const operations = await this.carryOut(process, job, planKill(resources, await observe(this.deps.cloud, process, resources)), heartbeat, reached);
    const failed = operations.filter((o) => o.status === 'failed').length;
    await this.deps.changes.apply(process.fid, SERVER_ACTOR, (draft) => {
      if (draft.current.state !== 'KILLING') return;
      draft.process.state = 'KILLED';
      // A killed process lets its alias go, so that a new process can take it.
      draft.process.alias = null;
      draft.record('killed', { deleted: operations.length - failed, failed }, job.id);
      draft.finishedJob = this.finished(job, failed > 0 ? `${failed} resource(s) could not be deleted; see the job's ops` : null);
    });
  }

  private finished(job: ProcessJob, message: string | null): ProcessJob {
    return { ...job, status: 'succeeded', message, finishedAt: this.deps.clock.nowSeconds() };
  }

  private async finish(job: ProcessJob, message: string | null): Promise<void> {
    await this.deps.processes.updateJob(this.finished(job, message));
  }

  /** Carries out the steps in order; returns the cloud operations performed. */
  private async carryOut(
    process: Process,
    job: ProcessJob,
    steps: Step[],
    heartbeat: () => Promise<boolean>,
    reached: (point: string) => void,
  ): Promise<CloudOperation[]> {
    const done: CloudOperation[] = [];
    // A retried job continues the numbering of the operations its earlier attempt recorded.
    let seq = (await this.deps.processes.operations(process.fid, { jobIds: [job.id], window: {} })).length;
    for (const step of steps) {
      await holdLease(heartbeat, `process job ${job.id}`);
      const outcome = await this.perform(process, job, step);
      if (!outcome.operation) {
        await this.deps.processes.recordProgress(null, outcome.progress);
        continue;
      }
      // Done in the cloud, not yet recorded: a retry must find the change by observing the cloud.
      reached('performed');
      const operation: CloudOperation = {
        id: newId(),
        fid: process.fid,
        jobId: job.id,
        jobOrdinal: job.ordinal,
        seq: seq++,
        at: this.deps.clock.nowSeconds(),
        resourceName: step.resource.name,
        resourceType: step.resource.type,
        ...outcome.operation,
      };
      await this.deps.processes.recordProgress(operation, outcome.progress);
      done.push(operation);
    }
    return done;
  }

  private async perform(
    process: Process,
    job: ProcessJob,
    step: Step,
  ): Promise<{ operation?: Pick<CloudOperation, 'operation' | 'resourceId' | 'status' | 'message'>; progress: ResourceProgress }> {
    const { cloud } = this.deps;
    const { resource, actual } = step;
    const { provider, accountId } = process;
    // What a correction job does to a resource is a correction, whichever cloud call it takes.
    const kind = (operation: OperationKind): OperationKind => (job.purpose === 'correct' && (operation === 'create' || operation === 'update') ? 'correct' : operation);
    const failedOn = (resourceId: string | null, message: string) => ({
      status: 'failed' as const,
      resourceId: resourceId ?? '',
      message,
    });

    switch (step.operation) {
      case 'none':
        // Retired and gone, or killed before it was adopted: nothing of it is the process's any more.
        if (resource.retired || (job.purpose === 'kill' && resource.origin === 'import')) return { progress: { id: resource.id, forget: true } };
        if (job.purpose === 'kill') return { progress: { id: resource.id, resourceId: resource.resourceId, status: 'deleted' } };
        return { progress: { id: resource.id, resourceId: actual?.id ?? resource.resourceId, status: 'present' } };
      case 'create': {
        const outcome = await cloud.createResource(provider, accountId, {
          type: resource.type,
          name: cloudName(process, resource),
          region: resource.region,
          tags: resource.tags,
          properties: resource.properties,
        });
        if (!outcome.ok) return { operation: { operation: kind('create'), ...failedOn(resource.resourceId, outcome.message) }, progress: { id: resource.id, resourceId: resource.resourceId, status: 'failed' } };
        return {
          operation: { operation: kind('create'), resourceId: outcome.document.id, status: 'succeeded', message: null },
          progress: { id: resource.id, resourceId: outcome.document.id, status: 'present' },
        };
      }
      case 'update': {
        const outcome = await cloud.updateResource(provider, accountId, actual!.id, { properties: resource.properties, tags: resource.tags });
        return {
          operation: { operation: kind('update'), ...(outcome.ok ? { resourceId: actual!.id, status: 'succeeded', message: null } : failedOn(actual!.id, outcome.message)) },
          progress: { id: resource.id, resourceId: actual!.id, status: outcome.ok ? 'present' : 'failed' },
        };
      }
      case 'delete': {
        const outcome = await cloud.deleteResource(provider, accountId, actual!.id);
        const progress: ResourceProgress = !outcome.ok
          ? { id: resource.id, resourceId: actual!.id, status: 'failed' }
          : resource.retired
            ? { id: resource.id, forget: true }
            : { id: resource.id, resourceId: actual!.id, status: 'deleted' };
        return { operation: { operation: 'delete', ...(outcome.ok ? { resourceId: actual!.id, status: 'succeeded', message: null } : failedOn(actual!.id, outcome.message)) }, progress };
      }
      case 'import': {
        const problem = !actual
          ? `the account has no resource '${resource.resourceId}' to adopt`
          : actual.type !== resource.type
            ? `'${actual.id}' is a ${actual.type}, not a ${resource.type}`
            : undefined;
        if (problem) return { operation: { operation: 'import', ...failedOn(resource.resourceId, problem) }, progress: { id: resource.id, resourceId: resource.resourceId, status: 'failed' } };
        return {
          operation: { operation: 'import', resourceId: actual!.id, status: 'succeeded', message: null },
          // The adopted resource's state when adopted becomes its desired state.
          progress: { id: resource.id, resourceId: actual!.id, status: 'present', adopted: { properties: actual!.properties, tags: actual!.tags } },
        };
      }
    }
  }
}
