import { createServer, type Server } from 'node:http';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { AttemptOutcome, JobMetrics } from './domain/jobs/metrics.js';
import type { ApiName } from './http/apis.js';
import type { OpenConnections, RefusalCounter, RefusalReason } from './http/connection-limits.js';

/** Jobs waiting or running, by kind and status, as the job table holds them when scraped. */
export interface QueueDepth {
  kind: string;
  status: 'queued' | 'running';
  count: number;
}

/** Values read when /metrics is scraped, so that keeping them costs nothing between scrapes. */
export interface ScrapedSources {
  queueDepth(): Promise<readonly QueueDepth[]>;
  /** Every kind of job the server runs: each has a sample of the queue's depth, 0 while none waits. */
  jobKinds(): readonly string[];
  /** Requests waiting in a long poll (`GET /dry-run/{id}?timeout=…`) right now. */
  longPollWaiters(): number;
}

const SECONDS_BUCKETS_REQUEST = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const SECONDS_BUCKETS_WORK = [0.01, 0.05, 0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];
const RESOURCE_BUCKETS = [10, 100, 1_000, 10_000, 50_000, 100_000, 250_000, 500_000, 1_000_000];

/**
 * The server's Prometheus metrics (GET /metrics, or METRICS_PORT): request durations by API, operationId and
 * status; job attempts, failures and run time by kind and the queue's depth; scan durations and resources per
 * scan; long-poll waiters; the HTTP server's open and refused connections; and prom-client's process and Node.js
 * metrics (CPU, memory, event-loop lag, GC). Each server has a registry of its own, so several servers in one
 * process (tests) never share a count.
 */
