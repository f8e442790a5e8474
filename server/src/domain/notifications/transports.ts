import { createHmac } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import nodemailer from 'nodemailer';
import { isPrivateAddress, literalAddress, privateTargetError, publicOnlyLookup } from './webhook-targets.js';

/** What one attempt to deliver produced; `error` is set exactly when it failed. */
export interface SendOutcome {
  ok: boolean;
  httpStatus?: number;
  smtpResponse?: string;
  error?: string;
}

export interface WebhookRequest {
  url: string;
  secret: string;
  /** The raw JSON body: the signature covers these exact bytes. */
  body: string;
  deliveryId: string;
  /** Sent as X-Request-Id: the request that started the scan, or the delivery's own id when no request did. */
  requestId: string;
}

export interface EmailMessage {
  to: string[];
  subject: string;
  text: string;
}

export interface WebhookSender {
  send(request: WebhookRequest): Promise<SendOutcome>;
}

export interface EmailSender {
  /** Whether there is a server to send through; without one every send fails saying so. */
  readonly configured: boolean;
  send(message: EmailMessage): Promise<SendOutcome>;
}

export const WEBHOOK_TIMEOUT_MS = 10_000;

/** `sha256=<hex HMAC-SHA256 of the body keyed with the secret>`, the value of the X-Signature-256 header. */
export function webhookSignature(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;
}

export interface WebhookSenderOptions {
  timeoutMs?: number;
  /** Deliver to loopback, private and link-local addresses too (WEBHOOK_ALLOW_PRIVATE=true, for local use). */
  allowPrivate?: boolean;
}

/**
 * POSTs over HTTP(S). Anything but a 2xx answer within the timeout is a failure; redirects are not followed.
 * Unless allowed, a target whose address is private is refused before any connection: a literal address by
 * itself, a name by every address it resolves to, checked in the lookup the socket connects with.
 */
export class HttpWebhookSender implements WebhookSender {
  private readonly timeoutMs: number;
  private readonly allowPrivate: boolean;

  constructor(options: WebhookSenderOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
    this.allowPrivate = options.allowPrivate ?? false;
  }

  async send({ url, secret, body, deliveryId, requestId }: WebhookRequest): Promise<SendOutcome> {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return { ok: false, error: `could not reach the webhook: '${url}' is not a URL` };
    }
    const literal = literalAddress(target);
    if (!this.allowPrivate && literal !== undefined && isPrivateAddress(literal)) {
      return { ok: false, error: `could not reach the webhook: ${privateTargetError(literal, literal).message}` };
    }
    try {
      const { status, statusText } = await this.post(target, body, {
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(body)),
        'user-agent': 'compliance-notifications',
        'x-signature-256': webhookSignature(secret, body),
        'x-delivery-id': deliveryId,
        'x-request-id': requestId,
      });
      if (status >= 200 && status < 300) return { ok: true, httpStatus: status };
      return { ok: false, httpStatus: status, error: `HTTP ${status}${statusText ? ` ${statusText}` : ''}` };
    } catch (error) {
      return { ok: false, error: reachError(error, this.timeoutMs) };
    }
  }

  private post(target: URL, body: string, headers: Record<string, string>): Promise<{ status: number; statusText: string }> {
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise((resolve, reject) => {
      const request = send(target, {
        method: 'POST',
        headers,
        // One connection per delivery, made to the address the lookup checked.
        agent: false,
        ...(!this.allowPrivate && { lookup: publicOnlyLookup }),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      request.once('error', reject);
      request.once('response', (response) => {
        // The answer's body is not used; reading it to the end frees the connection.
        response.resume();
        response.once('error', reject);
        response.once('end', () => resolve({ status: response.statusCode ?? 0, statusText: response.statusMessage ?? '' }));
      });
      request.end(body);
    });
  }
}

function reachError(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
    return `no answer within ${timeoutMs / 1000} seconds`;
  }
  return `could not reach the webhook: ${error instanceof Error ? error.message : String(error)}`;
}

export interface SmtpSettings {
  /** `smtp://host:port` or `smtps://user:password@host:port`; unset, email deliveries fail. */
  url?: string;
  from?: string;
}

export const DEFAULT_SMTP_FROM = 'compliance@localhost';
export const NO_SMTP_SERVER = 'no SMTP server configured (SMTP_URL)';

/** Sends through the operator's SMTP server, one connection per message. */
export class SmtpEmailSender implements EmailSender {
  private readonly transporter: ReturnType<typeof nodemailer.createTransport> | undefined;
  private readonly from: string;

  constructor(settings: SmtpSettings = {}) {
    this.from = settings.from ?? DEFAULT_SMTP_FROM;
    this.transporter =
      settings.url === undefined
        ? undefined
        : nodemailer.createTransport({ url: settings.url, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 });
  }

  get configured(): boolean {
    return this.transporter !== undefined;
  }

  async send(message: EmailMessage): Promise<SendOutcome> {
    if (!this.transporter) return { ok: false, error: NO_SMTP_SERVER };
    try {
      const info = await this.transporter.sendMail({ from: this.from, to: message.to, subject: message.subject, text: message.text });
      return { ok: true, smtpResponse: info.response };
    } catch (error) {
      const response = (error as { response?: unknown }).response;
      const reason = error instanceof Error ? error.message : String(error);
      return { ok: false, ...(typeof response === 'string' && { smtpResponse: response }), error: reason };
    }
  }
}
