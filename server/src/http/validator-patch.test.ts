import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import express, { type ErrorRequestHandler, type Request, type RequestHandler } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { loadApiDocument, type ApiName } from './apis.js';
import { toAppError } from './errors.js';
import { oncePerRequest, type SecurityHandler } from './security.js';
import { expect } from '../../test/expect.js';

/**
 * patches/express-openapi-validator+5.6.2.patch (applied by `npm ci`'s postinstall, which fails when it no longer
 * applies): the validator prepares each route's pattern once, runs its middlewares at once after its spec has loaded,
 * lets a request whose one security requirement passes go on without building its per-scheme objects, and passes
 * on with each problem of a request what ajv found (its params), from which errors.ts words its messages, compiles
 * the OpenAPI meta-schema only when it is to validate the spec, and compiles each operation's request and response
 * schemas with the spec's components but without its paths, and looks up the schemas the spec references while
 * preparing it instead of compiling them in an ajv it then drops. These tests fail when any of them stops running
 * (docs/performance.md says what each saves), and check that the validator still answers as before: the operation
 * and parameters it finds, each refusal of the security check, and refused requests and answers.
 */
const fromValidator = createRequire(createRequire(import.meta.url).resolve('express-openapi-validator'));
const pathToRegexpModule = fromValidator('path-to-regexp') as { pathToRegexp: (...args: unknown[]) => unknown };
const securityModule = fromValidator('./middlewares/openapi.security') as { securityFastPath?: { passed: number } };
type Ajv = { addSchema(schema: object, key?: string): unknown; getSchema(key: string): unknown };
const ajvModule = fromValidator('./framework/ajv/index') as Record<'createRequestAjv' | 'createResponseAjv', (...args: unknown[]) => Ajv>;
const metaSchemaModule = fromValidator('./framework/openapi.schema.validator') as { OpenAPISchemaValidator: new (...args: unknown[]) => object };

const calls = new Map<Request, string[]>();

/** Credentials by what they say: `good` passes, `bad` fails, `boom` cannot be checked (a 500), `slow-good` passes later. */
function handler(name: string, header: string): SecurityHandler {
  return async (req) => {
    calls.set(req, [...(calls.get(req) ?? []), name]);
    const value = String(req.headers[header] ?? '');
    if (value.includes('slow')) await new Promise((resolve) => setTimeout(resolve, 5));
    if (value.includes('boom')) throw Object.assign(new Error('cannot check'), { status: 500 });
    return value.includes('good');
  };
}

const HANDLERS: Record<'compliance' | 'console', () => Record<string, SecurityHandler>> = {
  compliance: () => ({ basicAuth: handler('basicAuth', 'authorization') }),
  console: () => ({ consoleSession: handler('consoleSession', 'cookie'), csrfToken: handler('csrfToken', 'x-csrf-token') }),
};

/** The validator as the server mounts it (without request validation, so that only matching and security answer). */
function validatorFor(apiName: ApiName, handlers?: Record<string, SecurityHandler>): RequestHandler[] {
  return OpenApiValidator.middleware({
    apiSpec: structuredClone(loadApiDocument(apiName).openapi) as never,
    validateApiSpec: false,
    validateRequests: false,
    validateSecurity: handlers ? { handlers: oncePerRequest(handlers) } : false,
    ignoreUndocumented: false,
  });
}

const report: RequestHandler = (req, res) => {
  res.json({ operationId: req.openapi?.schema.operationId ?? null, params: req.openapi?.pathParams, calls: calls.get(req) ?? [] });
};
const renderError: ErrorRequestHandler = (error: { status?: number; message?: string }, req, res, _next) => {
  res.status(error.status ?? 500).json({ error: error.message, calls: calls.get(req) ?? [] });
};

