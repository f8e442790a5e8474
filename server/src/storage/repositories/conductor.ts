import type { Kysely, Selectable, Transaction } from 'kysely';
import type { Provider } from '../../domain/cloud/providers.js';
import type {
  Account,
  AccountWithCount,
  CloudOperation,
  DryRun,
  DryRunCommand,
  DryRunStatus,
  HistoryEntry,
  HistoryEvent,
  JobPurpose,
  OperationKind,
  Process,
  ProcessJob,
  ProcessJobStatus,
  ProcessResource,
  ProcessState,
  ResourceStatus,
  TimeWindow,
} from '../../domain/conductor/types.js';
import type {
  ConductorDryRunsTable,
  ConductorHistoryTable,
  ConductorJobsTable,
  ConductorOperationsTable,
  ConductorProcessesTable,
  ConductorProcessResourcesTable,
  Database,
} from '../schema.js';
import type {
  ConductorAccountRepository,
  DryRunRepository,
  Job,
  ProcessChange,
  ProcessRepository,
  ResourceProgress,
} from '../../domain/repositories.js';

import { jobRow as queueJobRow } from './jobs.js';
import { admitInto } from './quotas.js';
import type { Admission } from '../../domain/quotas.js';
import { prepareQuery } from '../prepared.js';

const isUniqueViolation = (error: unknown): boolean =>
  /UNIQUE constraint failed|duplicate key value/.test(String((error as Error)?.message ?? error));

/** Processes that still count: neither killed nor released. */
const LIVE_STATES: ProcessState[] = ['RUNNING', 'SUSPENDED', 'KILLING'];
/** Ids per `in (...)` list: well under both databases' limits on bound parameters. */
const IN_BATCH = 500;

export class KyselyConductorAccountRepository implements ConductorAccountRepository {
  constructor(private readonly db: Kysely<Database>) {}

  private query() {
    return this.db
      .selectFrom('conductor_accounts as a')
      .selectAll('a')
      .select((eb) =>
        eb
          .selectFrom('conductor_processes as p')
          .select((c) => c.fn.countAll<number>().as('n'))
          .whereRef('p.account_name', '=', 'a.name')
          .where('p.state', 'in', LIVE_STATES)
          .where('p.released_at', 'is', null)
          .as('process_count'),
      );
  }

  async list(): Promise<AccountWithCount[]> {
    const rows = await this.query().orderBy('a.name').execute();
    return rows.map(toAccount);
  }

  async find(nameOrId: string): Promise<AccountWithCount | undefined> {
    const byName = await this.query().where('a.name', '=', nameOrId).executeTakeFirst();
    if (byName) return toAccount(byName);
    const byId = await this.query().where('a.account_id', '=', nameOrId).executeTakeFirst();
    return byId && toAccount(byId);
  }

  async insert(account: Account): Promise<'ok' | 'name' | 'account_id'> {
    try {
      await this.db
        .insertInto('conductor_accounts')
        .values({ name: account.name, provider: account.provider, account_id: account.accountId, created_at: account.createdAt })
        .execute();
      return 'ok';
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      const sameName = await this.db.selectFrom('conductor_accounts').select('name').where('name', '=', account.name).executeTakeFirst();
      return sameName ? 'name' : 'account_id';
    }
  }

  async delete(name: string): Promise<void> {
    await this.db.deleteFrom('conductor_accounts').where('name', '=', name).execute();
  }
}

function toAccount(row: { name: string; provider: string; account_id: string; created_at: number; process_count: number | string | null }): AccountWithCount {
  return {
    name: row.name,
    provider: row.provider as Provider,
    accountId: row.account_id,
    createdAt: row.created_at,
    processCount: Number(row.process_count ?? 0),
  };
}

