import type { AddressInfo } from 'node:net';
import express, { type ErrorRequestHandler, type Request, type RequestHandler } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { loadApiDocument, type ApiName } from './apis.js';
import { withPrecompiledRoutes } from './route-lookup.js';
import { oncePerRequest, withPrecompiledSecurity } from './security-lookup.js';
import type { SecurityHandler } from './security.js';
import { expect } from '../../test/expect.js';

/**
 * The precompiled security check must answer exactly as the validator's own: two apps over the same spec — one
 * with the validator as it comes, one with its security middleware given the fast path — see the same requests
 * and must agree on the answer, and no handler may run twice for one request.
 */
const calls = new Map<Request, string[]>();

/** Credentials by what they say: `good` passes, `bad` fails, `boom` cannot be checked (a 500), `slow-good` passes later. */
function handler(name: string, header: string): SecurityHandler {
  return async (req) => {
    calls.set(req, [...(calls.get(req) ?? []), name]);
    const value = String(req.headers[header] ?? '');
    if (value.includes('slow')) await new Promise((resolve) => setTimeout(resolve, 5));
    if (value.includes('boom')) throw Object.assign(new Error('cannot check'), { status: 500 });
    if (value.includes('good')) {
      req.principal = name;
      return true;
    }
    return false;
  };
}

const HANDLERS: Record<ApiName, () => Record<string, SecurityHandler>> = {
  compliance: () => ({ basicAuth: handler('basicAuth', 'authorization') }),
  conductor: () => ({ basicAuth: handler('basicAuth', 'authorization') }),
  console: () => ({ consoleSession: handler('consoleSession', 'cookie'), csrfToken: handler('csrfToken', 'x-csrf-token') }),
};

async function listen(apiName: ApiName, precompiled: boolean) {
  const api = loadApiDocument(apiName);
  const handlers = oncePerRequest(HANDLERS[apiName]());
  const validator = OpenApiValidator.middleware({
    apiSpec: structuredClone(api.openapi) as never,
    validateApiSpec: false,
    validateRequests: false,
    validateSecurity: { handlers },
    ignoreUndocumented: false,
  });
  const chain = withPrecompiledRoutes(validator, api);
  const report: RequestHandler = (req, res) => {
    res.json({ principal: req.principal ?? null, calls: calls.get(req) ?? [] });
  };
  const renderError: ErrorRequestHandler = (error: { status?: number; message?: string }, req, res, _next) => {
    res.status(error.status ?? 500).json({ error: error.message, calls: calls.get(req) ?? [] });
  };
  const app = express();
  app.use(api.basePath, ...(precompiled ? withPrecompiledSecurity(chain, api, handlers) : chain), report, renderError);
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const CASES: Array<[ApiName, string, string, Record<string, string>]> = [
  ['compliance', 'GET', '/v0/environments', {}],
  ['compliance', 'GET', '/v0/environments', { authorization: 'Basic good' }],
  ['compliance', 'GET', '/v0/environments', { authorization: 'Basic slow-good' }],
  ['compliance', 'GET', '/v0/environments', { authorization: 'Basic bad' }],
  ['compliance', 'GET', '/v0/environments', { authorization: 'Basic boom' }],
  ['compliance', 'GET', '/v0/environments', { authorization: 'Bearer good' }],
  ['compliance', 'GET', '/v0/swagger', {}],
  ['compliance', 'GET', '/v0/nowhere', { authorization: 'Basic good' }],
  ['console', 'GET', '/console/api/api-clients', { cookie: 'good' }],
  ['console', 'GET', '/console/api/api-clients', { cookie: 'bad' }],
  ['console', 'POST', '/console/api/api-clients', { cookie: 'good', 'x-csrf-token': 'good' }],
  ['console', 'POST', '/console/api/api-clients', { cookie: 'good', 'x-csrf-token': 'bad' }],
  ['console', 'POST', '/console/api/api-clients', { cookie: 'good' }],
  ['console', 'POST', '/console/api/api-clients', { cookie: 'boom', 'x-csrf-token': 'good' }],
  ['console', 'POST', '/console/api/session', {}],
];

describe('precompiled security', () => {
  const apps = new Map<string, Awaited<ReturnType<typeof listen>>>();

  beforeAll(async () => {
    for (const api of ['compliance', 'console'] as const) {
      for (const precompiled of [false, true]) apps.set(`${api} ${precompiled}`, await listen(api, precompiled));
    }
  });
  afterAll(async () => {
    for (const app of apps.values()) await app.close();
  });

  it.each(CASES)('%s %s %s %j: the same answer, each handler run at most once', async (api, method, path, headers) => {
    const answers = [];
    for (const precompiled of [false, true]) {
      // Twice each: the first request of a route teaches the route lookup, the second takes every fast path.
      for (let round = 0; round < 2; round += 1) {
        const res = await fetch(`${apps.get(`${api} ${precompiled}`)!.base}${path}`, { method, headers });
        answers.push({ status: res.status, challenge: res.headers.get('www-authenticate'), body: await res.text() });
      }
    }
    expect(answers[1]).toEqual(answers[0]);
    expect(answers[2]).toEqual(answers[0]);
    expect(answers[3]).toEqual(answers[0]);
    const ran = (JSON.parse(answers[3]!.body) as { calls: string[] }).calls;
    expect(ran.length).toBe(new Set(ran).size);
  });
});