export class Metrics implements JobMetrics, RefusalCounter {
  readonly registry = new Registry();
  private readonly requestDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from the request arriving to its answer being sent, by API, operationId and status (aborted: the client left first)',
    labelNames: ['api', 'operation_id', 'status'] as const,
    buckets: SECONDS_BUCKETS_REQUEST,
    registers: [this.registry],
  });
  private readonly jobAttempts = new Counter({
    name: 'job_attempts_total',
    help: 'Attempts of background jobs started by this server, by kind',
    labelNames: ['kind'] as const,
    registers: [this.registry],
  });
  private readonly jobFailures = new Counter({
    name: 'job_failures_total',
    help: 'Failed attempts of background jobs, by kind and outcome (retrying; given_up: no attempt left; lease_lost: taken over by another worker)',
    labelNames: ['kind', 'outcome'] as const,
    registers: [this.registry],
  });
  private readonly jobRunTime = new Histogram({
    name: 'job_run_duration_seconds',
    help: 'Run time of job attempts, by kind and outcome (succeeded, retrying, given_up, lease_lost)',
    labelNames: ['kind', 'outcome'] as const,
    buckets: SECONDS_BUCKETS_WORK,
    registers: [this.registry],
  });
  private readonly scanDuration = new Histogram({
    name: 'scan_duration_seconds',
    help: 'Run time of scans, from the start of their job to their result (successful and failed scans)',
    buckets: SECONDS_BUCKETS_WORK,
    registers: [this.registry],
  });
  private readonly scanResources = new Histogram({
    name: 'scan_resources',
    help: 'Resources evaluated per successful scan',
    buckets: RESOURCE_BUCKETS,
    registers: [this.registry],
  });

  private readonly connectionsRefused = new Counter({
    name: 'http_connections_refused_total',
    help: 'Connections closed as they were accepted, by reason: max_connections (HTTP_MAX_CONNECTIONS open in all), max_connections_per_address (HTTP_MAX_CONNECTIONS_PER_ADDRESS open from the same address)',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    // Both series exist from the start, at 0, so a dashboard tells "none refused" from a missing metric.
    for (const reason of ['max_connections', 'max_connections_per_address'] as const) this.connectionsRefused.inc({ reason }, 0);
  }

  /** Starts reporting the HTTP server's open connections, read when scraped. */
  watchConnections(connections: OpenConnections): void {
    new Gauge({
      name: 'http_connections_open',
      help: 'Connections open to the HTTP server (the API port), idle keep-alive ones included',
      registers: [this.registry],
      collect() {
        this.set(connections.open());
      },
    });
    new Gauge({
      name: 'http_connections_open_busiest_address',
      help: 'Connections open from the client address holding the most (at most HTTP_MAX_CONNECTIONS_PER_ADDRESS)',
      registers: [this.registry],
      collect() {
        this.set(connections.busiestAddress());
      },
    });
  }

  /** A connection closed as it was accepted, over a cap. */
  connectionRefused(reason: RefusalReason): void {
    this.connectionsRefused.inc({ reason });
  }

  /** Starts reporting the values only a scrape reads: the job queue's depth and the long-poll waiters. */
  watch(sources: ScrapedSources): void {
    new Gauge({
      name: 'job_queue_depth',
      help: 'Jobs waiting (queued, including those waiting for a retry) or running, by kind, in the job table every server shares',
      labelNames: ['kind', 'status'] as const,
      registers: [this.registry],
      async collect() {
        this.reset();
        // An unreachable database leaves the gauge empty for this scrape rather than failing the whole scrape.
        const depth = await sources.queueDepth().catch(() => undefined);
        if (!depth) return;
        for (const kind of sources.jobKinds()) for (const status of ['queued', 'running'] as const) this.set({ kind, status }, 0);
        for (const { kind, status, count } of depth) this.set({ kind, status }, count);
      },
    });
    new Gauge({
      name: 'dry_run_long_poll_waiters',
      help: 'Requests waiting in a long poll for a dry-run to finish',
      registers: [this.registry],
      collect() {
        this.set(sources.longPollWaiters());
      },
    });
  }

  /**
   * The request histogram's series by api, operationId and status. prom-client checks and hashes the labels on
   * every observation; the series are few (operations × statuses), so each is looked up once.
   */
  private readonly requestSeries = new Map<string, { observe(seconds: number): void }>();

  /** One finished API request (status 0: the client closed the connection before the answer was sent). */
  requestFinished(api: ApiName, operationId: string, status: number, seconds: number): void {
    const key = `${api} ${operationId} ${status}`;
    let series = this.requestSeries.get(key);
    if (!series) {
      series = this.requestDuration.labels({ api, operation_id: operationId, status: status === 0 ? 'aborted' : status });
      this.requestSeries.set(key, series);
    }
    series.observe(seconds);
  }

  attemptStarted(kind: string): void {
    this.jobAttempts.inc({ kind });
  }

  attemptEnded(kind: string, outcome: AttemptOutcome, seconds: number): void {
    this.jobRunTime.observe({ kind, outcome }, seconds);
    if (outcome !== 'succeeded') this.jobFailures.inc({ kind, outcome });
  }

  abandoned(kind: string): void {
    this.jobFailures.inc({ kind, outcome: 'given_up' });
  }

  /** One scan's run time, and its resources when it succeeded. */
  scanFinished(seconds: number, resources: number | undefined): void {
    this.scanDuration.observe(seconds);
    if (resources !== undefined) this.scanResources.observe(resources);
  }

  /** The exposition: Prometheus text format. */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}

/**
 * A server of its own for the metrics (METRICS_PORT): `GET /metrics` and nothing else, so that the port can stay
 * reachable to the monitoring system alone.
 */
export function createMetricsServer(metrics: Metrics): Server {
  return createServer((req, res) => {
    const path = (req.url ?? '').split('?', 1)[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found: the metrics are at GET /metrics\n');
      return;
    }
    metrics.text().then(
      (text) => res.writeHead(200, { 'content-type': metrics.contentType }).end(req.method === 'HEAD' ? undefined : text),
      (error: unknown) => res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end(`metrics could not be collected: ${String(error)}\n`),
    );
  });
}