const toProcess = (row: Selectable<ConductorProcessesTable>): Process => ({
  fid: row.fid,
  alias: row.alias,
  accountName: row.account_name,
  provider: row.provider as Provider,
  accountId: row.account_id,
  state: row.state as ProcessState,
  enforcement: row.enforcement === 1,
  lock: row.locked === 1,
  compositionDigest: row.composition_digest,
  version: row.version,
  releasedAt: row.released_at,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

const processRow = (p: Process): Omit<Selectable<ConductorProcessesTable>, 'created_seq'> => ({
  fid: p.fid,
  alias: p.alias,
  account_name: p.accountName,
  provider: p.provider,
  account_id: p.accountId,
  state: p.state,
  enforcement: p.enforcement ? 1 : 0,
  locked: p.lock ? 1 : 0,
  composition_digest: p.compositionDigest,
  version: p.version,
  released_at: p.releasedAt,
  created_at: p.createdAt,
  updated_at: p.updatedAt,
});

const toResource = (row: Selectable<ConductorProcessResourcesTable>): ProcessResource => ({
  id: row.id,
  fid: row.fid,
  name: row.name,
  type: row.type,
  region: row.region,
  resourceId: row.resource_id,
  status: row.status as ResourceStatus,
  properties: JSON.parse(row.properties) as Record<string, unknown>,
  tags: JSON.parse(row.tags) as Record<string, string>,
  origin: row.origin as ProcessResource['origin'],
  position: row.position,
  retired: row.retired === 1,
});

const resourceRow = (r: ProcessResource): Selectable<ConductorProcessResourcesTable> => ({
  id: r.id,
  fid: r.fid,
  name: r.name,
  type: r.type,
  region: r.region,
  resource_id: r.resourceId,
  status: r.status,
  properties: JSON.stringify(r.properties),
  tags: JSON.stringify(r.tags),
  origin: r.origin,
  position: r.position,
  retired: r.retired ? 1 : 0,
});

const toJob = (row: Selectable<ConductorJobsTable>): ProcessJob => ({
  id: row.id,
  fid: row.fid,
  purpose: row.purpose as JobPurpose,
  status: row.status as ProcessJobStatus,
  queueJobId: row.queue_job_id,
  ordinal: row.ordinal,
  message: row.message,
  createdAt: row.created_at,
  finishedAt: row.finished_at,
});

const jobRow = (j: ProcessJob): Selectable<ConductorJobsTable> => ({
  id: j.id,
  fid: j.fid,
  purpose: j.purpose,
  status: j.status,
  queue_job_id: j.queueJobId,
  ordinal: j.ordinal,
  message: j.message,
  created_at: j.createdAt,
  finished_at: j.finishedAt,
});

const toHistory = (row: Selectable<ConductorHistoryTable>): HistoryEntry => ({
  id: row.id,
  fid: row.fid,
  ordinal: row.ordinal,
  seq: row.seq,
  at: row.at,
  event: row.event as HistoryEvent,
  jobId: row.job_id,
  actor: row.actor,
  details: JSON.parse(row.details) as Record<string, unknown>,
});

const historyRow = (h: HistoryEntry): Selectable<ConductorHistoryTable> => ({
  id: h.id,
  fid: h.fid,
  ordinal: h.ordinal,
  seq: h.seq,
  at: h.at,
  event: h.event,
  job_id: h.jobId,
  actor: h.actor,
  details: JSON.stringify(h.details),
});

const toOperation = (row: Selectable<ConductorOperationsTable>): CloudOperation => ({
  id: row.id,
  fid: row.fid,
  jobId: row.job_id,
  jobOrdinal: row.job_ordinal,
  seq: row.seq,
  at: row.at,
  operation: row.operation as OperationKind,
  resourceName: row.resource_name,
  resourceType: row.resource_type,
  resourceId: row.resource_id,
  status: row.status as CloudOperation['status'],
  message: row.message,
});

export class KyselyProcessRepository implements ProcessRepository {
  private readonly byFid;
  private readonly byAlias;
  private readonly resourcesOf;

  constructor(private readonly db: Kysely<Database>) {
    this.byFid = prepareQuery(db, (p: { fid: string }) => db.selectFrom('conductor_processes').selectAll().where('fid', '=', p.fid));
    this.byAlias = prepareQuery(db, (p: { alias: string }) => db.selectFrom('conductor_processes').selectAll().where('alias', '=', p.alias));
    this.resourcesOf = prepareQuery(db, (p: { fid: string }) =>
      db.selectFrom('conductor_process_resources').selectAll().where('fid', '=', p.fid).orderBy('position').orderBy('id'),
    );
  }

  async insert(process: Process, resources: ProcessResource[], history: HistoryEntry[], job: ProcessJob, admit?: Admission): Promise<boolean> {
    try {
      await this.db.transaction().execute(async (trx) => {
        const held = trx
          .selectFrom('conductor_processes')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('account_name', '=', process.accountName)
          .where('state', 'in', LIVE_STATES)
          .where('released_at', 'is', null);
        await admitInto(trx, { conductorAccount: process.accountName }, admit, held);
        await trx.insertInto('conductor_processes').values(processRow(process)).execute();
        await insertAll(trx, resources, history, [job]);
      });
      return true;
    } catch (error) {
      if (isUniqueViolation(error)) return false;
      throw error;
    }
  }

  async apply(change: ProcessChange): Promise<'ok' | 'stale' | 'alias_taken'> {
    try {
      return await this.db.transaction().execute(async (trx) => {
        const { fid, ...values } = processRow(change.process);
        const updated = await trx
          .updateTable('conductor_processes')
          .set(values)
          .where('fid', '=', fid)
          .where('version', '=', change.expectedVersion)
          .executeTakeFirst();
        if (Number(updated.numUpdatedRows) !== 1) return 'stale';
        for (const r of change.desiredResources ?? []) {
          await trx
            .updateTable('conductor_process_resources')
            .set({ properties: JSON.stringify(r.properties), tags: JSON.stringify(r.tags), position: r.position, retired: r.retired ? 1 : 0 })
            .where('id', '=', r.id)
            .execute();
        }
        await insertAll(trx, change.newResources ?? [], change.history ?? [], change.newJobs ?? []);
        if (change.finishedJob) await writeJob(trx, change.finishedJob);
        return 'ok' as const;
      });
    } catch (error) {
      if (isUniqueViolation(error)) return 'alias_taken';
      throw error;
    }
  }

  async get(fid: string): Promise<Process | undefined> {
    const row = await this.byFid.first({ fid });
    return row && toProcess(row);
  }

  async findByAlias(alias: string): Promise<Process | undefined> {
    const row = await this.byAlias.first({ alias });
    return row && toProcess(row);
  }

  async listLive(accountName: string | undefined): Promise<Array<{ process: Process; resourceCount: number }>> {
    const rows = await this.db
      .selectFrom('conductor_processes as p')
      .selectAll('p')
      .select((eb) =>
        eb
          .selectFrom('conductor_process_resources as r')
          .select((c) => c.fn.countAll<number>().as('n'))
          .whereRef('r.fid', '=', 'p.fid')
          .where('r.retired', '=', 0)
          .as('resource_count'),
      )
      .where('p.state', 'in', LIVE_STATES)
      .where('p.released_at', 'is', null)
      .$if(accountName !== undefined, (q) => q.where('p.account_name', '=', accountName!))
      .orderBy('p.created_at')
      .orderBy('p.created_seq')
      .execute();
    return rows.map(({ resource_count, ...row }) => ({ process: toProcess(row), resourceCount: Number(resource_count ?? 0) }));
  }

  async listEnforced(afterFid: string | null, limit: number): Promise<Process[]> {
    const rows = await this.db
      .selectFrom('conductor_processes')
      .selectAll()
      .where('state', '=', 'RUNNING')
      .where('enforcement', '=', 1)
      .where('released_at', 'is', null)
      .$if(afterFid !== null, (q) => q.where('fid', '>', afterFid!))
      .orderBy('fid')
      .limit(limit)
      .execute();
    return rows.map(toProcess);
  }

  async resources(fid: string): Promise<ProcessResource[]> {
    const rows = await this.resourcesOf.rows({ fid });
    return rows.map(toResource);
  }

  async recordProgress(operation: CloudOperation | null, resource: ResourceProgress): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      if (operation) await trx.insertInto('conductor_operations').values(operationRow(operation)).execute();
      if ('forget' in resource) {
        await trx.deleteFrom('conductor_process_resources').where('id', '=', resource.id).execute();
        return;
      }
      await trx
        .updateTable('conductor_process_resources')
        .set({
          resource_id: resource.resourceId,
          status: resource.status,
          ...(resource.adopted && {
            origin: 'adopted',
            properties: JSON.stringify(resource.adopted.properties),
            tags: JSON.stringify(resource.adopted.tags),
          }),
        })
        .where('id', '=', resource.id)
        .execute();
    });
  }

  async getJob(id: string): Promise<ProcessJob | undefined> {
    const row = await this.db.selectFrom('conductor_jobs').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toJob(row);
  }

  async updateJob(job: ProcessJob): Promise<void> {
    await writeJob(this.db, job);
  }

  async attachQueueJob(id: string, queueJobId: string): Promise<void> {
    await this.db.updateTable('conductor_jobs').set({ queue_job_id: queueJobId }).where('id', '=', id).execute();
  }

  async jobs(fid: string): Promise<ProcessJob[]> {
    const rows = await this.db.selectFrom('conductor_jobs').selectAll().where('fid', '=', fid).orderBy('ordinal').execute();
    return rows.map(toJob);
  }

  async unfinishedJobs(limit: number): Promise<ProcessJob[]> {
    const rows = await this.db
      .selectFrom('conductor_jobs')
      .selectAll()
      .where('status', 'in', ['queued', 'running'])
      .orderBy('created_at')
      .orderBy('id')
      .limit(limit)
      .execute();
    return rows.map(toJob);
  }

  async history(fid: string, window: TimeWindow): Promise<HistoryEntry[]> {
    const rows = await this.db
      .selectFrom('conductor_history')
      .selectAll()
      .where('fid', '=', fid)
      .$if(window.from !== undefined, (q) => q.where('at', '>=', window.from!))
      .$if(window.to !== undefined, (q) => q.where('at', '<=', window.to!))
      .orderBy('ordinal')
      .orderBy('seq')
      .execute();
    return rows.map(toHistory);
  }

  async historyEntry(fid: string, id: string): Promise<HistoryEntry | undefined> {
    const row = await this.db.selectFrom('conductor_history').selectAll().where('fid', '=', fid).where('id', '=', id).executeTakeFirst();
    return row && toHistory(row);
  }

  async latestHistoryEntry(fid: string): Promise<HistoryEntry | undefined> {
    const row = await this.db
      .selectFrom('conductor_history')
      .selectAll()
      .where('fid', '=', fid)
      .orderBy('ordinal', 'desc')
      .orderBy('seq', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row && toHistory(row);
  }

  async operations(fid: string, filter: { jobIds?: readonly string[]; window: TimeWindow }): Promise<CloudOperation[]> {
    const { jobIds, window } = filter;
    if (jobIds && jobIds.length === 0) return [];
    const rows = await this.db
      .selectFrom('conductor_operations')
      .selectAll()
      .where('fid', '=', fid)
      .$if(jobIds !== undefined, (q) => q.where('job_id', 'in', jobIds!))
      .$if(window.from !== undefined, (q) => q.where('at', '>=', window.from!))
      .$if(window.to !== undefined, (q) => q.where('at', '<=', window.to!))
      .orderBy('at')
      .orderBy('job_ordinal')
      .orderBy('seq')
      .execute();
    return rows.map(toOperation);
  }
}

