import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { errorShapeProblem } from '../../contract-tests/property/checks.js';
import { FaultInjector } from '../../contract-tests/statuses/faults.js';
import { send, type StatusContext } from '../../contract-tests/statuses/scenario.js';
import { OPERATIONS } from '../../contract-tests/statuses/table.js';
import { declaredStatuses } from '../../contract-tests/coverage.js';
import { MAX_PREFERRED_DELAY_MS } from '../src/http/mock-steering.js';
import { CapturedLog } from './captured-log.js';
import { createEnvironment } from './compliance.js';
import { DATABASE_TARGETS, openTestDatabase, type TestDatabase } from './databases.js';
import { expect } from './expect.js';
import { startTestServer, type TestServer } from './server.js';

/**
 * The stateful mock answers what `Prefer` asks for (server/src/http/mock-steering.ts): every declared status of
 * every operation, with a body the response validation accepts, and nothing changed; a named example; a delay;
 * a status the operation does not declare refused, naming those it does. The real server ignores `Prefer`.
 */
const run = promisify(execFile);
const ARCHIVE_LIMIT_BYTES = 16 * 1024;

describe('the stateful mock steered by Prefer', () => {
  let db: TestDatabase & { dispose(): Promise<void> };
  let realDb: TestDatabase & { dispose(): Promise<void> };
  let mock: TestServer;
  let real: TestServer;
  const faults = new FaultInjector();
  const log = new CapturedLog();
  beforeAll(async () => {
    db = await openTestDatabase(DATABASE_TARGETS[0]!);
    mock = await startTestServer(db, { archiveLimitBytes: ARCHIVE_LIMIT_BYTES, mockReset: async () => 0, requestLog: log.logger, corsOrigins: '*' });
    realDb = await openTestDatabase(DATABASE_TARGETS[0]!);
    real = await startTestServer(realDb);
  });
  afterAll(async () => {
    await mock?.close();
    await real?.close();
    await db?.dispose();
    await realDb?.dispose();
  });
  const context = (): StatusContext => ({ server: mock, faults, archiveLimitBytes: ARCHIVE_LIMIT_BYTES, log });

  for (const op of OPERATIONS) {
    it(`${op.api} ${op.operationId}: Prefer code=<each declared status> answers it, in a body the spec accepts`, async () => {
      const statuses = declaredStatuses(op.api).get(op.operationId)!;
      const ctx = context();
      const call = await op.valid(ctx);
      for (const status of statuses) {
        const answer = await send(ctx, { ...call, headers: { ...call.headers, prefer: `code=${status}` } });
        // Response validation is on: a body or a header the spec does not declare would be a 500.
        expect(answer.status, `${status}: ${answer.text.slice(0, 300)}`).toBe(status);
        if (status >= 400) expect(errorShapeProblem(op.api, status, answer.body), answer.text).toBeUndefined();
        if (status === 503 || status === 429) expect(answer.headers.get('retry-after')).toMatch(/^[0-9]+$/);
      }
    });
  }

  it('changes nothing: a create answered through Prefer stores nothing', async () => {
    const before = await mock.request('GET', '/v0/environments');
    const created = await mock.request('POST', '/v0/environments', {
      body: { name: 'never-stored', provider: 'provider_a', provider_options: { provider_a: { role_arn: 'arn:prova:iam::123456789012:role/scanner', regions: ['*'] } } },
      headers: { prefer: 'code=201' },
    });
    expect(created.status).toBe(201);
    const after = await mock.request('GET', '/v0/environments');
    expect(after.body.count).toBe(before.body.count);
    expect(after.body.items.map((env: { name: string }) => env.name)).not.toContain('never-stored');
  });

  it('refuses a status the operation does not declare, naming those it does, and a delay past the bound', async () => {
    const undeclared = await mock.request('GET', '/v0/environments', { headers: { prefer: 'code=418' } });
    expect(undeclared.status).toBe(400);
    expect(undeclared.body).toMatchObject({ type: 'InvalidParameterValue', code: 400 });
    expect(undeclared.body.message).toMatch(/code 418 is not declared for listEnvironments, which declares 200, 304, 400, 401/);
    const tooLong = await mock.request('GET', '/v0/environments', { headers: { prefer: `delay=${MAX_PREFERRED_DELAY_MS + 1}` } });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.message).toContain(`from 0 to ${MAX_PREFERRED_DELAY_MS}`);
    const unknownExample = await mock.request('GET', '/v0/environments', { headers: { prefer: 'example=nothing-of-that-name' } });
    expect(unknownExample.status).toBe(400);
    expect(unknownExample.body.message).toMatch(/example 'nothing-of-that-name' is not one of listEnvironments's 200 examples: response/);
  });

  it('picks a named example, and waits the delay asked before answering as usual', async () => {
    const named = await mock.request('GET', '/v0/environments', { headers: { prefer: 'code=200, example=response' } });
    expect(named.status).toBe(200);
    expect(named.body.items[0].name).toBe('production-us');
    const env = await createEnvironment(mock, { name: 'kept' });
    const delayed = await mock.request('GET', `/v0/environments/${env.id}`, { headers: { prefer: 'delay=300', 'x-request-id': 'delayed-read' } });
    expect(delayed).toMatchObject({ status: 200, body: { id: env.id, name: 'kept' } });
    // The server's own record of the request: it took at least the delay asked for.
    expect(log.requestLine('delayed-read')!.durationMs).toBeGreaterThanOrEqual(300);
  });

  it('lets a page of another origin send Prefer (CORS preflight), and answers curl', async () => {
    const preflight = await fetch(`${mock.baseUrl}/v0/environments`, {
      method: 'OPTIONS',
      headers: { origin: 'http://127.0.0.1:5173', 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization,prefer' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-headers')?.split(',')).toContain('Prefer');
    const { stdout } = await run('curl', ['-sS', '-o', '/dev/null', '-w', '%{http_code}', '-H', `authorization: ${mock.auth}`, '-H', 'Prefer: code=404', `${mock.baseUrl}/v0/environments/00000000-0000-4000-8000-000000000000`], { timeout: 30_000 });
    expect(stdout).toBe('404');
  });

  describe('faults armed through POST /mock/faults', () => {
    const control = (method: string, body?: unknown) =>
      fetch(`${mock.baseUrl}/mock/faults`, { method, ...(body !== undefined && { headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) }) });

    it('make the operation answer the status its next n calls, in a body the spec accepts, then as usual; GET lists them, DELETE and a reset disarm them', async () => {
      const armed = await control('POST', { operation: 'listEnvironments', status: 503, times: 2 });
      expect(armed.status).toBe(201);
      expect(await armed.json()).toEqual({ operation: 'listEnvironments', status: 503, times: 2 });
      expect(await (await control('GET')).json()).toEqual({ faults: [{ operation: 'listEnvironments', status: 503, times: 2 }] });

      const first = await mock.request('GET', '/v0/environments');
      expect(first.status, first.text).toBe(503);
      expect(errorShapeProblem('compliance', 503, first.body)).toBeUndefined();
      expect(first.headers.get('retry-after')).toMatch(/^[0-9]+$/);
      // Other operations answer as usual meanwhile.
      expect((await mock.request('GET', '/v0/groups')).status).toBe(200);
      expect((await mock.request('GET', '/v0/environments')).status).toBe(503);
      expect((await mock.request('GET', '/v0/environments')).status).toBe(200);
      expect(await (await control('GET')).json()).toEqual({ faults: [] });

      // A fault changes nothing: a create it answers stores nothing.
      const before = (await mock.request('GET', '/v0/environments?max_items=100')).body.count;
      await control('POST', { operation: 'createEnvironment', status: 201 });
      expect((await mock.request('POST', '/v0/environments', { body: { name: 'never stored' } })).status).toBe(400);
      // The request is validated first: the invalid one above left the fault armed for a valid one.
      expect(await (await control('GET')).json()).toEqual({ faults: [{ operation: 'createEnvironment', status: 201, times: 1 }] });
      await createEnvironment(mock);
      expect((await mock.request('GET', '/v0/environments?max_items=100')).body.count).toBe(before);

      // Every API: the conductor's and the console's operations too.
      await control('POST', { operation: 'listAccounts', status: 500, times: 1 });
      const conductor = await mock.request('GET', '/api/v0/accounts', { auth: mock.rootAuth });
      expect(conductor.status, conductor.text).toBe(500);
      expect(errorShapeProblem('conductor', 500, conductor.body)).toBeUndefined();

      await control('POST', { operation: 'listEnvironments', status: 500, times: 5 });
      expect((await control('DELETE')).status).toBe(204);
      expect((await mock.request('GET', '/v0/environments')).status).toBe(200);
      await control('POST', { operation: 'listEnvironments', status: 500, times: 5 });
      expect((await fetch(`${mock.baseUrl}/mock/reset`, { method: 'POST' })).status).toBe(200);
      expect((await mock.request('GET', '/v0/environments')).status).toBe(200);
    });

    it.each([
      [{ operation: 'noSuchOperation', status: 500 }, /^operation: 'noSuchOperation' is not the operationId of an operation of the compliance, conductor, console APIs$/],
      [{ operation: 'listEnvironments', status: 418 }, /^status: must be a status listEnvironments declares: 200, .*503$/],
      [{ operation: 'listEnvironments', status: 500, times: 0 }, /^times: must be a whole number of calls from 1 to 1000$/],
      [{ operation: 'listEnvironments', status: 500, times: 1001 }, /^times: must be a whole number/],
      [{ operation: 'listEnvironments', status: '500' }, /^status: must be a status listEnvironments declares/],
      [{ operation: 'listEnvironments', status: 500, when: 'now' }, /^when: is not a field of a fault/],
      [[], /^operation: must name an operation/],
      ['{"operation": ', /JSON/],
    ])('refuses %j with 400 saying why, and arms nothing', async (body, message) => {
      const refused = await control('POST', body);
      expect(refused.status).toBe(400);
      expect(((await refused.json()) as { message: string }).message).toMatch(message);
      expect(await (await control('GET')).json()).toEqual({ faults: [] });
    });

    it('are armed by a client nobody here wrote (Python), from a page of another origin (CORS preflight), and seen by curl', async () => {
      const preflight = await fetch(`${mock.baseUrl}/mock/faults`, {
        method: 'OPTIONS',
        headers: { origin: 'http://127.0.0.1:5173', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
      const script = `
import json, sys, urllib.request
request = urllib.request.Request(sys.argv[1] + "/mock/faults", method="POST", headers={"Content-Type": "application/json"},
                                 data=json.dumps({"operation": "getEnvironment", "status": 404, "times": 1}).encode())
with urllib.request.urlopen(request, timeout=30) as answer:
    print(json.dumps({"status": answer.status, "body": json.load(answer)}))
`;
      const { stdout } = await run('python3', ['-c', script, mock.baseUrl], { timeout: 30_000 });
      expect(JSON.parse(stdout)).toEqual({ status: 201, body: { operation: 'getEnvironment', status: 404, times: 1 } });
      const env = await createEnvironment(mock);
      const curl = async () =>
        (await run('curl', ['-sS', '-o', '/dev/null', '-w', '%{http_code}', '-H', `authorization: ${mock.auth}`, `${mock.baseUrl}/v0/environments/${env.id}`], { timeout: 30_000 })).stdout;
      expect(await curl()).toBe('404');
      expect(await curl()).toBe('200');
    });

    it('are not there on the real server', async () => {
      expect((await fetch(`${real.baseUrl}/mock/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status).toBe(404);
    });
  });

  it('is ignored by the real server', async () => {
    const answer = await real.request('GET', '/v0/environments', { headers: { prefer: 'code=500' } });
    expect(answer.status).toBe(200);
    const undeclared = await real.request('GET', '/v0/environments', { headers: { prefer: 'code=418, delay=999999' } });
    expect(undeclared.status).toBe(200);
  });
});
