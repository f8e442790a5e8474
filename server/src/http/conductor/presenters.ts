import type { AccountWithCount, CloudOperation, DryRun, HistoryEntry, PlannedOperation, Process, ProcessResource } from '../../domain/conductor/types.js';
import type { Schemas } from './types.js';

/** The conductor's base path, for Location headers. */
export const CONDUCTOR_BASE = '/api/v0';

/** The raw archive the body parser kept (a Buffer); anything else is an empty archive, refused by the domain. */
export const archiveOf = (body: unknown): Buffer => (Buffer.isBuffer(body) ? body : Buffer.alloc(0));

export const accountBody = (account: AccountWithCount): Schemas['Account'] => ({
  name: account.name,
  provider: account.provider,
  account_id: account.accountId,
  created_at: account.createdAt,
  process_count: account.processCount,
});

const processFields = (p: Process) => ({
  fid: p.fid,
  alias: p.alias,
  account: p.accountName,
  state: p.state,
  enforcement: p.enforcement,
  lock: p.lock,
  created_at: p.createdAt,
  updated_at: p.updatedAt,
  composition_digest: p.compositionDigest,
});

export const processSummaryBody = (p: Process, resourceCount: number): Schemas['ProcessSummary'] => ({ ...processFields(p), resource_count: resourceCount });

export const processBody = (p: Process, resources: ProcessResource[]): Schemas['Process'] => ({
  ...processFields(p),
  resources: resources.map((r) => ({
    name: r.name,
    type: r.type,
    resource_id: r.resourceId,
    region: r.region,
    status: r.status,
    properties: r.properties,
  })),
});

export const historyBody = (entry: HistoryEntry): Schemas['HistoryEntry'] => ({
  id: entry.id,
  at: entry.at,
  event: entry.event,
  job_id: entry.jobId,
  actor: entry.actor,
  details: entry.details,
});

export const operationBody = (op: CloudOperation): Schemas['Operation'] => ({
  job_id: op.jobId,
  at: op.at,
  operation: op.operation,
  resource_name: op.resourceName,
  resource_type: op.resourceType,
  resource_id: op.resourceId,
  status: op.status,
  message: op.message,
});

const plannedBody = (op: PlannedOperation): Schemas['PlannedOperation'] => ({
  operation: op.operation,
  resource_name: op.resourceName,
  resource_type: op.resourceType,
  resource_id: op.resourceId,
  changes: op.changes,
});

export const dryRunBody = (d: DryRun): Schemas['DryRun'] => ({
  id: d.id,
  command: d.command,
  status: d.status,
  process: d.processFid,
  account: d.accountName,
  errors: d.errors,
  plan: d.plan.map(plannedBody),
  created_at: d.createdAt,
  finished_at: d.finishedAt,
});
