import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../database.js';

/**
 * Every job names the party it works for, its tenant (`org:<orgId>` for compliance work, `conductor:<account>` for
 * the conductor's), and the queue serves tenants in turn instead of first in, first out, so that one tenant's
 * backlog no longer holds every other tenant's work back.
 *
 * - `jobs.tenant`, with an index in the order the claim reads it: the tenants with queued jobs (status, tenant),
 *   the kinds each has queued (…, kind), the first due job of each kind (…, run_at, id), and, for the kinds whose
 *   running jobs are capped per tenant, the tenant's running jobs of that kind.
 * - `job_tenants`: when each tenant was last served (the claim's number), the tenant served longest ago going
 *   first; on PostgreSQL, its row is what a claim locks, so that two server processes never claim for one tenant at
 *   once past its cap.
 *
 * Existing jobs get their tenant from what they work on: scans and notification deliveries carry their
 * organization in their payload; a dry-run's account is on the dry-run, a process job's on its process. Any other
 * job shares the tenant `shared`.
 */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  const postgres = dialect === 'postgres';
  await db.schema.alterTable('jobs').addColumn('tenant', 'text', (c) => c.notNull().defaultTo('shared')).execute();
  const orgIdOfPayload = postgres ? sql`(payload::json ->> 'orgId')` : sql`json_extract(payload, '$.orgId')`;
  const dryRunIdOfPayload = postgres ? sql`(payload::json ->> 'dryRunId')` : sql`json_extract(payload, '$.dryRunId')`;
  await sql`update jobs set tenant = 'org:' || ${orgIdOfPayload}
    where kind in ('scan', 'notification-delivery') and ${orgIdOfPayload} is not null`.execute(db);
  await sql`update jobs set tenant = coalesce(
      (select 'conductor:' || d.account_name from conductor_dry_runs d where d.id = ${dryRunIdOfPayload}), tenant)
    where kind = 'conductor.dry-run'`.execute(db);
  // A process job's queue job has the process job's id.
  await sql`update jobs set tenant = coalesce(
      (select 'conductor:' || p.account_name from conductor_jobs j join conductor_processes p on p.fid = j.fid where j.id = jobs.id), tenant)
    where kind = 'conductor.process'`.execute(db);
  await db.schema.createIndex('jobs_tenant_queue').on('jobs').columns(['status', 'tenant', 'kind', 'run_at', 'id']).execute();

  await db.schema
    .createTable('job_tenants')
    .addColumn('tenant', 'text', (c) => c.primaryKey())
    // The number of the claim that last served the tenant; 0 for one never served.
    .addColumn('last_claim', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('job_tenants_last_claim').on('job_tenants').column('last_claim').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('job_tenants').execute();
  await db.schema.dropIndex('jobs_tenant_queue').execute();
  await db.schema.alterTable('jobs').dropColumn('tenant').execute();
}
