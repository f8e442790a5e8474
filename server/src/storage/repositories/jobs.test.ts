import { it } from '@jest/globals';
import { createQueryId, Migrator, PostgresQueryCompiler, sql, SqliteQueryCompiler, type Insertable, type KyselyPlugin, type RootOperationNode } from 'kysely';
import { describeEachDatabase } from '../../../test/databases.js';
import { expect } from '../../../test/expect.js';
import { migrationsFor } from '../migrations/index.js';
import type { JobsTable } from '../schema.js';
import { KyselyJobRepository } from './jobs.js';

const NOW = 1_800_000_000_000;
const LEASE_MS = 60_000;
const QUEUED = 10_000;

const jobRow = (id: string, tenant: string, changes: Partial<Insertable<JobsTable>> = {}): Insertable<JobsTable> => ({
  id,
  kind: 'scan',
  payload: '{}',
  status: 'queued',
  attempts: 0,
  max_attempts: 2,
  run_at: NOW - QUEUED,
  lease_owner: null,
  lease_expires_at: null,
  last_error: null,
  created_at: NOW - QUEUED,
  updated_at: NOW - QUEUED,
  finished_at: null,
  dedupe_key: null,
  request_id: null,
  tenant,
  ...changes,
});

/** Keeps every statement run through it, to be explained afterwards. */
class StatementRecorder implements KyselyPlugin {
  readonly nodes: RootOperationNode[] = [];
  transformQuery: KyselyPlugin['transformQuery'] = (args) => {
    this.nodes.push(args.node);
    return args.node;
  };
  transformResult: KyselyPlugin['transformResult'] = async (args) => args.result;
}

/**
 * A claim stays cheap however many jobs wait: it reads a handful of the job table's rows through its indexes, even
 * when the tenant served longest ago has 10 000 scans queued behind its running limit and the claim must step over
 * them to another tenant's job. Shown by the plans of its statements (on PostgreSQL, with the rows they read).
 */
describeEachDatabase('claiming a job among 10 000 queued', (db) => {
  it('reads a handful of jobs through the indexes, whether a tenant’s backlog is at its running limit or not', async () => {
    const { handle } = db();
    const rows = Array.from({ length: QUEUED }, (_, i) => jobRow(`backlog-${String(i).padStart(5, '0')}`, 'org:busy', { run_at: NOW - QUEUED + i }));
    rows.push(jobRow('running-1', 'org:busy', { status: 'running', lease_owner: 'elsewhere', lease_expires_at: NOW + LEASE_MS }));
    rows.push(jobRow('running-2', 'org:busy', { status: 'running', lease_owner: 'elsewhere', lease_expires_at: NOW + LEASE_MS }));
    for (let i = 0; i < 200; i += 1) rows.push(jobRow(`done-${i}`, `org:idle-${i}`, { kind: 'notification-delivery', status: 'succeeded', finished_at: NOW }));
    rows.push(jobRow('waiting', 'org:quiet', { run_at: NOW }));
    for (let i = 0; i < rows.length; i += 500) await handle.db.insertInto('jobs').values(rows.slice(i, i + 500)).execute();
    // The busy organization was served longest ago: every claim looks at it first.
    await handle.db.insertInto('job_tenants').values([{ tenant: 'org:busy', last_claim: 1 }, { tenant: 'org:quiet', last_claim: 2 }]).execute();
    // PostgreSQL plans by its statistics, which autovacuum keeps in production; SQLite's planner has none here either.
    if (handle.dialect === 'postgres') await sql`analyze jobs`.execute(handle.db);

    const recorder = new StatementRecorder();
    const jobs = new KyselyJobRepository(handle.db.withPlugin(recorder), handle.dialect);
    const atLimit = await jobs.claim('worker', NOW, NOW + LEASE_MS, [], { scan: 2 });
    expect(atLimit?.id, 'the busy organization has two scans running: the other one’s job').toBe('waiting');
    const belowLimit = await jobs.claim('worker', NOW, NOW + LEASE_MS, [], { scan: 3 });
    expect(belowLimit?.id, 'with a slot free, the busy organization’s oldest scan').toBe('backlog-00000');

    // Compiled again by the dialect's own compiler (the claim asks row locks of PostgreSQL only).
    const compiler = handle.dialect === 'postgres' ? new PostgresQueryCompiler() : new SqliteQueryCompiler();
    const statements = recorder.nodes
      .map((node) => compiler.compileQuery(node, createQueryId()))
      .filter((statement) => /^\s*(select|update|with)/i.test(statement.sql));
    expect(statements.length).toBeGreaterThan(4);
    for (const statement of statements) {
      if (handle.dialect === 'postgres') {
        // Run again, in a transaction rolled back, counting the rows of the job table each step read.
        const plan = await handle.db.connection().execute(async (connection) => {
          await sql`begin`.execute(connection);
          try {
            const explained = { ...statement, sql: `explain (analyze, format json) ${statement.sql}`, queryId: createQueryId() };
            const result = await connection.executeQuery<{ 'QUERY PLAN': Array<{ Plan: PostgresPlan }> }>(explained);
            return result.rows[0]!['QUERY PLAN'][0]!.Plan;
          } finally {
            await sql`rollback`.execute(connection);
          }
        });
        expect(jobRowsRead(plan), `${statement.sql}\n${JSON.stringify(plan, null, 1)}`).toBeLessThan(100);
      } else {
        const explained = { ...statement, sql: `explain query plan ${statement.sql}`, queryId: createQueryId() };
        const plan = (await handle.db.executeQuery<{ detail: string }>(explained)).rows.map((row) => row.detail);
        expect(plan.filter(readsManyJobs), `${statement.sql}\n${plan.join('\n')}`).toEqual([]);
      }
    }
  });
});

