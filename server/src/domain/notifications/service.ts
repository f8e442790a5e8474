import { pageOfCovered } from '../access/covered-pages.js';
import type { Clock } from '../clock.js';
import type { Environment } from '../environments/types.js';
import { AppError } from '../errors.js';
import type { Event, EventType } from '../events/types.js';
import { newId } from '../ids.js';
import { DEFAULT_QUOTAS, upTo } from '../quotas.js';
import type { JobQueue } from '../jobs/queue.js';
import { organizationTenant } from '../jobs/tenants.js';
import { silentLog, type Log } from '../log.js';
import type { Scan } from '../scans/types.js';
import type {
  EnvironmentRepository,
  EventRepository,
  NotificationRepository,
  Page,
  PageRequest,
} from '../repositories.js';
import { checkEmails, checkEvents, checkName, checkWebhookSecret, checkWebhookUrl, parseEnvironments } from './rules.js';
import type { EmailMessage, EmailSender, SendOutcome, WebhookSender } from './transports.js';
import {
  byName,
  eventTypeOf,
  transportsOf,
  type DeliveryAttempt,
  type Notification,
  type NotificationInput,
  type Transport,
  type WatchedEnvironment,
} from './types.js';

export const NOTIFICATION_DELIVERY_JOB = 'notification-delivery';
/** Attempts per delivery, the first included; the job queue spaces them with exponential backoff. */
export const DELIVERY_ATTEMPTS = 5;

/** The order event kinds are named in, in subjects, bodies and webhook payloads. */
const EVENT_ORDER: readonly EventType[] = ['DRIFT', 'REMEDIATION', 'COMPLIANCE'];
const EVENTS_PAGE = 1000;

/**
 * What a delivery job carries: which scan's events, for which notification, by which transport. The events
 * themselves are read when the delivery is made, so a job stays small however many events the scan recorded.
 */
export interface DeliveryJob {
  orgId: string;
  notificationId: string;
  transport: Transport;
  scanId: string;
  environmentId: string;
  scanCreatedAt: number;
  scanFinishedAt: number;
  /** The kinds of events to deliver (those the notification watches and the scan recorded), with their counts. */
  counts: Partial<Record<EventType, number>>;
}

/** The job as the queue claimed it: which attempt this is, and how many are allowed. */
export interface DeliveryRun {
  id: string;
  attempts: number;
  maxAttempts: number;
  /** The request that started the scan, if one did (a scheduled scan has none). */
  requestId: string | null;
}

export interface NotificationServiceDeps {
  notifications: NotificationRepository;
  environments: EnvironmentRepository;
  events: EventRepository;
  jobs: JobQueue;
  clock: Clock;
  webhook: WebhookSender;
  /** Accept webhook URLs on loopback, private and link-local addresses (WEBHOOK_ALLOW_PRIVATE=true). */
  webhookAllowPrivate?: boolean;
  email: EmailSender;
  /** An event in its public form, as GET /events shows it: webhook bodies carry events in that form. */
  eventDocument: (event: Event) => unknown;
  log?: Log;
  /** Notifications one organization may have (MAX_NOTIFICATIONS_PER_ORG); DEFAULT_QUOTAS.notifications unless set. */
  quota?: number;
}

/** Notifications: their settings, which scans trigger them, and the delivery of each by webhook and email. */
export class NotificationService {
  constructor(private readonly deps: NotificationServiceDeps) {}

  /** A page of the organization's notifications; with `covered`, only those its environments cover (pageOfCovered). */
  list(orgId: string, page: PageRequest, covered: 'all' | readonly string[] = 'all'): Promise<Page<Notification>> {
    return pageOfCovered((part) => this.deps.notifications.list(orgId, part), page, covered);
  }

  async get(orgId: string, id: string): Promise<Notification> {
    const notification = await this.deps.notifications.get(orgId, id);
    if (!notification) throw AppError.notFound('notification', id);
    return notification;
  }

