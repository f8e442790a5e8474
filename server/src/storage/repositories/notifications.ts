import type { Kysely, Selectable, Transaction } from 'kysely';
import {
  byName,
  type DeliveryAttempt,
  type Notification,
  type NotificationEvent,
  type Transport,
  type WatchedEnvironment,
} from '../../domain/notifications/types.js';
import type { Database, NotificationDeliveriesTable, NotificationsTable } from '../schema.js';
import { lockedTransaction } from './locking.js';
import { admitInto } from './quotas.js';
import type { Change } from '../../domain/repositories.js';
import type { Admission } from '../../domain/quotas.js';
import type { NotificationRepository, Page, PageRequest } from '../../domain/repositories.js';

type Row = Selectable<NotificationsTable>;

function toNotification(row: Row, environments: WatchedEnvironment[]): Notification {
  return {
    id: row.id,
    orgId: row.org_id,
    name: row.name,
    events: JSON.parse(row.events) as NotificationEvent[],
    allEnvironments: row.all_environments === 1,
    environments: row.all_environments === 1 ? [] : environments,
    emails: JSON.parse(row.emails) as string[],
    webhookUrl: row.webhook_url,
    webhookSecret: row.webhook_secret,
    createdAt: row.created_at,
    createdBy: row.created_by,
    updatedAt: row.updated_at,
    updatedBy: row.updated_by,
    lastError: row.last_error,
    lastDeliveryAt: row.last_delivery_at,
  };
}

function toRow(notification: Notification): Omit<Row, 'created_seq'> {
  return {
    id: notification.id,
    org_id: notification.orgId,
    name: notification.name,
    events: JSON.stringify(notification.events),
    all_environments: notification.allEnvironments ? 1 : 0,
    emails: JSON.stringify(notification.emails),
    webhook_url: notification.webhookUrl,
    webhook_secret: notification.webhookSecret,
    created_at: notification.createdAt,
    created_by: notification.createdBy,
    updated_at: notification.updatedAt,
    updated_by: notification.updatedBy,
    last_error: notification.lastError,
    last_delivery_at: notification.lastDeliveryAt,
  };
}

function toAttempt(row: Selectable<NotificationDeliveriesTable>): DeliveryAttempt {
  return {
    id: row.id,
    notificationId: row.notification_id,
    deliveryId: row.delivery_id,
    scanId: row.scan_id,
    environmentId: row.environment_id,
    transport: row.transport as Transport,
    target: row.target,
    attempt: row.attempt,
    status: row.status as DeliveryAttempt['status'],
    willRetry: row.will_retry === 1,
    httpStatus: row.http_status,
    smtpResponse: row.smtp_response,
    error: row.error,
    attemptedAt: row.attempted_at,
  };
}

/** Whether an attempt of the delivery was recorded as succeeded. */
async function succeeded(db: Kysely<Database>, deliveryId: string): Promise<boolean> {
  const row = await db.selectFrom('notification_deliveries').select('id').where('delivery_id', '=', deliveryId).where('status', '=', 'succeeded').executeTakeFirst();
  return row !== undefined;
}

