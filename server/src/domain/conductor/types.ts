import type { Provider } from '../cloud/providers.js';
import type { ErrorDetail } from '../errors.js';

/** A cloud account the conductor manages processes in. Accounts belong to the deployment, not to organizations. */
export interface Account {
  name: string;
  provider: Provider;
  /** 12 digits (provider_a, provider_a_gov) or a subscription id (provider_b); keys the cloud inventory. */
  accountId: string;
  createdAt: number;
}

export interface AccountWithCount extends Account {
  /** Processes in the account that are neither killed nor released. */
  processCount: number;
}

/** RUNNING -suspend-> SUSPENDED -resume-> RUNNING; RUNNING or SUSPENDED -kill-> KILLING -> KILLED. */
export type ProcessState = 'RUNNING' | 'SUSPENDED' | 'KILLING' | 'KILLED';

export type ProcessAction = 'suspend' | 'resume' | 'kill';

export interface Process {
  fid: string;
  alias: string | null;
  accountName: string;
  provider: Provider;
  accountId: string;
  state: ProcessState;
  enforcement: boolean;
  lock: boolean;
  compositionDigest: string;
  /** Bumped by every change; a change computed from an older version is refused and recomputed. */
  version: number;
  /** Set when the process was released: from then on it is not found. */
  releasedAt: number | null;
  createdAt: number;
  updatedAt: number;
}

/**
 * `pending`: not in the cloud yet; `present`: exists and matches; `drifted`: exists but differs from the desired
 * state; `deleted`: gone; `failed`: the last operation on it failed. Only pending, present, deleted and failed are
 * stored: present resources are compared with the cloud when read.
 */
export type ResourceStatus = 'pending' | 'present' | 'drifted' | 'deleted' | 'failed';

/** One resource of a process: its desired state and what the conductor knows of it in the cloud. */
export interface ProcessResource {
  id: string;
  fid: string;
  /** The name in the composition, unique among the process's current resources. */
  name: string;
  type: string;
  region: string | null;
  /** Null until created; for an import, the adopted resource's id from the start. */
  resourceId: string | null;
  status: ResourceStatus;
  /** Desired properties and tags: only these keys are compared with the cloud and corrected. */
  properties: Record<string, unknown>;
  tags: Record<string, string>;
  /**
   * `composition`: created from the composition; `import`: an existing resource of the account to adopt
   * (import_resources=true), not adopted yet; `adopted`: adopted, its desired state the one it had then.
   */
  origin: 'composition' | 'import' | 'adopted';
  position: number;
  /** No longer in the composition: the next job deletes it from the cloud and forgets it. */
  retired: boolean;
}

export const HISTORY_EVENTS = [
  'created',
  'composition_updated',
  'alias_changed',
  'enforcement_changed',
  'lock_changed',
  'suspended',
  'resumed',
  'kill_requested',
  'killed',
  'kill_failed',
  'released',
  'drift_corrected',
] as const;
export type HistoryEvent = (typeof HISTORY_EVENTS)[number];

export interface HistoryEntry {
  id: string;
  fid: string;
  /** The process version the change produced; entries of one change follow each other by `seq`. */
  ordinal: number;
  seq: number;
  at: number;
  event: HistoryEvent;
  jobId: string | null;
  /** The user who made the change, or `conductor` for changes the server made itself. */
  actor: string;
  details: Record<string, unknown>;
}

/** The actor of changes the server makes on its own (job ends, drift corrections). */
export const SERVER_ACTOR = 'conductor';

/** What a job of a process does: bring the cloud to the composition (create, update, correct), or delete it all. */
export type JobPurpose = 'create' | 'update' | 'kill' | 'correct';
export type ProcessJobStatus = 'queued' | 'running' | 'succeeded' | 'failed';

/** A job done for a process; its id is the `job_id` the API shows. The durable queue runs it. */
export interface ProcessJob {
  id: string;
  fid: string;
  purpose: JobPurpose;
  status: ProcessJobStatus;
  queueJobId: string | null;
  /** The process version that started it: orders the process's jobs. */
  ordinal: number;
  message: string | null;
  createdAt: number;
  finishedAt: number | null;
}

export type OperationKind = 'create' | 'update' | 'delete' | 'import' | 'correct';

/** One cloud operation a job performed for a process. */
export interface CloudOperation {
  id: string;
  fid: string;
  jobId: string;
  jobOrdinal: number;
  /** Place within the job. */
  seq: number;
  at: number;
  operation: OperationKind;
  resourceName: string;
  resourceType: string;
  /** Empty when a create failed before the cloud assigned an id. */
  resourceId: string;
  status: 'succeeded' | 'failed';
  message: string | null;
}

/** One operation a command would perform: what dry-runs answer, and what jobs carry out. */
export interface PlannedOperation {
  operation: 'create' | 'update' | 'delete' | 'import' | 'none';
  resourceName: string;
  resourceType: string;
  resourceId: string | null;
  /** update: `{ key: { from, to } }`; create and import: the properties; delete and none: null. */
  changes: Record<string, unknown> | null;
}

export const DRY_RUN_COMMANDS = ['RUN', 'UPDATE', 'KILL', 'RESUME'] as const;
export type DryRunCommand = (typeof DRY_RUN_COMMANDS)[number];
export type DryRunStatus = 'PENDING' | 'RUNNING' | 'SUCCEEDED' | 'FAILED';
export const isFinished = (status: DryRunStatus): boolean => status === 'SUCCEEDED' || status === 'FAILED';

export interface DryRun {
  id: string;
  command: DryRunCommand;
  status: DryRunStatus;
  processFid: string | null;
  accountName: string | null;
  importResources: boolean;
  /** composition.yaml as uploaded (RUN, UPDATE); the dry-run's job reads it. */
  compositionText: string | null;
  errors: ErrorDetail[];
  plan: PlannedOperation[];
  jobId: string | null;
  createdAt: number;
  finishedAt: number | null;
}

/** A time window of a query, in Unix seconds, both ends included; an absent end is open. */
export interface TimeWindow {
  from?: number;
  to?: number;
}
