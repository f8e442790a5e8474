import { sql, type Insertable, type Kysely, type RawBuilder, type Selectable, type Transaction } from 'kysely';
import type { DialectName } from '../database.js';
import type { Database, JobsTable } from '../schema.js';
import { SHARED_TENANT } from '../../domain/jobs/tenants.js';
import type { Job, JobCount, JobRepository, JobStatus, RunningLimits } from '../../domain/repositories.js';

const toJob = (row: Selectable<JobsTable>): Job => ({
  id: row.id,
  kind: row.kind,
  payload: JSON.parse(row.payload) as unknown,
  status: row.status as JobStatus,
  attempts: row.attempts,
  maxAttempts: row.max_attempts,
  runAt: row.run_at,
  leaseOwner: row.lease_owner,
  leaseExpiresAt: row.lease_expires_at,
  lastError: row.last_error,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  finishedAt: row.finished_at,
  requestId: row.request_id,
  tenant: row.tenant,
});

/** The row of a queued job; other repositories write it inside their own transactions (see ScanRepository.insert). */
export function jobRow(job: Job, dedupeKey?: string): Insertable<JobsTable> {
  return {
    id: job.id,
    kind: job.kind,
    payload: JSON.stringify(job.payload),
    status: job.status,
    attempts: job.attempts,
    max_attempts: job.maxAttempts,
    run_at: job.runAt,
    lease_owner: job.leaseOwner,
    lease_expires_at: job.leaseExpiresAt,
    last_error: job.lastError,
    created_at: job.createdAt,
    updated_at: job.updatedAt,
    finished_at: job.finishedAt,
    dedupe_key: dedupeKey ?? null,
    request_id: job.requestId,
    tenant: job.tenant ?? SHARED_TENANT,
  };
}

