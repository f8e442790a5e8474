import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { freePort, start, waitForHttp, type Started } from '../../contract-tests/processes.js';
import { FAILING_DRY_RUN_ID, FAILING_WEBHOOK_URL } from '../src/demo/failing.js';
import { LARGE, largeEnvironmentId, largeLatestScanId } from '../src/demo/large.js';
import { MOCK_DEMO_CLIENT, MOCK_SCENARIOS } from '../src/demo/mock.js';
import { PROJECT_ROOT } from '../src/paths.js';
import { DATABASE_TARGETS, openTestDatabase } from './databases.js';
import { expect } from './expect.js';
import { basic, startTestServer } from './server.js';
import { serverEntry } from './server-process.js';

/**
 * The stateful mock's scenarios (server/src/demo/mock.ts): `POST /mock/scenarios/{name}` replaces the state with a
 * named data set, `GET /mock/scenarios` lists them, and the credentials stay the fixed ones in every one. What each
 * holds is counted through the APIs; how long a load took is printed, not checked.
 */
/** Where the stateful mock listens, once started. */
let url = '';
const client = basic(MOCK_DEMO_CLIENT.client_id, MOCK_DEMO_CLIENT.client_secret);
const root = basic('root', 'mock-conductor-root-secret');

async function get(path: string, authorization = client): Promise<Record<string, unknown> & { items: Array<Record<string, unknown>> }> {
  const answer = await fetch(`${url}${path}`, { headers: { authorization } });
  const text = await answer.text();
  expect(answer.status, `${path}: ${text.slice(0, 300)}`).toBe(200);
  return JSON.parse(text);
}

/** Loads the scenario, prints how long the server took, and answers what it said. */
async function load(name: string): Promise<{ scenario: string; duration_ms: number }> {
  const answer = await fetch(`${url}/mock/scenarios/${name}`, { method: 'POST' });
  const body = (await answer.json()) as { scenario: string; duration_ms: number };
  expect(answer.status, JSON.stringify(body)).toBe(200);
  expect(body).toEqual({ scenario: name, duration_ms: expect.any(Number) });
  console.log(`stateful mock scenario ${name}: loaded in ${body.duration_ms} ms in the server`);
  return body;
}

