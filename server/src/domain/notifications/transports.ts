import { createHmac } from 'node:crypto';
import nodemailer from 'nodemailer';

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
  send(message: EmailMessage): Promise<SendOutcome>;
}

export const WEBHOOK_TIMEOUT_MS = 10_000;

/** `sha256=<hex HMAC-SHA256 of the body keyed with the secret>`, the value of the X-Signature-256 header. */
export function webhookSignature(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;
}

/** POSTs over HTTP(S). Anything but a 2xx answer within the timeout is a failure; redirects are not followed. */
export class HttpWebhookSender implements WebhookSender {
  constructor(private readonly timeoutMs = WEBHOOK_TIMEOUT_MS) {}

  async send({ url, secret, body, deliveryId }: WebhookRequest): Promise<SendOutcome> {
    let response: Response;
    try {
      response = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'compliance-notifications',
          'x-signature-256': webhookSignature(secret, body),
          'x-delivery-id': deliveryId,
        },
        body,
        redirect: 'manual',
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      return { ok: false, error: reachError(error, this.timeoutMs) };
    }
    // The answer's body is not used; reading it to the end frees the connection.
    await response.arrayBuffer().catch(() => undefined);
    if (response.status >= 200 && response.status < 300) return { ok: true, httpStatus: response.status };
    return { ok: false, httpStatus: response.status, error: `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}` };
  }
}

function reachError(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
    return `no answer within ${timeoutMs / 1000} seconds`;
  }
  // fetch reports "fetch failed" and puts the reason (ECONNREFUSED, a DNS failure, …) in `cause`.
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : undefined;
  const message = error instanceof Error ? error.message : String(error);
  return `could not reach the webhook: ${cause ?? message}`;
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