  async create(orgId: string, principal: string, input: NotificationInput): Promise<Notification> {
    const now = this.deps.clock.nowSeconds();
    const notification: Notification = {
      id: newId(),
      orgId,
      ...(await this.settings(orgId, input)).withSecret(null),
      createdAt: now,
      createdBy: principal,
      updatedAt: now,
      updatedBy: principal,
      lastError: null,
      lastDeliveryAt: null,
    };
    await this.deps.notifications.insert(notification, upTo('notifications', this.deps.quota ?? DEFAULT_QUOTAS.notifications, 'this organization'));
    return notification;
  }

  /** PUT semantics: every setting is replaced, except an absent webhook_secret, which keeps the stored one. */
  async update(orgId: string, id: string, principal: string, input: NotificationInput): Promise<Notification> {
    await this.get(orgId, id);
    // Checked before the notification is locked: checking the watched environments reads them.
    const settings = await this.settings(orgId, input);
    const now = this.deps.clock.nowSeconds();
    const next = await this.deps.notifications.modify(orgId, id, (current) => ({
      ...current,
      ...settings.withSecret(current.webhookSecret),
      updatedAt: now,
      updatedBy: principal,
    }));
    if (!next) throw AppError.notFound('notification', id);
    return next;
  }

  async delete(orgId: string, id: string): Promise<void> {
    if (!(await this.deps.notifications.delete(orgId, id))) throw AppError.notFound('notification', id);
  }

  async listDeliveries(orgId: string, id: string, page: PageRequest): Promise<Page<DeliveryAttempt>> {
    await this.get(orgId, id);
    return this.deps.notifications.listAttempts(id, page);
  }

  /**
   * Called after every successful scan: queues one delivery per transport of each notification that watches the
   * scan's environment and one of the kinds of events the scan recorded.
   */
  async dispatchForScan(scan: Scan, events: readonly Event[]): Promise<void> {
    const recorded = new Map<EventType, number>();
    for (const event of events) recorded.set(event.eventType, (recorded.get(event.eventType) ?? 0) + 1);
    if (recorded.size === 0) return;
    // Deliveries carry the id of the request that started the scan, read once from the scan's job if needed.
    let requestId: Promise<string | null> | undefined;
    const requestIdOfScan = () => (requestId ??= scan.jobId === null ? Promise.resolve(null) : this.deps.jobs.get(scan.jobId).then((job) => job?.requestId ?? null));
    try {
      for (const notification of await this.deps.notifications.watching(scan.orgId, scan.environmentId)) {
        const watched = new Set(notification.events.map(eventTypeOf));
        const kinds = EVENT_ORDER.filter((type) => watched.has(type) && recorded.has(type));
        if (kinds.length === 0) continue;
        const job: Omit<DeliveryJob, 'transport'> = {
          orgId: scan.orgId,
          notificationId: notification.id,
          scanId: scan.id,
          environmentId: scan.environmentId,
          scanCreatedAt: scan.createdAt,
          scanFinishedAt: scan.finishedAt ?? this.deps.clock.nowSeconds(),
          counts: Object.fromEntries(kinds.map((type) => [type, recorded.get(type)!])),
        };
        for (const transport of transportsOf(notification)) {
          // Keyed, so that dispatching a scan again (its job was retried after a crash) queues nothing twice.
          await this.deps.jobs.enqueue(NOTIFICATION_DELIVERY_JOB, { ...job, transport } satisfies DeliveryJob, {
            maxAttempts: DELIVERY_ATTEMPTS,
            dedupeKey: `notify:${notification.id}:${scan.id}:${transport}`,
            requestId: await requestIdOfScan(),
            tenant: organizationTenant(scan.orgId),
          });
        }
      }
    } catch (error) {
      // The scan has already been recorded as successful; failing to queue its notifications must not turn it
      // into an ERROR scan. The failure is logged for the operator.
      (this.deps.log ?? silentLog).error({ err: error, scanId: scan.id }, 'the notifications of a scan could not be queued');
    }
  }