/** The fixed credentials of every API, used as a frontend would. */
async function credentialsWork(): Promise<void> {
  await get('/v0/environments?max_items=1');
  await get('/api/v0/accounts', root);
  const signIn = await fetch(`${url}/console/api/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'admin@example.com', password: 'mock-admin-password' }),
  });
  expect(signIn.status).toBe(200);
}

/** How many items a listing has in all: the page of `max_items=1000` from `offset` is its last. */
async function countFrom(path: string, offset: number): Promise<number> {
  const page = await get(`${path}${path.includes('?') ? '&' : '?'}max_items=1000&offset=${offset}`);
  expect(page.is_truncated, path).toBe(false);
  return offset + page.items.length;
}

describe('stateful mock scenarios', () => {
  let server: Started;
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'mock-scenarios-'));
    const port = await freePort();
    server = start(
      process.execPath,
      serverEntry('main'),
      {
        ...process.env,
        MOCK_RESET: 'true',
        // `large` is made on its first load, if this suite loads it at all, not at start.
        MOCK_LARGE_AT_START: 'false',
        DATABASE_URL: `sqlite:${join(dir, 'mock.db')}`,
        CONDUCTOR_ROOT_SECRET: '',
        CONSOLE_ADMIN_PASSWORD: '',
        CONDUCTOR_ROOT_SECRET_FILE: join(dir, 'conductor-root-secret'),
        CONSOLE_ADMIN_PASSWORD_FILE: join(dir, 'console-admin-password'),
        VALIDATE_RESPONSES: 'true',
        CORS_ORIGINS: '*',
        PORT: String(port),
      },
      PROJECT_ROOT,
    );
    url = `http://127.0.0.1:${port}`;
    await waitForHttp(`${url}/healthz`, server, 120_000);
    // Every scenario but `large` is made at start (`large` when first loaded); loads are timed once they are ready.
    for (const deadline = Date.now() + 150_000; ; ) {
      const { scenarios } = (await (await fetch(`${url}/mock/scenarios`)).json()) as { scenarios: Array<{ name: string; ready: boolean }> };
      if (scenarios.every((scenario) => scenario.ready || scenario.name === 'large')) break;
      if (Date.now() > deadline || server.child.exitCode !== null) throw new Error(`the scenarios were not made:\n${server.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }, 300_000);

  afterAll(async () => {
    await server?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('are listed, each with what it holds, and an unknown one is a 404 naming them', async () => {
    const listed = (await (await fetch(`${url}/mock/scenarios`)).json()) as { scenarios: Array<{ name: string; description: string; ready: boolean }> };
    expect(listed.scenarios.map((scenario) => scenario.name)).toEqual(['empty', 'demo', 'large', 'failing']);
    // `large` is made the first time it is loaded.
    for (const scenario of listed.scenarios) expect(scenario).toEqual({ name: scenario.name, description: expect.stringMatching(/\w/), ready: scenario.name !== 'large' });
    const unknown = await fetch(`${url}/mock/scenarios/huge`, { method: 'POST' });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ message: "no scenario 'huge': the scenarios are empty, demo, large, failing" });
    expect(MOCK_SCENARIOS.map((scenario) => scenario.name)).toEqual(listed.scenarios.map((scenario) => scenario.name));
  });

  it('empty: an organization with nothing in it, the credentials still working', async () => {
    await load('empty');
    expect((await get('/v0/environments')).items).toEqual([]);
    expect((await get('/v0/notifications')).items).toEqual([]);
    expect((await get('/v0/rules')).items).toEqual([]);
    expect(await get('/api/v0/accounts', root)).toMatchObject({ items: [] });
    expect(await get('/api/v0/processes', root)).toMatchObject({ items: [] });
    await credentialsWork();
  }, 60_000);

  it('demo: the seeded demo, as a reset brings it back', async () => {
    await load('demo');
    const environments = (await get('/v0/environments')).items;
    expect(environments.map((env) => env.name).sort()).toEqual(['Analytics subscription', 'GovCloud workloads', 'Production (provider_a)']);
    expect((await get('/api/v0/processes', root)).items).toHaveLength(1);
    await credentialsWork();
    const reset = await fetch(`${url}/mock/reset`, { method: 'POST' });
    expect(await reset.json()).toEqual({ status: 'reset', duration_ms: expect.any(Number) });
    expect((await get('/v0/environments')).items.map((env) => env.id).sort()).toEqual(environments.map((env) => env.id).sort());
  }, 60_000);

  it('large: 1 000 environments, 200 events each, and scans of 10 000 results by rule', async () => {
    await load('large');
    expect(await countFrom('/v0/environments', LARGE.environments - 1)).toBe(LARGE.environments);
    const first = await get(`/v0/environments/${largeEnvironmentId(1)}`);
    expect(first).toMatchObject({ name: 'large-0001', provider: 'provider_a', scan_status: 'SUCCESS', scan_schedule_enabled: false });
    expect((await get(`/v0/scans?environment_id=${largeEnvironmentId(1)}`)).items.map((scan) => scan.status)).toEqual(['SUCCESS', 'SUCCESS']);
    const events = await get(`/v0/events?environment_id=${largeEnvironmentId(LARGE.environments)}&max_items=1000`);
    expect(events.items).toHaveLength(LARGE.eventsPerEnvironment);
    expect(new Set(events.items.map((event) => event.event_type))).toEqual(new Set(['DRIFT', 'REMEDIATION', 'COMPLIANCE']));
    const results = `/v0/scans/${largeLatestScanId(LARGE.scansWithResults)}/compliance_by_rules`;
    expect(await countFrom(results, LARGE.resultsPerScan - 1)).toBe(LARGE.resultsPerScan);
    const failing = await get(`${results}?result=FAIL&max_items=1`);
    expect(failing.items[0]).toMatchObject({ result: 'FAIL', failed_resource_count: expect.any(Number) });
    expect((failing.items[0]!.failed_resources as unknown[]).length).toBe(failing.items[0]!.failed_resource_count);
    // The ids are fixed: the same in every process.
    expect(largeEnvironmentId(1)).toBe('6c617267-0000-4000-8000-000000000001');
    await credentialsWork();
  }, 120_000);

  it('failing: scans that ended ERROR, a webhook that failed, a dry-run with errors', async () => {
    await load('failing');
    const environments = (await get('/v0/environments')).items;
    expect(environments.map((env) => [env.name, env.scan_status]).sort()).toEqual([
      ['Legacy subscription (provider_b)', 'ERROR'],
      ['Payments (provider_a)', 'ERROR'],
    ]);
    const payments = environments.find((env) => env.name === 'Payments (provider_a)')!;
    const scans = (await get(`/v0/scans?environment_id=${String(payments.id)}`)).items;
    expect(scans.map((scan) => scan.status)).toEqual(['ERROR', 'SUCCESS', 'SUCCESS']);
    expect(scans[0]!.message).toMatch(/^could not assume role arn:prova:iam::345678901234:role\/compliance-scanner: access denied$/);

    const [notification] = (await get('/v0/notifications')).items;
    expect(notification).toMatchObject({ webhook_url: FAILING_WEBHOOK_URL, last_error: 'webhook: HTTP 503 Service Unavailable (gave up after 5 attempts)' });
    const deliveries = (await get(`/v0/notifications/${String(notification!.notification_id)}/deliveries`)).items;
    expect(deliveries).toHaveLength(5);
    for (const delivery of deliveries) expect(delivery).toMatchObject({ status: 'failed', http_status: 503 });

    const dryRun = await get(`/api/v0/dry-run/${FAILING_DRY_RUN_ID}`, root);
    expect(dryRun).toMatchObject({ status: 'FAILED', command: 'RUN', account: 'prod-main', plan: [] });
    expect((dryRun.errors as Array<{ code: string }>).map((error) => error.code)).toEqual(['rule.violation', 'rule.violation', 'rule.violation', 'rule.violation']);
    await credentialsWork();
  }, 60_000);

  it('disarm the faults, answer pages of other origins, and take no credentials', async () => {
    const armed = await fetch(`${url}/mock/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"operation": "listEnvironments", "status": 500}' });
    expect(armed.status).toBe(201);
    const preflight = await fetch(`${url}/mock/scenarios/empty`, {
      method: 'OPTIONS',
      headers: { origin: 'http://127.0.0.1:5173', 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    const loaded = await fetch(`${url}/mock/scenarios/empty`, { method: 'POST', headers: { origin: 'http://127.0.0.1:5173' } });
    expect(loaded.status).toBe(200);
    expect(loaded.headers.get('access-control-allow-origin')).toBe('*');
    expect(await (await fetch(`${url}/mock/faults`)).json()).toEqual({ faults: [] });
    const listed = await fetch(`${url}/mock/scenarios`, { headers: { origin: 'http://localhost:5173' } });
    expect(listed.headers.get('access-control-allow-origin')).toBe('*');
    // The credentials file is the one written at start: the same in every scenario.
    expect(JSON.parse(await readFile(join(dir, 'mock-credentials.json'), 'utf8'))).toMatchObject({ api_client: MOCK_DEMO_CLIENT });
  }, 60_000);

});

describe('outside mock mode', () => {
  it('there are no scenarios', async () => {
    const db = await openTestDatabase(DATABASE_TARGETS[0]!);
    const real = await startTestServer(db);
    try {
      expect((await fetch(`${real.baseUrl}/mock/scenarios`)).status).toBe(404);
      expect((await fetch(`${real.baseUrl}/mock/scenarios/empty`, { method: 'POST' })).status).toBe(404);
    } finally {
      await real.close();
      await db.dispose();
    }
  });
});
