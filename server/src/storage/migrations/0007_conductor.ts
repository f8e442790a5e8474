import type { Kysely } from 'kysely';

/**
 * The conductor: the accounts it manages, processes with their resources, the jobs that act on the cloud for
 * them, the cloud operations those jobs performed, every change to a process, and dry-run requests.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('conductor_accounts')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('conductor_processes')
    .addColumn('fid', 'text', (c) => c.primaryKey())
    // Unique among processes that hold one; cleared when a process is killed or released, so it can be reused.
    .addColumn('alias', 'text', (c) => c.unique())
    // The account as it was when the process was created: a killed process outlives its account.
    .addColumn('account_name', 'text', (c) => c.notNull())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('enforcement', 'integer', (c) => c.notNull())
    .addColumn('locked', 'integer', (c) => c.notNull())
    .addColumn('composition_digest', 'text', (c) => c.notNull())
    // Bumped by every change; a write based on an older version is refused, so concurrent changes never mix.
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('released_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('conductor_processes_account').on('conductor_processes').columns(['account_name', 'state']).execute();
  await db.schema.createIndex('conductor_processes_state').on('conductor_processes').columns(['state', 'enforcement']).execute();

  await db.schema
    .createTable('conductor_process_resources')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('fid', 'text', (c) => c.notNull().references('conductor_processes.fid').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('region', 'text')
    .addColumn('resource_id', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    // The desired state, JSON.
    .addColumn('properties', 'text', (c) => c.notNull())
    .addColumn('tags', 'text', (c) => c.notNull())
    .addColumn('origin', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    // 1: no longer in the composition; the next job deletes its cloud resource and then the row.
    .addColumn('retired', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('conductor_process_resources_fid').on('conductor_process_resources').columns(['fid', 'position']).execute();

  await db.schema
    .createTable('conductor_jobs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('fid', 'text', (c) => c.notNull().references('conductor_processes.fid').onDelete('cascade'))
    .addColumn('purpose', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    // The queue's job that runs it; null until queued (a process that died in between leaves it for the enforcer).
    .addColumn('queue_job_id', 'text')
    // The process version that started it: orders a process's jobs.
    .addColumn('ordinal', 'integer', (c) => c.notNull())
    .addColumn('message', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('finished_at', 'bigint')
    .execute();
  await db.schema.createIndex('conductor_jobs_fid').on('conductor_jobs').columns(['fid', 'ordinal']).execute();
  await db.schema.createIndex('conductor_jobs_status').on('conductor_jobs').column('status').execute();

  await db.schema
    .createTable('conductor_operations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('fid', 'text', (c) => c.notNull().references('conductor_processes.fid').onDelete('cascade'))
    .addColumn('job_id', 'text', (c) => c.notNull())
    .addColumn('job_ordinal', 'integer', (c) => c.notNull())
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('at', 'bigint', (c) => c.notNull())
    .addColumn('operation', 'text', (c) => c.notNull())
    .addColumn('resource_name', 'text', (c) => c.notNull())
    .addColumn('resource_type', 'text', (c) => c.notNull())
    .addColumn('resource_id', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('message', 'text')
    .execute();
  await db.schema.createIndex('conductor_operations_fid').on('conductor_operations').columns(['fid', 'at']).execute();
  await db.schema.createIndex('conductor_operations_job').on('conductor_operations').columns(['job_id', 'seq']).execute();

  await db.schema
    .createTable('conductor_history')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('fid', 'text', (c) => c.notNull().references('conductor_processes.fid').onDelete('cascade'))
    // The process version the change produced, then the entry's place within that change.
    .addColumn('ordinal', 'integer', (c) => c.notNull())
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('at', 'bigint', (c) => c.notNull())
    .addColumn('event', 'text', (c) => c.notNull())
    .addColumn('job_id', 'text')
    .addColumn('actor', 'text', (c) => c.notNull())
    .addColumn('details', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('conductor_history_fid').on('conductor_history').columns(['fid', 'ordinal', 'seq']).execute();

  await db.schema
    .createTable('conductor_dry_runs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('command', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('process_fid', 'text')
    .addColumn('account_name', 'text')
    .addColumn('import_resources', 'integer', (c) => c.notNull())
    // composition.yaml as uploaded; read by the dry-run's job, which reports its problems.
    .addColumn('composition_text', 'text')
    .addColumn('errors', 'text', (c) => c.notNull())
    .addColumn('plan', 'text', (c) => c.notNull())
    .addColumn('job_id', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('finished_at', 'bigint')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    'conductor_dry_runs',
    'conductor_history',
    'conductor_operations',
    'conductor_jobs',
    'conductor_process_resources',
    'conductor_processes',
    'conductor_accounts',
  ]) {
    await db.schema.dropTable(table).execute();
  }
}
