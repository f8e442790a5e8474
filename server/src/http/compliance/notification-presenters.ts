import type { DeliveryAttempt, Notification } from '../../domain/notifications/types.js';
import type { Schemas } from './types.js';

/** How the API shows a notification that watches every environment. */
const ALL_ENVIRONMENTS = { '*': 'All environments' };

/** The notification as the API shows it; the webhook secret is write-only and never shown. */
export function notificationBody(notification: Notification): Schemas['Notification'] {
  return {
    notification_id: notification.id,
    name: notification.name,
    events: notification.events,
    environments: notification.allEnvironments ? [ALL_ENVIRONMENTS] : notification.environments.map((env) => ({ [env.id]: env.name })),
    emails: notification.emails,
    webhook_url: notification.webhookUrl,
    created_at: notification.createdAt,
    created_by: notification.createdBy,
    updated_at: notification.updatedAt,
    updated_by: notification.updatedBy,
    last_error: notification.lastError,
    last_delivery_at: notification.lastDeliveryAt,
  };
}

export function deliveryBody(attempt: DeliveryAttempt): Schemas['NotificationDelivery'] {
  return {
    id: attempt.id,
    notification_id: attempt.notificationId,
    delivery_id: attempt.deliveryId,
    scan_id: attempt.scanId,
    environment_id: attempt.environmentId,
    transport: attempt.transport,
    target: attempt.target,
    attempt: attempt.attempt,
    status: attempt.status,
    will_retry: attempt.willRetry,
    http_status: attempt.httpStatus,
    smtp_response: attempt.smtpResponse,
    error: attempt.error,
    attempted_at: attempt.attemptedAt,
  };
}