  /**
   * Makes one attempt of a delivery and records it. A failed attempt throws, so that the job queue retries it
   * after a backoff; the last failed attempt also leaves its error on the notification.
   */
  async deliver(job: DeliveryJob, run: DeliveryRun, reached: (point: string) => void = () => {}, signal?: AbortSignal): Promise<void> {
    const notification = await this.deps.notifications.get(job.orgId, job.notificationId);
    // Deleted since: its deliveries are dropped. An environment is deleted with its scans and their events.
    if (!notification) return;
    const env = await this.deps.environments.get(job.orgId, job.environmentId);
    if (!env) return;
    // A retry of a delivery whose worker was killed (or lost its lease) after the send was recorded: sent already.
    // Only a worker stopped between the send and its record still sends twice; receivers dedupe on the delivery id.
    if (await this.deps.notifications.deliverySucceeded(run.id)) return;
    // The worker stops: nothing is sent, and the delivery goes to the worker that takes the job up next.
    signal?.throwIfAborted();

    let target: string;
    let outcome: SendOutcome;
    if (job.transport === 'webhook') {
      // The webhook was removed since: nothing to deliver to.
      if (notification.webhookUrl === null || notification.webhookSecret === null) return;
      target = notification.webhookUrl;
      outcome = await this.deps.webhook.send({
        url: notification.webhookUrl,
        secret: notification.webhookSecret,
        body: await this.webhookBody(job),
        deliveryId: run.id,
        requestId: run.requestId ?? run.id,
      });
    } else {
      if (notification.emails.length === 0) return;
      target = notification.emails.join(', ');
      outcome = await this.deps.email.send(emailMessage(notification, env, job));
    }

    // Sent, not yet recorded: the one place a crash makes a delivery go out twice (see above).
    reached('sent');
    const last = run.attempts >= run.maxAttempts;
    await this.recordAttempt(job, run, notification.id, target, {
      ok: outcome.ok,
      willRetry: !outcome.ok && !last,
      httpStatus: outcome.httpStatus ?? null,
      smtpResponse: outcome.smtpResponse ?? null,
      error: outcome.ok ? null : (outcome.error ?? 'failed'),
      notificationError: outcome.ok ? null : last ? `${job.transport}: ${outcome.error} (gave up after ${run.attempts} attempts)` : undefined,
    });
    if (!outcome.ok) throw new Error(`${job.transport} delivery failed: ${outcome.error}`);
  }

  /**
   * The queue gave the delivery up (its worker vanished in every attempt, or the last attempt failed before it
   * recorded anything): the attempt is recorded failed with the reason, not to be retried, and the reason is left
   * on the notification, as after a last failed send. A last attempt already recorded is left as it is.
   */
  async giveUp(job: DeliveryJob, run: DeliveryRun, reason: string): Promise<void> {
    const notification = await this.deps.notifications.get(job.orgId, job.notificationId);
    // Deleted since (the notification, or the environment with its scans), or its transport removed: there was
    // nothing left to deliver.
    if (!notification || !(await this.deps.environments.get(job.orgId, job.environmentId))) return;
    const target = job.transport === 'webhook' ? notification.webhookUrl : notification.emails.length > 0 ? notification.emails.join(', ') : null;
    if (target === null) return;
    if (await this.deps.notifications.deliverySucceeded(run.id)) return;
    await this.recordAttempt(job, run, notification.id, target, {
      ok: false,
      willRetry: false,
      httpStatus: null,
      smtpResponse: null,
      error: reason,
      notificationError: `${job.transport}: ${reason} (gave up after ${run.attempts} attempts)`,
    });
  }

  /**
   * Records one attempt of a delivery and, with `notificationError`, what the notification shows of its last
   * delivery (null clears it; undefined leaves it as it is).
   */
  private recordAttempt(
    job: DeliveryJob,
    run: DeliveryRun,
    notificationId: string,
    target: string,
    attempt: { ok: boolean; willRetry: boolean; httpStatus: number | null; smtpResponse: string | null; error: string | null; notificationError: string | null | undefined },
  ): Promise<boolean> {
    return this.deps.notifications.recordAttempt(
      {
        id: newId(),
        notificationId,
        deliveryId: run.id,
        scanId: job.scanId,
        environmentId: job.environmentId,
        transport: job.transport,
        target,
        attempt: run.attempts,
        status: attempt.ok ? 'succeeded' : 'failed',
        willRetry: attempt.willRetry,
        httpStatus: attempt.httpStatus,
        smtpResponse: attempt.smtpResponse,
        error: attempt.error,
        attemptedAt: this.deps.clock.nowSeconds(),
      },
      attempt.notificationError,
    );
  }

