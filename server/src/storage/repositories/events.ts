import type { Kysely, Selectable } from 'kysely';
import type { ComplianceDiff, Event, EventFilter, EventType, ResourceDiff } from '../../domain/events/types.js';
import type { Database, EventsTable } from '../schema.js';
import type { EventRepository, Page, PageRequest } from '../../domain/repositories.js';

const BATCH = 400;

function toEvent(row: Selectable<EventsTable>): Event {
  const detail = JSON.parse(row.detail) as ResourceDiff | ComplianceDiff;
  const eventType = row.event_type as EventType;
  return {
    id: row.id,
    orgId: row.org_id,
    environmentId: row.environment_id,
    scanId: row.scan_id,
    eventType,
    createdAt: row.created_at,
    ...(eventType === 'COMPLIANCE' ? { complianceDiff: detail as ComplianceDiff } : { resourceDiff: detail as ResourceDiff }),
    ...(eventType === 'REMEDIATION' && { remediated: row.remediated === 1, error: row.error }),
  };
}

export class KyselyEventRepository implements EventRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async insertMany(events: readonly Event[]): Promise<void> {
    for (let i = 0; i < events.length; i += BATCH) {
      await this.db
        .insertInto('events')
        .values(
          events.slice(i, i + BATCH).map((event, j) => {
            const diff = event.resourceDiff ?? event.complianceDiff!;
            return {
              id: event.id,
              org_id: event.orgId,
              environment_id: event.environmentId,
              scan_id: event.scanId,
              event_type: event.eventType,
              resource_id: diff.resourceId,
              resource_type: diff.resourceType,
              change: event.resourceDiff?.change ?? null,
              remediated: event.remediated === undefined ? null : event.remediated ? 1 : 0,
              error: event.error ?? null,
              detail: JSON.stringify(diff),
              created_at: event.createdAt,
              seq: i + j,
            };
          }),
        )
        .execute();
    }
  }

  async ofScan(scanId: string): Promise<Event[]> {
    const rows = await this.db.selectFrom('events').selectAll().where('scan_id', '=', scanId).orderBy('seq').execute();
    return rows.map(toEvent);
  }

  async clearScan(scanId: string): Promise<void> {
    await this.db.deleteFrom('events').where('scan_id', '=', scanId).execute();
  }

  async list(orgId: string, environmentId: string, filter: EventFilter, page: PageRequest): Promise<Page<Event>> {
    let query = this.db.selectFrom('events').selectAll().where('org_id', '=', orgId).where('environment_id', '=', environmentId);
    if (filter.eventTypes?.length) query = query.where('event_type', 'in', filter.eventTypes);
    if (filter.changes?.length) query = query.where('change', 'in', filter.changes);
    if (filter.remediated?.length) {
      // Only REMEDIATION events have an outcome (1 or 0); the others store null and match no value.
      query = query.where('remediated', 'in', filter.remediated.map((value) => (value ? 1 : 0)));
    }
    if (filter.resourceTypes?.length) query = query.where('resource_type', 'in', filter.resourceTypes);
    if (filter.rangeFrom !== undefined) query = query.where('created_at', '>=', filter.rangeFrom);
    if (filter.rangeTo !== undefined) query = query.where('created_at', '<=', filter.rangeTo);
    const rows = await query
      .orderBy('created_at', 'desc')
      .orderBy('created_seq', 'desc')
      .limit(page.limit + 1)
      .offset(page.offset)
      .execute();
    return { items: rows.slice(0, page.limit).map(toEvent), hasMore: rows.length > page.limit };
  }
}