export class KyselyNotificationRepository implements NotificationRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async list(orgId: string, page: PageRequest): Promise<Page<Notification>> {
    // One row past the page tells whether another page exists without counting.
    const rows = await this.db
      .selectFrom('notifications')
      .selectAll()
      .where('org_id', '=', orgId)
      .orderBy('created_at')
      .orderBy('created_seq')
      .limit(page.limit + 1)
      .offset(page.offset)
      .execute();
    return { items: await this.withEnvironments(rows.slice(0, page.limit)), hasMore: rows.length > page.limit };
  }

  async get(orgId: string, id: string): Promise<Notification | undefined> {
    const row = await this.db.selectFrom('notifications').selectAll().where('id', '=', id).where('org_id', '=', orgId).executeTakeFirst();
    return row && (await this.withEnvironments([row]))[0];
  }

  async watching(orgId: string, environmentId: string): Promise<Notification[]> {
    const rows = await this.db
      .selectFrom('notifications')
      .selectAll()
      .where('org_id', '=', orgId)
      .where((eb) =>
        eb.or([
          eb('all_environments', '=', 1),
          eb('id', 'in', eb.selectFrom('notification_environments').select('notification_id').where('environment_id', '=', environmentId)),
        ]),
      )
      .orderBy('created_at')
      .orderBy('created_seq')
      .execute();
    return this.withEnvironments(rows);
  }

  async insert(notification: Notification, admit?: Admission): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      const held = trx.selectFrom('notifications').select((eb) => eb.fn.countAll().as('n')).where('org_id', '=', notification.orgId);
      await admitInto(trx, { organization: notification.orgId }, admit, held);
      await trx.insertInto('notifications').values(toRow(notification)).execute();
      await linkEnvironments(trx, notification);
    });
  }

  async modify(orgId: string, id: string, change: Change<Notification>): Promise<Notification | undefined> {
    return lockedTransaction(this.db, async (trx, forUpdate) => {
      const row = await forUpdate(trx.selectFrom('notifications').selectAll().where('id', '=', id).where('org_id', '=', orgId)).executeTakeFirst();
      if (!row) return undefined;
      const next = await change((await this.withEnvironments([row], trx))[0]!);
      const {
        id: _id,
        org_id: _orgId,
        created_at: _createdAt,
        created_by: _createdBy,
        last_error: _lastError,
        last_delivery_at: _lastDeliveryAt,
        ...changes
      } = toRow(next);
      await trx.updateTable('notifications').set(changes).where('id', '=', id).where('org_id', '=', orgId).execute();
      await trx.deleteFrom('notification_environments').where('notification_id', '=', id).execute();
      await linkEnvironments(trx, next);
      return next;
    });
  }

  async delete(orgId: string, id: string): Promise<boolean> {
    const result = await this.db.deleteFrom('notifications').where('id', '=', id).where('org_id', '=', orgId).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async recordAttempt(attempt: DeliveryAttempt, lastError: string | null | undefined): Promise<boolean> {
    return lockedTransaction(this.db, async (trx, forUpdate) => {
      // A delivery succeeds once. A worker whose lease ran out while it was sending, or the one that retried after
      // a worker was killed between recording and finishing the job, may also have sent it: only the first success
      // is recorded. The notification's row is locked first, so two such workers take turns here.
      const notification = await forUpdate(trx.selectFrom('notifications').select('id').where('id', '=', attempt.notificationId)).executeTakeFirst();
      if (!notification) return false;
      if (attempt.status === 'succeeded' && (await succeeded(trx, attempt.deliveryId))) return false;
      const inserted = await trx
        .insertInto('notification_deliveries')
        .values({
          id: attempt.id,
          notification_id: attempt.notificationId,
          delivery_id: attempt.deliveryId,
          scan_id: attempt.scanId,
          environment_id: attempt.environmentId,
          transport: attempt.transport,
          target: attempt.target,
          attempt: attempt.attempt,
          status: attempt.status,
          will_retry: attempt.willRetry ? 1 : 0,
          http_status: attempt.httpStatus,
          smtp_response: attempt.smtpResponse,
          error: attempt.error,
          attempted_at: attempt.attemptedAt,
        })
        .onConflict((oc) => oc.columns(['delivery_id', 'attempt']).doNothing())
        .executeTakeFirst();
      if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) return false;
      await trx
        .updateTable('notifications')
        .set({ last_delivery_at: attempt.attemptedAt, ...(lastError !== undefined && { last_error: lastError }) })
        .where('id', '=', attempt.notificationId)
        .execute();
      return true;
    });
  }

  deliverySucceeded(deliveryId: string): Promise<boolean> {
    return succeeded(this.db, deliveryId);
  }

  async listAttempts(notificationId: string, page: PageRequest): Promise<Page<DeliveryAttempt>> {
    const rows = await this.db
      .selectFrom('notification_deliveries')
      .selectAll()
      .where('notification_id', '=', notificationId)
      .orderBy('attempted_at', 'desc')
      .orderBy('attempt', 'desc')
      .orderBy('id', 'desc')
      .limit(page.limit + 1)
      .offset(page.offset)
      .execute();
    return { items: rows.slice(0, page.limit).map(toAttempt), hasMore: rows.length > page.limit };
  }

  /** Adds the watched environments, with their names, in one query for all the rows. */
  private async withEnvironments(rows: Row[], db: Kysely<Database> = this.db): Promise<Notification[]> {
    const named = rows.filter((r) => r.all_environments !== 1).map((r) => r.id);
    const links =
      named.length === 0
        ? []
        : await db
            .selectFrom('notification_environments as ne')
            .innerJoin('environments as e', 'e.id', 'ne.environment_id')
            .select(['ne.notification_id', 'e.id', 'e.name'])
            .where('ne.notification_id', 'in', named)
            .execute();
    const byNotification = new Map<string, WatchedEnvironment[]>();
    for (const link of links) {
      byNotification.set(link.notification_id, [...(byNotification.get(link.notification_id) ?? []), { id: link.id, name: link.name }]);
    }
    return rows.map((row) => toNotification(row, (byNotification.get(row.id) ?? []).sort(byName)));
  }
}

async function linkEnvironments(trx: Transaction<Database>, notification: Notification): Promise<void> {
  if (notification.allEnvironments || notification.environments.length === 0) return;
  await trx
    .insertInto('notification_environments')
    .values(notification.environments.map((env) => ({ notification_id: notification.id, environment_id: env.id })))
    .execute();
}