async function insertAll(trx: Transaction<Database>, resources: ProcessResource[], history: HistoryEntry[], jobs: ProcessJob[]): Promise<void> {
  if (resources.length > 0) await trx.insertInto('conductor_process_resources').values(resources.map(resourceRow)).execute();
  if (history.length > 0) await trx.insertInto('conductor_history').values(history.map(historyRow)).execute();
  if (jobs.length > 0) await trx.insertInto('conductor_jobs').values(jobs.map(jobRow)).execute();
}

async function writeJob(db: Kysely<Database>, job: ProcessJob): Promise<void> {
  await db
    .updateTable('conductor_jobs')
    .set({ status: job.status, message: job.message, finished_at: job.finishedAt })
    .where('id', '=', job.id)
    .execute();
}

function operationRow(o: CloudOperation): Selectable<ConductorOperationsTable> {
  return {
    id: o.id,
    fid: o.fid,
    job_id: o.jobId,
    job_ordinal: o.jobOrdinal,
    seq: o.seq,
    at: o.at,
    operation: o.operation,
    resource_name: o.resourceName,
    resource_type: o.resourceType,
    resource_id: o.resourceId,
    status: o.status,
    message: o.message,
  };
}

const toDryRun = (row: Selectable<ConductorDryRunsTable>): DryRun => ({
  id: row.id,
  command: row.command as DryRunCommand,
  status: row.status as DryRunStatus,
  processFid: row.process_fid,
  accountName: row.account_name,
  importResources: row.import_resources === 1,
  compositionText: row.composition_text,
  errors: JSON.parse(row.errors) as DryRun['errors'],
  plan: JSON.parse(row.plan) as DryRun['plan'],
  jobId: row.job_id,
  createdAt: row.created_at,
  finishedAt: row.finished_at,
});