describeEachDatabase('jobs queued before they named their tenant (0017)', (db) => {
  it('get their tenant from the work they stand for, or share one', async () => {
    const { handle } = db();
    const migrator = new Migrator({ db: handle.db, provider: { getMigrations: async () => migrationsFor(handle.dialect) }, ...(handle.schema && { migrationTableSchema: handle.schema }) });
    const names = Object.keys(migrationsFor(handle.dialect));
    expect((await migrator.migrateTo(names[names.indexOf('0017_job_tenants') - 1]!)).error).toBeUndefined();

    await sql`insert into conductor_dry_runs (id, command, status, account_name, import_resources, errors, plan, created_at)
      values ('dry-run-1', 'RUN', 'PENDING', 'acct-a', 0, '[]', '[]', 1)`.execute(handle.db);
    await sql`insert into conductor_processes (fid, account_name, provider, account_id, state, enforcement, locked, composition_digest, version, created_at, updated_at)
      values ('fid-1', 'acct-b', 'provider_a', '123456789012', 'RUNNING', 1, 0, 'digest', 1, 1, 1)`.execute(handle.db);
    await sql`insert into conductor_jobs (id, fid, purpose, status, ordinal, created_at) values ('process-job-1', 'fid-1', 'create', 'queued', 1, 1)`.execute(handle.db);
    const queued: Array<[string, string, unknown]> = [
      ['scan-job', 'scan', { orgId: 'org-1', scanId: 'scan-1' }],
      ['delivery-job', 'notification-delivery', { orgId: 'org-2', notificationId: 'n-1', scanId: 'scan-1' }],
      ['dry-run-job', 'conductor.dry-run', { dryRunId: 'dry-run-1' }],
      ['lost-dry-run-job', 'conductor.dry-run', { dryRunId: 'dry-run-gone' }],
      ['process-job-1', 'conductor.process', { jobId: 'process-job-1' }],
      ['other-job', 'something-else', {}],
    ];
    for (const [id, kind, payload] of queued) {
      await sql`insert into jobs (id, kind, payload, status, attempts, max_attempts, run_at, created_at, updated_at)
        values (${id}, ${kind}, ${JSON.stringify(payload)}, 'queued', 0, 3, 1, 1, 1)`.execute(handle.db);
    }

    expect((await migrator.migrateToLatest()).error).toBeUndefined();

    const rows = await handle.db.selectFrom('jobs').select(['id', 'tenant']).orderBy('id').execute();
    expect(Object.fromEntries(rows.map((row) => [row.id, row.tenant]))).toEqual({
      'delivery-job': 'org:org-2',
      'dry-run-job': 'conductor:acct-a',
      'lost-dry-run-job': 'shared',
      'other-job': 'shared',
      'process-job-1': 'conductor:acct-b',
      'scan-job': 'org:org-1',
    });
  });
});

interface PostgresPlan {
  'Relation Name'?: string;
  'Actual Rows': number;
  'Actual Loops': number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  Plans?: PostgresPlan[];
}

/** Rows of the job table a PostgreSQL plan read, kept or filtered out, in every loop of every step. */
function jobRowsRead(plan: PostgresPlan): number {
  const perLoop = plan['Actual Rows'] + (plan['Rows Removed by Filter'] ?? 0) + (plan['Rows Removed by Index Recheck'] ?? 0);
  const own = plan['Relation Name'] === 'jobs' ? perLoop * plan['Actual Loops'] : 0;
  return own + (plan.Plans ?? []).reduce((sum, child) => sum + jobRowsRead(child), 0);
}

/**
 * SQLite tells no row counts, only the plan: a step on the job table (aliased jobs, j, d, n, r in the claim's
 * statements) must go straight to its rows: by primary key, through the lease index (the takeover reads expired
 * leases only), or through the queue's index with the tenant in its bounds (the loose index scan's first step, on
 * status alone, stops at the first entry). Anything else, a table scan or the (status, run_at) index that holds
 * every tenant's due jobs, may read the whole queue.
 */
function readsManyJobs(line: string): boolean {
  const step = /^(SCAN|SEARCH) (\S+)/.exec(line);
  if (!step || ['w', 'k', 't', 'job_tenants'].includes(step[2]!) || line === 'SCAN CONSTANT ROW') return false;
  return !(
    /USING INDEX sqlite_autoindex_jobs_1 \(id=\?\)/.test(line) ||
    /USING INDEX jobs_lease_expires \(status=\? AND lease_expires_at<\?\)/.test(line) ||
    /USING COVERING INDEX jobs_tenant_queue \(status=\?( AND tenant[=>]\?.*)?\)$/.test(line)
  );
}
