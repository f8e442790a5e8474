import type { Kysely, Selectable } from 'kysely';
import type { ScanStatus } from '../../domain/environments/types.js';
import type { ResourceSummary, ResourceTypeError, Scan } from '../../domain/scans/types.js';
import type { Database, ScansTable } from '../schema.js';
import type { Job, Page, PageRequest, ScanFilter, ScanRepository, SortDirection } from '../../domain/repositories.js';
import { writeScanState } from './environments.js';
import { jobRow } from './jobs.js';
import { prepareQuery } from '../prepared.js';

const parse = <T>(text: string | null, fallback: T): T => (text === null ? fallback : (JSON.parse(text) as T));

function toScan(row: Selectable<ScansTable>): Scan {
  return {
    id: row.id,
    orgId: row.org_id,
    environmentId: row.environment_id,
    status: row.status as ScanStatus,
    message: row.message,
    remediationError: row.remediation_error === 1,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    finishedAt: row.finished_at,
    summary: parse<ResourceSummary | null>(row.summary, null),
    resourceTypeErrors: parse<ResourceTypeError[]>(row.resource_type_errors, []),
    families: parse<string[]>(row.families, []),
    jobId: row.job_id,
  };
}

function toRow(scan: Scan): Omit<Selectable<ScansTable>, 'created_seq'> {
  return {
    id: scan.id,
    org_id: scan.orgId,
    environment_id: scan.environmentId,
    status: scan.status,
    message: scan.message,
    remediation_error: scan.remediationError ? 1 : 0,
    created_at: scan.createdAt,
    updated_at: scan.updatedAt,
    finished_at: scan.finishedAt,
    summary: scan.summary === null ? null : JSON.stringify(scan.summary),
    resource_type_errors: JSON.stringify(scan.resourceTypeErrors),
    families: JSON.stringify(scan.families),
    job_id: scan.jobId,
  };
}

/** Unique-constraint violations on SQLite and PostgreSQL. */
const isUniqueViolation = (error: unknown): boolean =>
  /UNIQUE constraint failed|duplicate key value/.test(String((error as Error)?.message ?? error));

export class KyselyScanRepository implements ScanRepository {
  private readonly byId;
  /** The version of the scan's environment (see ScanRepository.environmentVersion), read before every answer that shows the scan. */
  private readonly environmentVersionById;

  constructor(private readonly db: Kysely<Database>) {
    this.byId = prepareQuery(db, (p: { id: string; orgId: string }) => db.selectFrom('scans').selectAll().where('id', '=', p.id).where('org_id', '=', p.orgId));
    this.environmentVersionById = prepareQuery(db, (p: { id: string; orgId: string }) =>
      db
        .selectFrom('scans')
        .innerJoin('environments', 'environments.id', 'scans.environment_id')
        .select('environments.version')
        .where('scans.id', '=', p.id)
        .where('scans.org_id', '=', p.orgId),
    );
  }

  async get(orgId: string, id: string): Promise<Scan | undefined> {
    const row = await this.byId.first({ id, orgId });
    return row && toScan(row);
  }

  async environmentVersion(orgId: string, id: string): Promise<number | undefined> {
    return (await this.environmentVersionById.first({ id, orgId }))?.version;
  }

  async insert(scan: Scan, job: Job): Promise<boolean> {
    try {
      await this.db.transaction().execute(async (trx) => {
        await trx.insertInto('scans').values(toRow(scan)).execute();
        await writeScanState(trx, scan.environmentId, { scanId: scan.id, startedAt: scan.createdAt, status: scan.status });
        await trx.insertInto('jobs').values(jobRow(job)).execute();
      });
      return true;
    } catch (error) {
      if (isUniqueViolation(error)) return false;
      throw error;
    }
  }

  async update(scan: Scan): Promise<void> {
    const { id, org_id: _orgId, ...changes } = toRow(scan);
    await this.db.updateTable('scans').set(changes).where('id', '=', id).execute();
  }

  async list(orgId: string, environmentId: string, filter: ScanFilter, page: PageRequest, direction: SortDirection): Promise<Page<Scan>> {
    let query = this.db.selectFrom('scans').selectAll().where('org_id', '=', orgId).where('environment_id', '=', environmentId);
    if (filter.statuses?.length) query = query.where('status', 'in', filter.statuses);
    if (filter.rangeFrom !== undefined) query = query.where('created_at', '>=', filter.rangeFrom);
    if (filter.rangeTo !== undefined) query = query.where('created_at', '<=', filter.rangeTo);
    const rows = await query.orderBy('created_at', direction).orderBy('created_seq', direction).limit(page.limit + 1).offset(page.offset).execute();
    return { items: rows.slice(0, page.limit).map(toScan), hasMore: rows.length > page.limit };
  }

  async previousSuccess(orgId: string, environmentId: string, notAfter: number, except?: string): Promise<Scan | undefined> {
    // The organization first, as the indexes on scans begin with it.
    let query = this.db
      .selectFrom('scans')
      .selectAll()
      .where('org_id', '=', orgId)
      .where('environment_id', '=', environmentId)
      .where('status', '=', 'SUCCESS')
      .where('created_at', '<=', notAfter);
    if (except !== undefined) query = query.where('id', '!=', except);
    const row = await query.orderBy('created_at', 'desc').orderBy('created_seq', 'desc').limit(1).executeTakeFirst();
    return row && toScan(row);
  }

  async inProgress(): Promise<Scan[]> {
    const rows = await this.db.selectFrom('scans').selectAll().where('status', '=', 'IN_PROGRESS').execute();
    return rows.map(toScan);
  }
}
