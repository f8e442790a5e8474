import type { AddressInfo } from 'node:net';
import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { loadApiDocument } from './apis.js';
import { withPrecompiledRoutes } from './route-lookup.js';
import { expect } from '../../test/expect.js';

/**
 * The precompiled route matching must answer exactly as the validator's own matching does. Two apps over the
 * compliance spec — one with the validator as it comes, one with its matching replaced — see the same requests,
 * each twice (the first teaches the replacement, the second takes its fast path), and must agree on everything
 * the rest of the chain reads: the operation, the route, the path parameters, or the error.
 */
const api = loadApiDocument('compliance');

function validatorHandlers(): RequestHandler[] {
  return OpenApiValidator.middleware({
    apiSpec: structuredClone(api.openapi) as never,
    validateApiSpec: false,
    validateRequests: { allowUnknownQueryParameters: true },
    validateResponses: { allErrors: true },
    validateSecurity: false,
    validateFormats: true,
    ignoreUndocumented: false,
  });
}

const report: RequestHandler = (req, res) => {
  const openapi = req.openapi as (typeof req.openapi & { _responseSchema?: { responses?: unknown } }) | undefined;
  res.json({
    operationId: openapi?.schema.operationId,
    expressRoute: openapi?.expressRoute,
    openApiRoute: openapi?.openApiRoute,
    pathParams: openapi?.pathParams,
    params: req.params,
    serial: typeof openapi?.serial,
    responseSchema: openapi?._responseSchema?.responses !== undefined,
  });
};
const renderError: ErrorRequestHandler = (error: { status?: number; message?: string; headers?: Record<string, string> }, _req, res, _next) => {
  res.status(error.status ?? 500).set(error.headers ?? {}).json({ error: error.message });
};

async function listen(handlers: RequestHandler[]) {
  const app = express();
  app.disable('etag');
  app.use(api.basePath, ...handlers, report, renderError);
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe('precompiled route matching', () => {
  let original: Awaited<ReturnType<typeof listen>>;
  let precompiled: Awaited<ReturnType<typeof listen>>;
  let validatorMatched = 0;

  beforeAll(async () => {
    original = await listen(validatorHandlers());
    // The validator's own matching, counted; it keeps the name the replacement looks for.
    const handlers = validatorHandlers();
    const index = handlers.findIndex((handler) => handler.name === 'metadataMiddleware');
    const validatorLookup = handlers[index]!;
    handlers[index] = Object.defineProperty(
      ((req, res, next) => {
        validatorMatched += 1;
        return validatorLookup(req, res, next);
      }) as RequestHandler,
      'name',
      { value: 'metadataMiddleware' },
    );
    const replaced = withPrecompiledRoutes(handlers, api);
    expect(replaced[index]!.name).toBe('precompiledRouteLookup');
    precompiled = await listen(replaced);
  });
  afterAll(async () => {
    await original.close();
    await precompiled.close();
  });

  const requests: [method: string, path: string][] = [
    ['GET', '/v0/environments'],
    ['GET', '/v0/environments?max_items=5'],
    ['GET', '/v0/environments/0b7c6f9e-1111-4222-8333-444455556666'],
    ['DELETE', '/v0/environments/0b7c6f9e-1111-4222-8333-444455556666'],
    ['GET', '/v0/environments/with%20space%2Fand%20slash'],
    ['GET', '/V0/Environments/Mixed-Case'],
    ['GET', '/v0/environments/trailing/'],
    ['GET', '/v0/environments/bad%E0%A4%A'],
    ['PUT', '/v0/environments/some-id'],
    ['GET', '/v0/scans/s1/compliance_by_rules'],
    ['GET', '/v0/metadata/provider_a/resource_types'],
    ['POST', '/v0/rules/test'],
    ['GET', '/v0/rules/test'],
    ['GET', '/v0/rules/test/input'],
    ['GET', '/v0/rules/r-1'],
    ['PATCH', '/v0/rules/r-1'],
    ['GET', '/v0/no/such/path'],
    ['GET', '/v0/swagger'],
  ];

  it('answers every request as the validator does, learning a route from its first request', async () => {
    for (const [method, path] of requests) {
      for (const attempt of ['first', 'again']) {
        const [expected, actual] = await Promise.all(
          [original, precompiled].map(async ({ base }) => {
            const res = await fetch(`${base}${path}`, { method, headers: { 'content-type': 'application/json' }, body: method === 'GET' ? undefined : '{}' });
            return { status: res.status, allow: res.headers.get('allow'), body: await res.json() };
          }),
        );
        expect(actual, `${method} ${path} (${attempt})`).toEqual(expected);
      }
    }
  });

  it('leaves the validator to match only what it has not matched before', async () => {
    // Each route's first request is the validator's to match (it teaches the route), whatever ran before this test.
    await fetch(`${precompiled.base}/v0/environments/first`);
    await fetch(`${precompiled.base}/v0/rules/first`, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: '{}' });
    const before = validatorMatched;
    for (let i = 0; i < 10; i += 1) {
      await fetch(`${precompiled.base}/v0/environments/id-${i}`);
      await fetch(`${precompiled.base}/v0/rules/r-${i}`, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: '{}' });
    }
    expect(validatorMatched - before).toBe(0);
    // Errors stay the validator's: a method the path lacks goes to it every time.
    await fetch(`${precompiled.base}/v0/environments/x`, { method: 'PUT' });
    await fetch(`${precompiled.base}/v0/environments/x`, { method: 'PUT' });
    expect(validatorMatched - before).toBe(2);
  });
});