const dryRunRow = (d: DryRun): Selectable<ConductorDryRunsTable> => ({
  id: d.id,
  command: d.command,
  status: d.status,
  process_fid: d.processFid,
  account_name: d.accountName,
  import_resources: d.importResources ? 1 : 0,
  composition_text: d.compositionText,
  errors: JSON.stringify(d.errors),
  plan: JSON.stringify(d.plan),
  job_id: d.jobId,
  created_at: d.createdAt,
  finished_at: d.finishedAt,
});

export class KyselyDryRunRepository implements DryRunRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(dryRun: DryRun, job: Job): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.insertInto('conductor_dry_runs').values(dryRunRow(dryRun)).execute();
      await trx.insertInto('jobs').values(queueJobRow(job)).execute();
    });
  }

  async get(id: string): Promise<DryRun | undefined> {
    const row = await this.db.selectFrom('conductor_dry_runs').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toDryRun(row);
  }

  async update(dryRun: DryRun): Promise<void> {
    await this.db
      .updateTable('conductor_dry_runs')
      .set({ status: dryRun.status, errors: JSON.stringify(dryRun.errors), plan: JSON.stringify(dryRun.plan), finished_at: dryRun.finishedAt })
      .where('id', '=', dryRun.id)
      .execute();
  }

  async finishedAmong(ids: readonly string[]): Promise<string[]> {
    const finished: string[] = [];
    for (let i = 0; i < ids.length; i += IN_BATCH) {
      const rows = await this.db
        .selectFrom('conductor_dry_runs')
        .select('id')
        .where('id', 'in', ids.slice(i, i + IN_BATCH))
        .where('status', 'in', ['SUCCEEDED', 'FAILED'])
        .execute();
      finished.push(...rows.map((r) => r.id));
    }
    return finished;
  }
}
