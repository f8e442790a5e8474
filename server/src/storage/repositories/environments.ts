import { sql, type Expression, type Kysely, type Selectable, type SelectQueryBuilder, type SqlBool } from 'kysely';
import { lockedTransaction } from './locking.js';
import { admitInto } from './quotas.js';
import { prepareQuery, type PreparedQuery } from '../prepared.js';
import type { Change } from '../../domain/repositories.js';
import type { Admission } from '../../domain/quotas.js';
import type { Provider } from '../../domain/cloud/providers.js';
import { ENVIRONMENT_ORDER, type Environment, type EnvironmentFilter, type EnvironmentOrder, type ProviderAccess, type ScanStatus } from '../../domain/environments/types.js';
import type { Database, EnvironmentsTable } from '../schema.js';
import type { EnvironmentRepository, Page, PageRequest, SortDirection } from '../../domain/repositories.js';

type Row = Selectable<EnvironmentsTable>;

function toEnvironment(row: Row): Environment {
  return {
    id: row.id,
    orgId: row.org_id,
    name: row.name,
    provider: row.provider as Provider,
    access: JSON.parse(row.provider_options) as ProviderAccess,
    complianceFamilies: JSON.parse(row.compliance_families) as string[],
    surveyResourceTypes: JSON.parse(row.survey_resource_types) as string[],
    surveyResourceGroups: row.survey_resource_groups === null ? null : (JSON.parse(row.survey_resource_groups) as string[]),
    remediateResourceTypes: JSON.parse(row.remediate_resource_types) as string[],
    baselineId: row.baseline_id,
    remediation: row.remediation === 1,
    scanInterval: row.scan_interval,
    scanScheduleEnabled: row.scan_schedule_enabled === 1,
    scheduleAnchorAt: row.schedule_anchor_at,
    lastScanId: row.last_scan_id,
    lastScanAt: row.last_scan_at,
    scanStatus: row.scan_status as ScanStatus | null,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function toRow(env: Environment): Omit<Row, 'created_seq' | 'version'> {
  return {
    id: env.id,
    org_id: env.orgId,
    name: env.name,
    provider: env.provider,
    provider_options: JSON.stringify(env.access),
    compliance_families: JSON.stringify(env.complianceFamilies),
    survey_resource_types: JSON.stringify(env.surveyResourceTypes),
    survey_resource_groups: env.surveyResourceGroups === null ? null : JSON.stringify(env.surveyResourceGroups),
    remediate_resource_types: JSON.stringify(env.remediateResourceTypes),
    baseline_id: env.baselineId,
    remediation: env.remediation ? 1 : 0,
    scan_interval: env.scanInterval,
    scan_schedule_enabled: env.scanScheduleEnabled ? 1 : 0,
    schedule_anchor_at: env.scheduleAnchorAt,
    last_scan_id: env.lastScanId,
    last_scan_at: env.lastScanAt,
    scan_status: env.scanStatus,
    created_at: env.createdAt,
    updated_at: env.updatedAt,
  };
}

/** `column = max(column, value)`, written so both databases understand it. */
const laterOf = (column: 'schedule_anchor_at', value: number) =>
  sql<number>`case when ${sql.ref(column)} > ${value} then ${sql.ref(column)} else ${value} end`;

/**
 * Case-insensitive substring match that means the same on both databases: `%` and `_` in the term are literal
 * characters, and SQLite (which has no default LIKE escape) is told the escape character.
 */
function contains(column: 'name' | 'id' | 'provider_options', term: string): Expression<SqlBool> {
  const pattern = `%${term.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  return sql<SqlBool>`lower(${sql.ref(column)}) like ${pattern} escape '\\'`;
}

/**
 * Records a scan starting (no `finishedAt`) or ending on its environment; an ending scan moves the schedule anchor to
 * its end. Run inside the caller's transaction. (The database draws the new versions: migration 0019.)
 */
export async function writeScanState(
  db: Kysely<Database>,
  environmentId: string,
  scan: { scanId: string; startedAt: number; status: ScanStatus; finishedAt?: number },
): Promise<void> {
  await db
    .updateTable('environments')
    .set({
      last_scan_id: scan.scanId,
      last_scan_at: scan.startedAt,
      scan_status: scan.status,
      ...(scan.finishedAt !== undefined && { schedule_anchor_at: laterOf('schedule_anchor_at', scan.finishedAt) }),
    })
    .where('id', '=', environmentId)
    .execute();
}

const DIRECTIONS = ['asc', 'desc'] as const satisfies readonly SortDirection[];
type PageArgs = { orgId: string; limit: number; offset: number };
type EnvironmentsQuery<O> = SelectQueryBuilder<Database, 'environments', O>;

const isUnfiltered = ({ within, ...terms }: EnvironmentFilter): boolean =>
  within === undefined && Object.values(terms).every((values) => values === undefined || values.length === 0);

/** `query` narrowed to the environments the filter matches. */
function matching<O>(query: EnvironmentsQuery<O>, filter: EnvironmentFilter): EnvironmentsQuery<O> {
  if (filter.within) query = query.where('id', 'in', filter.within);
  if (filter.provider?.length) query = query.where('provider', 'in', filter.provider);
  if (filter.status?.length) query = query.where('scan_status', 'in', filter.status);
  for (const term of filter.name ?? []) query = query.where(contains('name', term));
  for (const term of filter.id ?? []) query = query.where(contains('id', term));
  for (const term of filter.arn ?? []) query = query.where(contains('provider_options', term));
  for (const term of filter.text ?? []) query = query.where((eb) => eb.or([contains('name', term), contains('id', term)]));
  return query;
}

/** A page of `query` in an order, creation breaking ties. */
function inOrder<O>(query: EnvironmentsQuery<O>, order: { by: EnvironmentOrder; direction: SortDirection }, page: { limit: number; offset: number }) {
  return query.orderBy(order.by, order.direction).orderBy('created_seq', order.direction).limit(page.limit).offset(page.offset);
}

export class KyselyEnvironmentRepository implements EnvironmentRepository {
  private readonly byId;
  /** The version of one environment, read before every answer that shows it (see EnvironmentRepository.version). */
  private readonly versionById;
  /** The organization's list version, drawn anew by the database at every write of one of its environments. */
  private readonly listVersionOf;
  /** An unfiltered page in each order: what the environments list asks for unless it searches. */
  private readonly pages: Map<string, PreparedQuery<PageArgs, Row>>;

  constructor(private readonly db: Kysely<Database>) {
    this.byId = prepareQuery(db, (p: { id: string; orgId: string }) => db.selectFrom('environments').selectAll().where('id', '=', p.id).where('org_id', '=', p.orgId));
    this.versionById = prepareQuery(db, (p: { id: string; orgId: string }) =>
      db.selectFrom('environments').select('version').where('id', '=', p.id).where('org_id', '=', p.orgId),
    );
    this.listVersionOf = prepareQuery(db, (p: { orgId: string }) => db.selectFrom('environment_list_versions').select('version').where('org_id', '=', p.orgId));
    this.pages = new Map(
      ENVIRONMENT_ORDER.flatMap((by) =>
        DIRECTIONS.map((direction) => [
          `${by} ${direction}`,
          prepareQuery(db, (p: PageArgs) => inOrder(db.selectFrom('environments').selectAll().where('org_id', '=', p.orgId), { by, direction }, p)),
        ]),
      ),
    );
  }

  async list(
    orgId: string,
    page: PageRequest,
    order: { by: EnvironmentOrder; direction: SortDirection },
    filter: EnvironmentFilter,
  ): Promise<Page<Environment>> {
    if (filter.within?.length === 0) return { items: [], hasMore: false };
    // One row past the page tells whether another page exists without counting the whole table.
    const args = { orgId, limit: page.limit + 1, offset: page.offset };
    const prepared = isUnfiltered(filter) ? this.pages.get(`${order.by} ${order.direction}`) : undefined;
    const rows = prepared
      ? await prepared.rows(args)
      : await inOrder(matching(this.db.selectFrom('environments').selectAll().where('org_id', '=', orgId), filter), order, args).execute();
    return { items: rows.slice(0, page.limit).map(toEnvironment), hasMore: rows.length > page.limit };
  }

  async get(orgId: string, id: string): Promise<Environment | undefined> {
    const row = await this.byId.first({ id, orgId });
    return row && toEnvironment(row);
  }

  async version(orgId: string, id: string): Promise<number | undefined> {
    return (await this.versionById.first({ id, orgId }))?.version;
  }

  async listVersion(orgId: string): Promise<number> {
    return (await this.listVersionOf.first({ orgId }))?.version ?? 0;
  }

  async insert(env: Environment, admit?: Admission): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      const held = trx.selectFrom('environments').select((eb) => eb.fn.countAll().as('n')).where('org_id', '=', env.orgId);
      await admitInto(trx, { organization: env.orgId }, admit, held);
      await trx.insertInto('environments').values(toRow(env)).execute();
    });
  }

  async modify(orgId: string, id: string, change: Change<Environment>): Promise<Environment | undefined> {
    return lockedTransaction(this.db, async (trx, forUpdate) => {
      const row = await forUpdate(trx.selectFrom('environments').selectAll().where('id', '=', id).where('org_id', '=', orgId)).executeTakeFirst();
      if (!row) return undefined;
      const next = await change(toEnvironment(row));
      const {
        id: _id,
        org_id: _orgId,
        created_at: _createdAt,
        last_scan_id: _lastScanId,
        last_scan_at: _lastScanAt,
        scan_status: _scanStatus,
        schedule_anchor_at: anchor,
        ...changes
      } = toRow(next);
      await trx
        .updateTable('environments')
        .set({ ...changes, schedule_anchor_at: laterOf('schedule_anchor_at', anchor) })
        .where('id', '=', id)
        .where('org_id', '=', orgId)
        .execute();
      return next;
    });
  }

  async recordScan(environmentId: string, scan: { scanId: string; startedAt: number; status: ScanStatus; finishedAt?: number }): Promise<void> {
    await this.db.transaction().execute((trx) => writeScanState(trx, environmentId, scan));
  }

  async dueForScan(now: number, limit: number): Promise<Environment[]> {
    const rows = await this.db
      .selectFrom('environments')
      .selectAll()
      .where('scan_schedule_enabled', '=', 1)
      .where((eb) => eb(eb('schedule_anchor_at', '+', eb.ref('scan_interval')), '<=', now))
      .where((eb) => eb.or([eb('scan_status', 'is', null), eb('scan_status', '!=', 'IN_PROGRESS')]))
      .orderBy('schedule_anchor_at')
      .limit(limit)
      .execute();
    return rows.map(toEnvironment);
  }

  async delete(orgId: string, id: string): Promise<boolean> {
    const result = await this.db.deleteFrom('environments').where('id', '=', id).where('org_id', '=', orgId).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}
