import type { AddressInfo } from 'node:net';
import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { loadApiDocument } from './apis.js';
import { openApiValidatorMiddleware } from './direct-validation.js';
import { expect } from '../../test/expect.js';

/**
 * The validator with its promise waits removed must answer exactly as the validator as it comes: two apps over the
 * compliance spec see the same requests, each twice (the first goes the validator's own way, the second straight
 * on), and must agree on the status and on what the request looks like after validation (parameters coerced,
 * defaults applied) or on the error.
 */
const api = loadApiDocument('compliance');
const options = (): Parameters<typeof OpenApiValidator.middleware>[0] => ({
  apiSpec: structuredClone(api.openapi) as never,
  validateApiSpec: false,
  validateRequests: { allowUnknownQueryParameters: true, allErrors: true },
  validateResponses: false,
  validateSecurity: false,
  validateFormats: true,
  ignoreUndocumented: false,
  fileUploader: false,
});

const report: RequestHandler = (req, res) => {
  res.json({ operationId: req.openapi?.schema.operationId, query: req.query, params: req.params, body: req.body as unknown });
};
const renderError: ErrorRequestHandler = (error: { status?: number; message?: string; errors?: unknown }, _req, res, _next) => {
  res.status(error.status ?? 500).json({ error: error.message, errors: error.errors });
};

async function listen(handlers: RequestHandler[]) {
  const app = express();
  app.set('query parser', 'simple');
  app.use(api.basePath, express.json(), ...handlers, report, renderError);
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe('request validation without promise waits', () => {
  let original: Awaited<ReturnType<typeof listen>>;
  let direct: Awaited<ReturnType<typeof listen>>;
  let handlers: RequestHandler[];

  beforeAll(async () => {
    original = await listen(OpenApiValidator.middleware(options()) as RequestHandler[]);
    handlers = openApiValidatorMiddleware(options());
    direct = await listen(handlers);
  });
  afterAll(async () => {
    await original.close();
    await direct.close();
  });

  const requests: [method: string, path: string, body?: unknown][] = [
    ['GET', '/v0/environments'],
    ['GET', '/v0/environments?max_items=5&offset=2&order_direction=asc'],
    ['GET', '/v0/environments?max_items=0&order_by=colour'],
    ['GET', '/v0/environments?max_items=many'],
    ['GET', '/v0/environments/0b7c6f9e-1111-4222-8333-444455556666'],
    ['GET', '/v0/scans?environment_id=e1&status=SUCCESS&status=ERROR'],
    ['GET', '/v0/scans'],
    ['POST', '/v0/environments', { name: 'x', provider: 'provider_a', provider_options: { provider_a: { role_arn: 'arn', regions: ['us-east-1'] } } }],
    ['POST', '/v0/environments', { name: 7 }],
    ['PATCH', '/v0/environments/e1', { scan_interval: 'often' }],
    ['PUT', '/v0/environments/e1', {}],
    ['GET', '/v0/no/such/path'],
  ];

  it('answers every request as the validator does, the first time and after', async () => {
    for (const [method, path, body] of requests) {
      for (const attempt of ['first', 'again']) {
        const [expected, actual] = await Promise.all(
          [original, direct].map(async ({ base }) => {
            const res = await fetch(`${base}${path}`, {
              method,
              ...(body !== undefined && { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
            });
            return { status: res.status, body: await res.json() };
          }),
        );
        expect(actual, `${method} ${path} (${attempt})`).toEqual(expected);
      }
    }
  });

  it('goes straight on once the validator has loaded: no wait between a request and the next handler', async () => {
    // The validator loads its spec on the first request it sees.
    await (await fetch(`${direct.base}/v0/environments`)).arrayBuffer();
    const [pathParams, request] = ['pathParamsMiddleware', 'requestMiddleware'].map((name) => handlers.find((handler) => handler.name === name)!);
    const req = { method: 'GET', headers: {}, query: {}, params: {}, openapi: undefined } as unknown as express.Request;
    let calls = 0;
    pathParams!(req, {} as express.Response, () => (calls += 1));
    // A request no route of the spec matched (no `req.openapi`) is let through by the validator itself.
    request!(req, {} as express.Response, () => (calls += 1));
    expect(calls).toBe(2);
  });
});
