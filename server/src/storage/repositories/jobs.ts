import type { Insertable, Kysely, Selectable } from 'kysely';
import type { DialectName } from '../database.js';
import type { Database, JobsTable } from '../schema.js';
import type { Job, JobCount, JobRepository, JobStatus } from '../../domain/repositories.js';

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

  async claim(owner: string, nowMs: number, leaseUntil: number): Promise<Job | undefined> {
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
          .where((w) =>
            w.or([
              w.and([w('status', '=', 'queued'), w('run_at', '<=', nowMs)]),
              w.and([w('status', '=', 'running'), w('lease_expires_at', '<', nowMs), w('attempts', '<', w.ref('max_attempts'))]),
            ]),
          )
          .orderBy('run_at')
          .orderBy('id')
          .limit(1)
          .$if(this.dialect === 'postgres', (q) => q.forUpdate().skipLocked()),
      )
      .returningAll()
      .executeTakeFirst();
    return row && toJob(row);
  }

  async failAbandoned(nowMs: number, message: (attempts: number) => string): Promise<Job[]> {
    const abandoned = await this.db
      .selectFrom('jobs')
      .selectAll()
      .where('status', '=', 'running')
      .where('lease_expires_at', '<', nowMs)
      .where((w) => w('attempts', '>=', w.ref('max_attempts')))
      .execute();
    const failed: Job[] = [];
    for (const row of abandoned) {
      const text = message(row.attempts);
      // Another worker may fail the same job at the same moment; only the one whose update lands reports it.
      if (row.lease_owner !== null && (await this.fail(row.id, row.lease_owner, text, nowMs))) {
        failed.push({ ...toJob(row), status: 'failed', lastError: text, leaseOwner: null, leaseExpiresAt: null, finishedAt: nowMs });
      }
    }
    return failed;
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