export class KyselyJobRepository implements JobRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: DialectName,
  ) {}

  async insert(job: Job, dedupeKey?: string): Promise<boolean> {
    const result = await this.db
      .insertInto('jobs')
      .values(jobRow(job, dedupeKey))
      .onConflict((oc) => oc.column('dedupe_key').doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
  }

  async get(id: string): Promise<Job | undefined> {
    const row = await this.db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toJob(row);
  }

  async claim(owner: string, nowMs: number, leaseUntil: number, running: readonly string[] = [], limits: RunningLimits = {}): Promise<Job | undefined> {
    return (await this.takeOver(owner, nowMs, leaseUntil, running)) ?? (await this.claimInTurn(owner, nowMs, leaseUntil, limits));
  }

  /**
   * A job whose worker stopped (its lease ran out) with attempts left goes before any queued one: it was started
   * already, and taking it over adds nothing to its tenant's running jobs.
   */
  private async takeOver(owner: string, nowMs: number, leaseUntil: number, running: readonly string[]): Promise<Job | undefined> {
    // One UPDATE over a sub-select is atomic on both databases: SQLite runs one writer at a time, and on
    // PostgreSQL FOR UPDATE SKIP LOCKED lets concurrent workers pass over a row another worker is taking.
    const row = await this.db
      .updateTable('jobs')
      .set((eb) => ({
        status: 'running',
        lease_owner: owner,
        lease_expires_at: leaseUntil,
        attempts: eb('attempts', '+', 1),
        updated_at: nowMs,
      }))
      .where('id', '=', (eb) =>
        eb
          .selectFrom('jobs')
          .select('id')
          .where('status', '=', 'running')
          .where('lease_expires_at', '<', nowMs)
          .where((w) => w('attempts', '<', w.ref('max_attempts')))
          .$if(running.length > 0, (q) => q.where('id', 'not in', running))
          .orderBy('run_at')
          .orderBy('id')
          .limit(1)
          .$if(this.dialect === 'postgres', (q) => q.forUpdate().skipLocked()),
      )
      .returningAll()
      .executeTakeFirst();
    return row && toJob(row);
  }

  /**
   * Takes a due queued job of the tenant served longest ago that has one it may run, and records the tenant
   * served. Tenants with due jobs are tried in that order; one whose due jobs are all of kinds at its limit is
   * passed over, and so, at first, is one that a concurrent claim served since the order was read: a tenant that
   * was due its turn goes next rather than the one just served. Those are tried last, so that a lone tenant's
   * backlog still goes to every worker asking.
   */
  private async claimInTurn(owner: string, nowMs: number, leaseUntil: number, limits: RunningLimits): Promise<Job | undefined> {
    const waiting = await this.tenantsInTurn(nowMs);
    if (waiting.length === 0) return undefined;
    const unknown = waiting.filter((t) => t.last_claim === null).map((t) => ({ tenant: t.tenant, last_claim: 0 }));
    // Outside any claim's transaction, so that no claim waits on another's new rows.
    if (unknown.length > 0) await this.db.insertInto('job_tenants').values(unknown).onConflict((oc) => oc.column('tenant').doNothing()).execute();
    const servedMeanwhile: string[] = [];
    for (const { tenant, last_claim: lastClaim } of waiting) {
      const outcome = await this.db.transaction().execute((trx) => this.claimFor(trx, tenant, lastClaim ?? 0, owner, nowMs, leaseUntil, limits));
      if (outcome === 'served_meanwhile') servedMeanwhile.push(tenant);
      else if (outcome) return outcome;
    }
    for (const tenant of servedMeanwhile) {
      const job = await this.db.transaction().execute((trx) => this.claimFor(trx, tenant, undefined, owner, nowMs, leaseUntil, limits));
      if (job && job !== 'served_meanwhile') return job;
    }
    return undefined;
  }

  /**
   * One tenant's turn, in a transaction of its own; `served_meanwhile` when the tenant was served since its turn
   * was read as `lastClaim` (unless undefined). On PostgreSQL it first locks the tenant's row, waiting for a
   * claim for the same tenant in another server process to commit: the running jobs counted against the limits
   * are then read after that claim (each statement sees what committed before it), so that claims together never
   * exceed a limit. A transaction per tenant holds one such lock at a time, so claims never wait on each other in
   * a cycle.
   */
  private async claimFor(
    trx: Transaction<Database>,
    tenant: string,
    lastClaim: number | undefined,
    owner: string,
    nowMs: number,
    leaseUntil: number,
    limits: RunningLimits,
  ): Promise<Job | 'served_meanwhile' | undefined> {
    const turn = await trx
      .selectFrom('job_tenants')
      .select('last_claim')
      .where('tenant', '=', tenant)
      .$if(this.dialect === 'postgres', (q) => q.forUpdate())
      .executeTakeFirst();
    if (lastClaim !== undefined && turn && turn.last_claim !== lastClaim) return 'served_meanwhile';
    const row = await trx
      .updateTable('jobs')
      .set((eb) => ({
        status: 'running',
        lease_owner: owner,
        lease_expires_at: leaseUntil,
        attempts: eb('attempts', '+', 1),
        updated_at: nowMs,
      }))
      .where('id', '=', firstRunnable(tenant, nowMs, limits))
      .where('status', '=', 'queued')
      .returningAll()
      .executeTakeFirst();
    if (!row) return undefined;
    await markServed(trx, tenant);
    return toJob(row);
  }

  /**
   * The tenants with a due queued job, the one served longest ago first (never served counts as longest ago; ties
   * go by name). Reads the tenants with queued jobs one index step each (a loose index scan) rather than every
   * queued job. `+run_at` keeps SQLite from reading the due jobs of every tenant through (status, run_at) in search
   * of one of this tenant's: the tenant's own entries of the queue's index are fewer.
   */
  private async tenantsInTurn(nowMs: number): Promise<Array<{ tenant: string; last_claim: number | null }>> {
    const { rows } = await sql<{ tenant: string; last_claim: number | null }>`
      with recursive waiting (tenant) as (
        select (select tenant from jobs where status = 'queued' order by tenant limit 1)
        union all
        select (select j.tenant from jobs j where j.status = 'queued' and j.tenant > w.tenant order by j.tenant limit 1)
        from waiting w where w.tenant is not null
      )
      select w.tenant, t.last_claim from waiting w left join job_tenants t on t.tenant = w.tenant
      where w.tenant is not null
        and exists (select 1 from jobs d where d.status = 'queued' and d.tenant = w.tenant and +d.run_at <= ${nowMs})
      order by coalesce(t.last_claim, 0), w.tenant`.execute(this.db);
    return rows;
  }

  async claimAbandoned(owner: string, nowMs: number, leaseUntil: number, running: readonly string[] = []): Promise<Job[]> {
    const abandoned = await this.db
      .selectFrom('jobs')
      .select(['id', 'lease_expires_at'])
      .where('status', '=', 'running')
      .where('lease_expires_at', '<', nowMs)
      .where((w) => w('attempts', '>=', w.ref('max_attempts')))
      .$if(running.length > 0, (q) => q.where('id', 'not in', running))
      .execute();
    const claimed: Job[] = [];
    for (const { id, lease_expires_at: expiredAt } of abandoned) {
      // Another worker may take the same job at the same moment: only the one whose update still finds the lease
      // as it was read gets it.
      const row = await this.db
        .updateTable('jobs')
        .set({ lease_owner: owner, lease_expires_at: leaseUntil, updated_at: nowMs })
        .where('id', '=', id)
        .where('status', '=', 'running')
        .where('lease_expires_at', '=', expiredAt)
        .returningAll()
        .executeTakeFirst();
      if (row) claimed.push(toJob(row));
    }
    return claimed;
  }

  async handBack(id: string, owner: string, nowMs: number): Promise<boolean> {
    const result = await this.db
      .updateTable('jobs')
      .set((eb) => ({
        status: 'queued',
        run_at: nowMs,
        attempts: eb('attempts', '-', 1),
        lease_owner: null,
        lease_expires_at: null,
        updated_at: nowMs,
      }))
      .where('id', '=', id)
      .where('status', '=', 'running')
      .where('lease_owner', '=', owner)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async extendLease(id: string, owner: string, leaseUntil: number, nowMs: number): Promise<boolean> {
    return this.whileLeased(id, owner, { lease_expires_at: leaseUntil, updated_at: nowMs });
  }

  async complete(id: string, owner: string, nowMs: number): Promise<boolean> {
    return this.whileLeased(id, owner, {
      status: 'succeeded',
      lease_owner: null,
      lease_expires_at: null,
      updated_at: nowMs,
      finished_at: nowMs,
    });
  }

  async retry(id: string, owner: string, error: string, runAt: number, nowMs: number): Promise<boolean> {
    return this.whileLeased(id, owner, {
      status: 'queued',
      run_at: runAt,
      lease_owner: null,
      lease_expires_at: null,
      last_error: error,
      updated_at: nowMs,
    });
  }

  async fail(id: string, owner: string, error: string, nowMs: number): Promise<boolean> {
    return this.whileLeased(id, owner, {
      status: 'failed',
      lease_owner: null,
      lease_expires_at: null,
      last_error: error,
      updated_at: nowMs,
      finished_at: nowMs,
    });
  }

  async countUnfinished(): Promise<JobCount[]> {
    const rows = await this.db
      .selectFrom('jobs')
      .select(['kind', 'status', (eb) => eb.fn.countAll<number | string | bigint>().as('count')])
      .where('status', 'in', ['queued', 'running'])
      .groupBy(['kind', 'status'])
      .execute();
    // PostgreSQL counts in bigint, which its driver hands over as a string.
    return rows.map((row) => ({ kind: row.kind, status: row.status as JobCount['status'], count: Number(row.count) }));
  }

  private async whileLeased(id: string, owner: string, changes: Partial<JobsTable>): Promise<boolean> {
    const result = await this.db
      .updateTable('jobs')
      .set(changes)
      .where('id', '=', id)
      .where('status', '=', 'running')
      .where('lease_owner', '=', owner)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }
}

/**
 * The id of the tenant's oldest due queued job of a kind not at its limit: the kinds the tenant has queued are read
 * one index step each, and then the first due job of each kind, so that a backlog of one kind at its limit is
 * stepped over rather than read through.
 */
function firstRunnable(tenant: string, nowMs: number, limits: RunningLimits): RawBuilder<string> {
  const atLimit = Object.entries(limits).map(
    ([kind, limit]) => sql`(
      k.kind = ${kind}
      and (select count(*) from jobs r where r.status = 'running' and r.tenant = ${tenant} and r.kind = ${kind}) >= ${limit}
    )`,
  );
  // A column of the first due job of the kind k.kind. Twice rather than a join on its id, which PostgreSQL planned
  // as a hash join over the whole table.
  const firstDue = (column: string) => sql`(
    select ${sql.ref(column)} from jobs n
    where n.status = 'queued' and n.tenant = ${tenant} and n.kind = k.kind and n.run_at <= ${nowMs}
    order by n.run_at, n.id limit 1
  )`;
  return sql<string>`(
    with recursive kinds (kind) as (
      select (select kind from jobs where status = 'queued' and tenant = ${tenant} order by kind limit 1)
      union all
      select (select j.kind from jobs j where j.status = 'queued' and j.tenant = ${tenant} and j.kind > k.kind order by j.kind limit 1)
      from kinds k where k.kind is not null
    )
    select id from (
      select ${firstDue('n.id')} as id, ${firstDue('n.run_at')} as run_at
      from kinds k
      where k.kind is not null${atLimit.length > 0 ? sql` and not (${sql.join(atLimit, sql` or `)})` : sql``}
    ) firsts
    where id is not null
    order by run_at, id limit 1
  )`;
}

/** Gives the tenant the next claim's number: it goes last among the tenants waiting. */
async function markServed(trx: Transaction<Database>, tenant: string): Promise<void> {
  await trx
    .updateTable('job_tenants')
    .set({ last_claim: sql<number>`(select coalesce(max(last_claim), 0) + 1 from job_tenants)` })
    .where('tenant', '=', tenant)
    .execute();
}
