import type { NotificationInput } from '../../domain/notifications/types.js';
import type { HandlerContext } from '../context.js';
import { pageBody } from '../paging.js';
import { deliveryBody, notificationBody } from './notification-presenters.js';
import type { Req, Res } from './types.js';

export async function listNotifications(req: Req<'listNotifications'>, { services }: HandlerContext): Res<'listNotifications'> {
  const { offset = 0, max_items = 100 } = req.query;
  const page = await services.notifications.list(req.principal.orgId, { offset, limit: max_items }, req.principal.grants.environmentsAllowing('read'));
  return { status: 200, body: pageBody(page, offset, notificationBody) };
}

export async function createNotification(req: Req<'createNotification'>, { services }: HandlerContext): Res<'createNotification'> {
  const { orgId, clientId } = req.principal;
  const notification = await services.notifications.create(orgId, clientId, req.body as NotificationInput);
  return { status: 201, body: notificationBody(notification) };
}

export async function updateNotification(req: Req<'updateNotification'>, { services }: HandlerContext): Res<'updateNotification'> {
  const { orgId, clientId } = req.principal;
  const notification = await services.notifications.update(orgId, req.path.notification_id, clientId, req.body as NotificationInput);
  return { status: 200, body: notificationBody(notification) };
}

export async function deleteNotification(req: Req<'deleteNotification'>, { services }: HandlerContext): Res<'deleteNotification'> {
  await services.notifications.delete(req.principal.orgId, req.path.notification_id);
  return { status: 204, body: undefined };
}

export async function listNotificationDeliveries(
  req: Req<'listNotificationDeliveries'>,
  { services }: HandlerContext,
): Res<'listNotificationDeliveries'> {
  const { offset = 0, max_items = 100 } = req.query;
  const page = await services.notifications.listDeliveries(req.principal.orgId, req.path.notification_id, { offset, limit: max_items });
  return { status: 200, body: pageBody(page, offset, deliveryBody) };
}