  /**
   * The settings a create or a PUT asks for, checked. The webhook secret depends on the stored one (an absent
   * webhook_secret keeps it), so `withSecret` completes them once that is known.
   */
  private async settings(orgId: string, input: NotificationInput) {
    const watched = parseEnvironments(input.environments);
    const environments: WatchedEnvironment[] = [];
    if (!watched.all) {
      for (const [i, id] of watched.ids.entries()) {
        const env = await this.deps.environments.get(orgId, id);
        if (!env) throw AppError.invalid(`environments[${i}]`, `environment ${id} does not exist in this organization`);
        environments.push({ id: env.id, name: env.name });
      }
    }
    const emails = checkEmails(input.emails ?? []);
    const webhookUrl = input.webhook_url === undefined ? null : checkWebhookUrl(input.webhook_url, this.deps.webhookAllowPrivate ?? false);
    if (emails.length === 0 && webhookUrl === null) {
      throw AppError.missing('emails', 'or webhook_url is required: a notification needs at least one recipient or a webhook');
    }
    const sentSecret = webhookUrl !== null && input.webhook_secret !== undefined ? checkWebhookSecret(input.webhook_secret) : null;
    const fields = {
      name: checkName(input.name),
      events: checkEvents(input.events),
      allEnvironments: watched.all,
      environments: environments.sort(byName),
      emails,
      webhookUrl,
    };
    return {
      withSecret(storedSecret: string | null) {
        if (webhookUrl === null) return { ...fields, webhookSecret: null };
        const webhookSecret = sentSecret ?? storedSecret;
        if (webhookSecret === null) throw AppError.missing('webhook_secret', 'is required with webhook_url: it keys the signature of every delivery');
        return { ...fields, webhookSecret };
      },
    };
  }

  /** `{notification_id, environment_id, scan_id, events}`: the scan's events of the delivered kinds, in recorded order. */
  private async webhookBody(job: DeliveryJob): Promise<string> {
    const eventTypes = Object.keys(job.counts);
    const events: Event[] = [];
    // Scans of one environment never overlap, so the scan's events are those of its time span; the span may
    // also hold a neighbouring scan's events at its edges, hence the check of the scan id.
    for (let offset = 0; ; offset += EVENTS_PAGE) {
      const page = await this.deps.events.list(
        job.orgId,
        job.environmentId,
        { eventTypes, rangeFrom: job.scanCreatedAt, rangeTo: job.scanFinishedAt },
        { offset, limit: EVENTS_PAGE },
      );
      events.push(...page.items.filter((e) => e.scanId === job.scanId));
      if (!page.hasMore) break;
    }
    // The list is newest first.
    events.reverse();
    return JSON.stringify({
      notification_id: job.notificationId,
      environment_id: job.environmentId,
      scan_id: job.scanId,
      events: events.map(this.deps.eventDocument),
    });
  }
}

function emailMessage(notification: Notification, env: Environment, job: DeliveryJob): EmailMessage {
  const kinds = EVENT_ORDER.filter((type) => job.counts[type] !== undefined);
  const lines = kinds.map((type) => {
    const count = job.counts[type]!;
    return `  ${type}: ${count} ${count === 1 ? 'event' : 'events'}`;
  });
  const query = [`environment_id=${env.id}`, ...kinds.map((type) => `event_type=${type}`)].join('&');
  return {
    to: notification.emails,
    subject: `[compliance] ${kinds.join(', ')} events in ${env.name}`,
    text: [
      `The scan ${job.scanId} of environment ${env.name} (${env.id}),`,
      `finished at ${new Date(job.scanFinishedAt * 1000).toISOString()}, recorded:`,
      '',
      ...lines,
      '',
      `List them with GET /v0/events?${query}`,
      '',
      `You receive this because of the notification ${notification.name} (${notification.id}).`,
      '',
    ].join('\n'),
  };
}
