import type { Kysely, Selectable } from 'kysely';
import type { ScanStatus } from '../../domain/environments/types.js';
import type { Database, ScansTable } from '../schema.js';
import type { ScanRecord, ScanRepository } from './types.js';

function toScan(row: Selectable<ScansTable>): ScanRecord {
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
  };
}

export class KyselyScanRepository implements ScanRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async get(orgId: string, id: string): Promise<ScanRecord | undefined> {
    const row = await this.db.selectFrom('scans').selectAll().where('id', '=', id).where('org_id', '=', orgId).executeTakeFirst();
    return row && toScan(row);
  }

  async insert(scan: ScanRecord): Promise<void> {
    await this.db
      .insertInto('scans')
      .values({
        id: scan.id,
        org_id: scan.orgId,
        environment_id: scan.environmentId,
        status: scan.status,
        message: scan.message,
        remediation_error: scan.remediationError ? 1 : 0,
        created_at: scan.createdAt,
        updated_at: scan.updatedAt,
        finished_at: scan.finishedAt,
      })
      .execute();
  }
}