async function listen(apiName: 'compliance' | 'console') {
  const app = express();
  app.use(loadApiDocument(apiName).basePath, ...validatorFor(apiName, HANDLERS[apiName]()), report, renderError);
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/**
 * The compliance API behind the validator (requests validated, security not), then `handlers`; listening while
 * `use` runs, with the base URL.
 */
async function whileServing<T>(
  options: { validateApiSpec?: boolean; validateResponses?: boolean },
  handlers: Array<RequestHandler | ErrorRequestHandler>,
  use: (base: string) => Promise<T>,
): Promise<T> {
  const compliance = loadApiDocument('compliance');
  const app = express();
  app.use(
    compliance.basePath,
    express.json(),
    ...OpenApiValidator.middleware({
      apiSpec: structuredClone(compliance.openapi) as never,
      validateApiSpec: options.validateApiSpec ?? false,
      validateRequests: { allErrors: true },
      validateResponses: options.validateResponses ?? false,
      validateSecurity: false,
      ignoreUndocumented: false,
    }),
    ...handlers,
  );
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  try {
    return await use(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

describe('the validator as patched', () => {
  const apps = new Map<string, Awaited<ReturnType<typeof listen>>>();
  beforeAll(async () => {
    for (const api of ['compliance', 'console'] as const) apps.set(api, await listen(api));
  });
  afterAll(async () => {
    for (const app of apps.values()) await app.close();
  });
  const call = async (api: 'compliance' | 'console', method: string, path: string, headers: Record<string, string> = {}) => {
    const res = await fetch(`${apps.get(api)!.base}${path}`, { method, headers });
    return { status: res.status, body: (await res.json()) as { operationId?: string; params?: Record<string, string>; error?: string; calls: string[] } };
  };

  it.each([
    ['compliance', 'GET', '/v0/environments', { authorization: 'Basic good' }, 200, 'listEnvironments', ['basicAuth']],
    ['compliance', 'GET', '/v0/environments', { authorization: 'Basic slow-good' }, 200, 'listEnvironments', ['basicAuth']],
    ['compliance', 'GET', '/v0/environments', {}, 401, 'Authorization header required', []],
    ['compliance', 'GET', '/v0/environments', { authorization: 'Basic bad' }, 401, 'unauthorized', ['basicAuth']],
    ['compliance', 'GET', '/v0/environments', { authorization: 'Basic boom' }, 500, 'cannot check', ['basicAuth']],
    ['compliance', 'GET', '/v0/environments', { authorization: 'Bearer good' }, 401, "Authorization header with scheme 'Basic' required", []],
    ['compliance', 'GET', '/v0/swagger', {}, 200, 'getSwagger', []],
    ['console', 'GET', '/console/api/api-clients', { cookie: 'good' }, 200, 'listApiClients', ['consoleSession']],
    ['console', 'GET', '/console/api/api-clients', { cookie: 'bad' }, 401, 'unauthorized', ['consoleSession']],
    ['console', 'POST', '/console/api/api-clients', { cookie: 'good', 'x-csrf-token': 'good' }, 200, 'createApiClient', ['consoleSession', 'csrfToken']],
    ['console', 'POST', '/console/api/api-clients', { cookie: 'good', 'x-csrf-token': 'bad' }, 401, 'unauthorized', ['consoleSession', 'csrfToken']],
    ['console', 'POST', '/console/api/api-clients', { cookie: 'good' }, 401, "'X-CSRF-Token' header required", ['consoleSession']],
    ['console', 'POST', '/console/api/api-clients', { cookie: 'boom', 'x-csrf-token': 'good' }, 500, 'cannot check', ['consoleSession', 'csrfToken']],
  ] as const)('%s %s %s %j: %i (%s), each handler run at most once', async (api, method, path, headers, status, what, ran) => {
    // Twice: the first request of each kind may take the path the later ones do not.
    for (let round = 0; round < 2; round += 1) {
      const answer = await call(api, method, path, headers);
      expect(answer.status).toBe(status);
      expect(status === 200 ? answer.body.operationId : answer.body.error).toBe(what);
      expect([...answer.body.calls].sort()).toEqual([...ran].sort());
    }
  });

  it('finds the operation and its path parameters, and refuses an unknown path, a method the path lacks and a malformed escape', async () => {
    const headers = { authorization: 'Basic good' };
    expect(await call('compliance', 'GET', '/v0/environments/env-1', headers)).toMatchObject({ status: 200, body: { operationId: 'getEnvironment', params: { environment_id: 'env-1' } } });
    expect(await call('compliance', 'GET', '/v0/environments/a%20b', headers)).toMatchObject({ status: 200, body: { params: { environment_id: 'a b' } } });
    expect(await call('compliance', 'GET', '/v0/nowhere', headers)).toMatchObject({ status: 404 });
    expect(await call('compliance', 'PUT', '/v0/environments', headers)).toMatchObject({ status: 405 });
    expect(await call('compliance', 'GET', '/v0/environments/%E0%A4%A', headers)).toMatchObject({ status: 400 });
  });

  it('engages: no route pattern is compiled after the first request, and a passing credential takes the one-requirement path', async () => {
    const headers = { authorization: 'Basic good' };
    await call('compliance', 'GET', '/v0/environments', headers);
    const compile = pathToRegexpModule.pathToRegexp;
    let compiled = 0;
    pathToRegexpModule.pathToRegexp = (...args: unknown[]) => {
      compiled += 1;
      return compile(...args);
    };
    const passedBefore = securityModule.securityFastPath?.passed ?? Number.NaN;
    try {
      for (let i = 0; i < 10; i += 1) expect((await call('compliance', 'GET', `/v0/environments/env-${i}`, headers)).status).toBe(200);
    } finally {
      pathToRegexpModule.pathToRegexp = compile;
    }
    expect(compiled, 'route patterns compiled on requests: the patch is not applied (run npm ci)').toBe(0);
    expect((securityModule.securityFastPath?.passed ?? Number.NaN) - passedBefore, 'requests let through by the one-requirement path').toBe(10);
  });

  it('engages: once the spec has loaded, a middleware goes on within its call rather than in a later turn', async () => {
    const [pathParams, metadata] = validatorFor('compliance');
    const req = { app: express(), path: '/v0/environments', baseUrl: '', url: '/v0/environments', originalUrl: '/v0/environments', method: 'GET', params: {}, query: {}, headers: {} };
    // The first call waits for the spec; later calls must not.
    await new Promise<void>((resolve, reject) => pathParams!(req as never, {} as never, (error?: unknown) => (error ? reject(error as Error) : resolve())));
    let wentOn = false;
    metadata!(req as never, {} as never, () => (wentOn = true));
    expect(wentOn, 'the validator waited on its spec within a loaded request: the patch is not applied (run npm ci)').toBe(true);
    expect((req as { openapi?: { schema: { operationId: string } } }).openapi?.schema.operationId).toBe('listEnvironments');
  });

  it('engages: each problem of a request carries what ajv found, from which errors.ts words the message', async () => {
    let refusal: unknown;
    const refuse: ErrorRequestHandler = (error, _req, res, _next) => {
      refusal = error;
      res.status(400).end();
    };
    await whileServing({}, [report, refuse], async (base) => {
      const body = { name: 5, provider: 'nowhere', survey_resource_types: [], unknown_field: 1 };
      const res = await fetch(`${base}/v0/environments`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      expect(res.status).toBe(400);
    });
    const problems = (refusal as { errors?: Array<{ errorCode?: string; params?: Record<string, unknown> }> }).errors ?? [];
    const paramsOf = (keyword: string) => problems.find((problem) => problem.errorCode === `${keyword}.openapi.validation`)?.params;
    expect(paramsOf('required'), 'the problems carry no params: the patch is not applied (run npm ci)').toEqual({ missingProperty: 'provider_options' });
    expect(paramsOf('additionalProperties')).toEqual({ additionalProperty: 'unknown_field' });
    expect(paramsOf('type')).toEqual({ type: 'string' });
    expect(paramsOf('enum')).toEqual({ allowedValues: ['provider_a', 'provider_a_gov', 'provider_b'] });
    expect(toAppError(refusal).message).toBe(
      'provider_options: is required; unknown_field: is not allowed; name: must be string; ' +
        'provider: must be equal to one of the allowed values: provider_a, provider_a_gov, provider_b',
    );
  });

  it('engages: the OpenAPI meta-schema is compiled only to validate the spec, and no schema compiled for a request or an answer holds the paths', async () => {
    const compliance = loadApiDocument('compliance');
    const MetaSchema = metaSchemaModule.OpenAPISchemaValidator;
    const creators = { createRequestAjv: ajvModule.createRequestAjv, createResponseAjv: ajvModule.createResponseAjv };
    let metaSchemas = 0;
    const compiled: Array<{ kind: string; keys: string[] }> = [];
    metaSchemaModule.OpenAPISchemaValidator = class extends MetaSchema {
      constructor(...args: unknown[]) {
        super(...args);
        metaSchemas += 1;
      }
    };
    for (const kind of ['createRequestAjv', 'createResponseAjv'] as const) {
      ajvModule[kind] = (...args: unknown[]) => {
        const ajv = creators[kind](...args);
        const addSchema = ajv.addSchema.bind(ajv);
        ajv.addSchema = (schema, key) => {
          compiled.push({ kind, keys: Object.keys(schema) });
          return addSchema(schema, key);
        };
        return ajv;
      };
    }
    const answer = { status: 200, body: {} as unknown };
    type Example = { content: { 'application/json': { examples: { response: { value: { id: string } } } } } };
    const environment = (compliance.openapi as unknown as { paths: Record<string, { get: { responses: Record<string, Example> } }> }).paths['/environments/{environment_id}']!.get
      .responses['200']!.content['application/json'].examples.response.value;
    const answerAsSet: RequestHandler = (_req, res) => {
      res.status(answer.status).json(answer.body);
    };
    const refuse: ErrorRequestHandler = (error: { status?: number }, _req, res, _next) => {
      res.status(error.status ?? 500).json({ refused: true });
    };
    // A valid request and answer, an invalid request, an invalid answer: the schemas compiled still refuse.
    const serve = (validateApiSpec: boolean) =>
      whileServing({ validateApiSpec, validateResponses: true }, [answerAsSet, refuse], async (base) => {
        answer.body = environment;
        const statuses = [(await fetch(`${base}/v0/environments/${environment.id}`)).status];
        statuses.push((await fetch(`${base}/v0/environments`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name": 5}' })).status);
        answer.body = { ...environment, name: 5 };
        statuses.push((await fetch(`${base}/v0/environments/${environment.id}`)).status);
        return statuses;
      });
    try {
      expect(await serve(false)).toEqual([200, 400, 500]);
      expect(metaSchemas, 'the meta-schema was compiled without validateApiSpec: the patch is not applied (run npm ci)').toBe(0);
      expect(await serve(true)).toEqual([200, 400, 500]);
      expect(metaSchemas, 'with validateApiSpec the meta-schema is compiled').toBe(1);
    } finally {
      metaSchemaModule.OpenAPISchemaValidator = MetaSchema;
      Object.assign(ajvModule, creators);
    }
    expect(new Set(compiled.map((schema) => schema.kind))).toEqual(new Set(['createRequestAjv', 'createResponseAjv']));
    expect(
      compiled.filter((schema) => schema.keys.includes('paths')),
      'schemas compiled with the whole spec\'s paths: the patch is not applied (run npm ci)',
    ).toEqual([]);
    expect(compiled.every((schema) => schema.keys.includes('components'))).toBe(true);
  });
  it('engages: while the validator prepares the spec, the schemas it references are looked up in it, not compiled', async () => {
    const createRequestAjv = ajvModule.createRequestAjv;
    let compiledWhilePreparing = 0;
    ajvModule.createRequestAjv = (...args: unknown[]) => {
      const ajv = createRequestAjv(...args);
      const getSchema = ajv.getSchema.bind(ajv);
      ajv.getSchema = (key) => {
        if (new Error().stack?.includes('schema.preprocessor')) compiledWhilePreparing += 1;
        return getSchema(key);
      };
      return ajv;
    };
    try {
      // A body and a query that the referenced schemas refuse: they are still applied.
      const refuse: ErrorRequestHandler = (error: { status?: number }, _req, res, _next) => void res.status(error.status ?? 500).end();
      const answer: RequestHandler = (_req, res) => void res.status(204).end();
      const statuses = await whileServing({ validateResponses: true }, [answer, refuse], async (base) => [
        (await fetch(`${base}/v0/environments`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name": 5}' })).status,
        (await fetch(`${base}/v0/environments?max_items=nine`)).status,
      ]);
      expect(statuses).toEqual([400, 400]);
    } finally {
      ajvModule.createRequestAjv = createRequestAjv;
    }
    expect(compiledWhilePreparing, 'the validator compiled referenced schemas while preparing the spec: the patch is not applied (run npm ci)').toBe(0);
  });
});
