import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { listenInProcess } from './in-process-server.js';

export interface ReceivedRequest {
  headers: IncomingHttpHeaders;
  raw: string;
  body: any;
}

/** A webhook receiver on 127.0.0.1: records every request and answers the statuses it is told to, then 200. */
export class WebhookReceiver {
  readonly requests: ReceivedRequest[] = [];
  answers: number[] = [];
  private readonly server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      this.requests.push({ headers: req.headers, raw, body: JSON.parse(raw) });
      res.statusCode = this.answers.shift() ?? 200;
      res.end();
    });
  });

  url = '';
  port = 0;

  async start(): Promise<void> {
    const base = await listenInProcess(this.server);
    this.port = Number(new URL(base).port);
    this.url = `${base}/hooks`;
  }

  /** How many times one delivery (its `X-Delivery-Id`) arrived: a retried delivery keeps its id. */
  timesReceived(deliveryId: string): number {
    return this.requests.filter((r) => r.headers['x-delivery-id'] === deliveryId).length;
  }

  /** Requests for one notification: jobs of earlier tests may still be delivering to the same receiver. */
  of(notificationId: string): ReceivedRequest[] {
    return this.requests.filter((r) => r.body.notification_id === notificationId);
  }

  stop(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    // Deliveries' keep-alive connections would otherwise hold the close open.
    this.server.closeAllConnections();
    return closed;
  }
}
