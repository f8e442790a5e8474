import type { EventType } from '../events/types.js';

/** The event kinds a notification can watch, as users write them; each names one EventType. */
export const NOTIFICATION_EVENTS = ['compliance', 'drift', 'remediation'] as const;
export type NotificationEvent = (typeof NOTIFICATION_EVENTS)[number];

export const eventTypeOf = (event: NotificationEvent): EventType => event.toUpperCase() as EventType;

export type Transport = 'webhook' | 'email';

export interface WatchedEnvironment {
  id: string;
  name: string;
}

/** The order watched environments are listed in: by name, then id, the same in every database. */
export function byName(a: WatchedEnvironment, b: WatchedEnvironment): number {
  if (a.name !== b.name) return a.name < b.name ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

export interface Notification {
  id: string;
  orgId: string;
  name: string;
  events: NotificationEvent[];
  /** Every environment of the organization, including later ones; `environments` is then empty. */
  allEnvironments: boolean;
  /** The environments watched, with their current names; deleted environments drop out. */
  environments: WatchedEnvironment[];
  emails: string[];
  webhookUrl: string | null;
  /** HMAC-SHA256 key of webhook signatures; set exactly when `webhookUrl` is. */
  webhookSecret: string | null;
  createdAt: number;
  createdBy: string;
  updatedAt: number;
  updatedBy: string;
  /** Error of the latest delivery that gave up, prefixed with its transport; cleared by a later success. */
  lastError: string | null;
  lastDeliveryAt: number | null;
}

/** The transports a notification delivers by. */
export function transportsOf(notification: Notification): Transport[] {
  return [...(notification.webhookUrl !== null ? (['webhook'] as const) : []), ...(notification.emails.length > 0 ? (['email'] as const) : [])];
}

/** One attempt to deliver a notification by one transport. */
export interface DeliveryAttempt {
  id: string;
  notificationId: string;
  /** Shared by the attempts of one delivery. */
  deliveryId: string;
  scanId: string;
  environmentId: string;
  transport: Transport;
  target: string;
  attempt: number;
  status: 'succeeded' | 'failed';
  willRetry: boolean;
  httpStatus: number | null;
  smtpResponse: string | null;
  error: string | null;
  attemptedAt: number;
}

/**
 * Create and replace commands carry the fields as users send them, so that the rules answer in those names.
 * PUT replaces every field, so both commands have the same shape.
 */
export interface NotificationInput {
  name: string;
  events: string[];
  environments: string[];
  emails?: string[];
  webhook_url?: string;
  webhook_secret?: string;
}
