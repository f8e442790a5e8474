import { beforeEach, it } from '@jest/globals';
import { Metrics } from '../src/metrics.js';
import { compositionTar, conductorClient, WEB_RESOURCES } from './conductor.js';
import { createEnvironment, runScan } from './compliance.js';
import { describeEachDatabase } from './databases.js';
import { eventually } from './eventually.js';
import { useTestServer, type TestServer } from './server.js';
import { expect } from './expect.js';

/** The samples of a Prometheus text exposition, keyed `name{labels}` as written (labels in prom-client's order). */
function samples(text: string): Map<string, number> {
  const values = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const space = line.lastIndexOf(' ');
    values.set(line.slice(0, space), Number(line.slice(space + 1)));
  }
  return values;
}

describeEachDatabase(
  'GET /metrics',
  (db) => {
    const testServer = useTestServer(db, { metrics: new Metrics() });
    let server: TestServer;
    beforeEach(() => {
      server = testServer();
    });
    const { call, addAccount } = conductorClient(() => server);

    const scrape = async () => {
      const res = await fetch(`${server.baseUrl}/metrics`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
      expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
      return samples(await res.text());
    };
    const value = (scraped: Map<string, number>, key: string) => scraped.get(key) ?? 0;

    it('answers without credentials in the Prometheus text format, with the process and Node.js metrics', async () => {
      const scraped = await scrape();
      for (const name of ['process_cpu_user_seconds_total', 'process_resident_memory_bytes', 'nodejs_eventloop_lag_seconds', 'nodejs_eventloop_lag_p99_seconds', 'nodejs_heap_size_used_bytes', 'dry_run_long_poll_waiters']) {
        expect(scraped.has(name), name).toBe(true);
      }
    });

    it('samples the queue depth of every kind of job at 0 while none waits', async () => {
      const scraped = await scrape();
      const kinds = server.services.jobs.kinds();
      expect(kinds).toEqual(expect.arrayContaining(['scan']));
      for (const kind of kinds) {
        for (const status of ['queued', 'running']) expect(scraped.get(`job_queue_depth{kind="${kind}",status="${status}"}`), `${kind} ${status}`).toBe(0);
      }
    });

    it('counts requests by API, operationId and status, and what scans and jobs did', async () => {
      const before = await scrape();
      for (let i = 0; i < 3; i += 1) expect((await server.request('GET', '/v0/environments')).status).toBe(200);
      expect((await server.request('GET', '/v0/environments', { auth: null })).status).toBe(401);
      expect((await server.request('GET', '/api/v0/accounts', { auth: server.rootAuth })).status).toBe(200);
      const env = await createEnvironment(server, { name: 'measured' });
      const scan = await runScan(server, env.id as string);
      expect(scan.status).toBe('SUCCESS');
      // A job queued and not run yet: the queue's depth.
      const waiting = await server.services.jobs.enqueue('metrics-test-waiting', {}, { runAt: server.clock.nowMs() + 3_600_000 });
      const after = await scrape();

      const requests = (api: string, operation: string, status: number) => `http_request_duration_seconds_count{api="${api}",operation_id="${operation}",status="${status}"}`;
      const moved = (key: string) => value(after, key) - value(before, key);
      expect(moved(requests('compliance', 'listEnvironments', 200))).toBe(3);
      expect(moved(requests('compliance', 'listEnvironments', 401))).toBe(1);
      expect(moved(requests('conductor', 'listAccounts', 200))).toBe(1);
      expect(moved(requests('compliance', 'createEnvironment', 201))).toBe(1);
      expect(moved(requests('compliance', 'createScan', 201))).toBe(1);
      expect(value(after, `http_request_duration_seconds_bucket{le="+Inf",api="compliance",operation_id="listEnvironments",status="200"}`)).toBe(value(after, requests('compliance', 'listEnvironments', 200)));
      expect(moved('http_request_duration_seconds_sum{api="compliance",operation_id="listEnvironments",status="200"}')).toBeGreaterThan(0);

      expect(moved('job_attempts_total{kind="scan"}')).toBe(1);
      expect(moved('job_run_duration_seconds_count{kind="scan",outcome="succeeded"}')).toBe(1);
      expect(moved('scan_duration_seconds_count')).toBe(1);
      expect(moved('scan_resources_count')).toBe(1);
      expect(moved('scan_resources_sum')).toBeGreaterThan(0);
      expect(value(after, 'job_queue_depth{kind="metrics-test-waiting",status="queued"}')).toBe(1);
      // Nothing else is cleared by a scrape: the next one still counts what this one counted.
      expect(moved(requests('compliance', 'listEnvironments', 200))).toBe(3);
      await server.services.database.db.deleteFrom('jobs').where('id', '=', waiting.id).execute();
    });

    it('counts failed job attempts by kind and outcome', async () => {
      server.services.jobs.register(
        'metrics-test-failing',
        async () => {
          throw new Error('unreachable');
        },
        async () => {},
      );
      const before = await scrape();
      await server.services.jobs.enqueue('metrics-test-failing', {}, { maxAttempts: 2 });
      await server.services.jobs.runOnce();
      server.clock.advanceSeconds(60);
      await server.services.jobs.runOnce();
      const after = await scrape();
      const moved = (key: string) => value(after, key) - value(before, key);
      expect(moved('job_attempts_total{kind="metrics-test-failing"}')).toBe(2);
      expect(moved('job_failures_total{kind="metrics-test-failing",outcome="retrying"}')).toBe(1);
      expect(moved('job_failures_total{kind="metrics-test-failing",outcome="given_up"}')).toBe(1);
    });

    it('shows the requests waiting in a long poll for a dry-run', async () => {
      const account = await addAccount();
      const requested = await call('POST', `/dry-run?command=run&account=${account.name}`, await compositionTar(WEB_RESOURCES));
      expect(requested.status, requested.text).toBe(202);
      // Nothing runs the dry-run's job, so both polls wait until told to stop.
      const polls = [call('GET', `/dry-run/${requested.body.id}?timeout=30`), call('GET', `/dry-run/${requested.body.id}?timeout=30`)];
      await eventually(async () => expect(value(await scrape(), 'dry_run_long_poll_waiters')).toBe(2));
      while (await server.services.jobs.runOnce());
      for (const poll of polls) expect((await poll).status).toBe(200);
      expect(value(await scrape(), 'dry_run_long_poll_waiters')).toBe(0);
    });
  },
  'suite',
);
