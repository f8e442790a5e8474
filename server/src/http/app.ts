import * as OpenApiValidator from 'express-openapi-validator';
import express, { type ErrorRequestHandler, type Express, type RequestHandler } from 'express';
import { pino, type Logger } from 'pino';
import { AppError } from '../domain/errors.js';
import type { Metrics } from '../metrics.js';
import type { Services } from '../services.js';
import { databaseAnswers } from '../storage/database.js';
import { API_NAMES, loadApiDocument, type ApiDocument, type ApiName } from './apis.js';
import { complianceAnswerVersions } from './compliance/answer-versions.js';
import { complianceHandlers } from './compliance/index.js';
import { conductorHandlers } from './conductor/index.js';
import { authorizeCompliance } from './compliance/authorization.js';
import { authorizeConductor } from './conductor/authorization.js';
import { consoleHandlers } from './console/index.js';
import { authorizeConsole } from './console/authorization.js';
import type { CorsOrigins, TrustProxy } from '../config.js';
import { mountConsole } from './console-app.js';
import { withBoundsFirst } from './bounds-first.js';
import { compressWhenAsked } from './compression.js';
import { crossOrigin, crossOriginMockControls } from './cors.js';
import { mountDocs } from './docs.js';
import type { HandlerContext } from './context.js';
import { ConditionalAnswers, EdgeCache, type AnswerVersions } from './edge-cache.js';
import { errorRenderer } from './errors.js';
import { writeJsonDirectly } from './json-response.js';
import { MockFaults, steeredByPrefer } from './mock-steering.js';
import { logRequests } from './request-log.js';
import { bindOperations, dispatcher } from './registry.js';
import { QueryParameterCheck } from './query-parameters.js';
import { basicAuth, consoleSecurity, oncePerRequest, type SecurityHandler } from './security.js';
import { refuseInvalidText } from './text.js';

export interface AppOptions {
  services: Services;
  /** Validate every response against the spec (always on in tests; configurable in production). */
  validateResponses: boolean;
  /** Body size limit for archives on the conductor API. */
  archiveLimitBytes?: number;
  /**
   * Called with the API and operationId of every request right before its handler runs (after authentication,
   * validation and authorization); what it throws is answered like an error of the handler. Tests inject faults
   * through it; production leaves it unset.
   */
  beforeHandler?: (api: ApiName, operationId: string) => void | Promise<void>;
  /** The stateful mock only (`MOCK_RESET=true`): restores the demo state; mounted as `POST /mock/reset`. */
  mockReset?: () => Promise<number>;
  /**
   * The stateful mock only: its scenarios, listed by `GET /mock/scenarios` and loaded by `POST /mock/scenarios/{name}`;
   * without `mockReset`, `POST /mock/reset` loads `demo`.
   */
  mockScenarios?: MockScenarios;
  /** Origins whose pages may call the APIs from a browser (CORS_ORIGINS); unset, cross-origin calls are refused. */
  corsOrigins?: CorsOrigins;
  /** Which proxies to believe about the client's address and scheme (TRUST_PROXY); unset, none. */
  trustProxy?: TrustProxy;
  /** Where the line of every request goes (and `req.log`); unset, nowhere. */
  log?: Logger;
  /** Times every API request; also answers GET /metrics unless `metricsOnOwnPort` (METRICS_PORT) serves them. */
  metrics?: Metrics;
  metricsOnOwnPort?: boolean;
  /** Bytes of answers the edge cache keeps at most (edge-cache.ts; default DEFAULT_EDGE_CACHE_BYTES). */
  edgeCacheBytes?: number;
}

/** The data sets the stateful mock loads by name (server/src/demo/mock.ts). */
export interface MockScenarios {
  list(): Array<{ name: string; description: string; ready: boolean }>;
  /** Replaces the state with the scenario's data set (a listed name); resolves to how long it took, in milliseconds. */
  load(name: string): Promise<number>;
}

export interface App {
  express: Express;
  /** Flip to make /readyz answer 503 while the server drains. */
  setDraining(draining: boolean): void;
}

const JSON_LIMIT = '1mb';
/** How long /readyz waits for the database to answer before it says the server is not ready. */
const READINESS_TIMEOUT_MS = 1_000;

function securityHandlers(api: ApiName, services: Services): Record<string, SecurityHandler> {
  switch (api) {
    case 'compliance':
      return { basicAuth: basicAuth((user, secret, address) => services.apiClients.authenticate(user, secret, address)) };
    case 'conductor':
      return { basicAuth: basicAuth((user, secret, address) => services.conductorUsers.authenticate(user, secret, address)) };
    case 'console':
      return consoleSecurity(services);
  }
}

const HANDLERS: Record<ApiName, object> = {
  compliance: complianceHandlers,
  conductor: conductorHandlers,
  console: consoleHandlers,
};

/** How each API's operations that declare 304 are versioned for the edge cache; an API without any has none. */
const ANSWER_VERSIONS: Record<ApiName, AnswerVersions<never> | undefined> = {
  compliance: complianceAnswerVersions,
  conductor: undefined,
  console: undefined,
};

function bodyParsers(api: ApiName, archiveLimitBytes: number): RequestHandler[] {
  const json = express.json({ limit: JSON_LIMIT, type: 'application/json' });
  if (api !== 'conductor') return [whenBodySent(json)];
  return [whenBodySent(json), whenBodySent(express.raw({ limit: archiveLimitBytes, type: ['application/x-tar', 'application/octet-stream'] }))];
}

/**
 * A body parser run only on requests that send a body, by body-parser's own test (type-is `hasBody`): on the rest
 * it would find that out itself, after checking whether the request already ended and logging that it skips.
 */
function whenBodySent(parser: RequestHandler): RequestHandler {
  return (req, res, next) => {
    if (req.headers['transfer-encoding'] !== undefined || !Number.isNaN(Number(req.headers['content-length'] ?? NaN))) return parser(req, res, next);
    next();
  };
}

/**
 * express-openapi-validator over one API, as every request of it is checked: the operation matched, the security
 * handlers (each at most once per request), the body's bounds (bounds-first.ts), the parameters and body (every
 * problem of a request, not only the first), and, when asked, every response. The validator runs as patched
 * (patches/express-openapi-validator+5.6.2.patch; docs/performance.md says what that saves).
 */
export function validatingHandlers(api: ApiDocument, handlers: Record<string, SecurityHandler>, validateResponses: boolean): RequestHandler[] {
  const security = oncePerRequest(handlers);
  const validator = OpenApiValidator.middleware({
    apiSpec: structuredClone(api.openapi) as never,
    validateApiSpec: false,
    // Every problem of a request, not only the first: a 400 lists them all (errors.ts caps what it renders). Unknown
    // query parameters are found beside the validator, which would stop at the first (query-parameters.ts).
    validateRequests: { allowUnknownQueryParameters: true, allErrors: true },
    validateResponses: validateResponses ? { allErrors: true } : false,
    validateSecurity: { handlers: security },
    validateFormats: true,
    ignoreUndocumented: false,
    // No operation takes multipart/form-data; without this the validator runs multer's check on every request.
    fileUploader: false,
  });
  return withBoundsFirst(validator, api.openapi);
}

/** One API mounted at its base path: parse, validate (security first), refuse text no store keeps, dispatch, render errors. */
function mountApi(app: Express, api: ApiDocument, options: AppOptions, context: HandlerContext, faults: MockFaults | undefined, cache: EdgeCache): void {
  const table = bindOperations(api, HANDLERS[api.name]);
  const conditional = ConditionalAnswers.bind(api, cache, ANSWER_VERSIONS[api.name]);
  // Names the API on the request for its log line and duration metric, whatever answers it.
  const tagApi: RequestHandler = (_req, res, next) => {
    res.locals.api = api.name;
    next();
  };
  const queryCheck = new QueryParameterCheck(api.openapi);
  const mock = mockResetOf(options) !== undefined;
  app.use(
    api.basePath,
    inOneLayer([
      tagApi,
      ...(options.corsOrigins ? [crossOrigin(api, options.corsOrigins, { sameHostCredentials: mock, acceptsPrefer: mock })] : []),
      ...bodyParsers(api.name, options.archiveLimitBytes ?? 10 * 1024 * 1024),
      ...validatingHandlers(api, securityHandlers(api.name, options.services), options.validateResponses),
      queryCheck.refuse(),
      refuseInvalidText(),
      // The stateful mock answers what a `Prefer` header asks for, before any policy or handler.
      ...(mock ? [steeredByPrefer(api, faults)] : []),
      // Group policies and rbac: after authentication and validation, before any handler runs.
      ...(api.name === 'compliance' ? [authorizeCompliance(api, options.services)] : []),
      ...(api.name === 'conductor' ? [authorizeConductor(api, options.services.rbac)] : []),
      ...(api.name === 'console' ? [authorizeConsole(api)] : []),
      dispatcher(table, context, {
        validatingResponses: options.validateResponses,
        conditional,
        ...(options.beforeHandler && { beforeHandler: (operationId: string) => options.beforeHandler!(api.name, operationId) }),
      }),
      () => {
        throw new AppError('not_found', 'no such operation; see the API documentation at /docs');
      },
    ]),
    errorRenderer(api.name, queryCheck),
  );
}

/**
 * Handlers run one after the other as a single router layer, as Express would run them as separate layers: each
 * `next()` goes on, `next(error)`, a throw or a rejected promise goes to the error handlers after the layer. One
 * layer instead of a dozen saves Express matching the base path and rewriting the URL before each of them.
 */
export function inOneLayer(handlers: RequestHandler[]): RequestHandler {
  return (req, res, done) => {
    let index = 0;
    const next = (error?: unknown): void => {
      // `next(null)` goes on, as in Express: the cors middleware calls it so for a request without an Origin.
      if ((error !== undefined && error !== null) || index === handlers.length) return done((error ?? undefined) as Error | undefined);
      const handler = handlers[index++]!;
      try {
        const result: unknown = handler(req, res, next);
        if (result instanceof Promise) result.catch((reason: unknown) => next(reason ?? new Error('rejected promise')));
      } catch (thrown) {
        next(thrown);
      }
    };
    next();
  };
}

/** The stateful mock's reset, when the server is one: as given, or loading the `demo` scenario. */
function mockResetOf(options: AppOptions): (() => Promise<number>) | undefined {
  const { mockReset, mockScenarios } = options;
  return mockReset ?? (mockScenarios && (() => mockScenarios.load('demo')));
}

/** Milliseconds as the mock controls answer them: to a tenth. */
const tenths = (ms: number) => Math.round(ms * 10) / 10;

/** Builds the whole server without listening; `main.ts` listens, tests use port 0. */
export function createApp(options: AppOptions): App {
  const apis = Object.fromEntries(API_NAMES.map((name) => [name, loadApiDocument(name)])) as Record<ApiName, ApiDocument>;
  const context: HandlerContext = { services: options.services, apis };
  let draining = false;

  const app = express();
  writeJsonDirectly(app);
  // First of all: every answer, whoever gives it, carries the request id, and every request is logged and timed.
  const { metrics } = options;
  logRequests(app, {
    log: options.log ?? pino({ level: 'silent' }),
    ...(metrics && { timer: (api, operationId, status, seconds) => metrics.requestFinished(api, operationId, status, seconds) }),
  });
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(compressWhenAsked());
  // Query strings decode as application/x-www-form-urlencoded (node:querystring: `+` and `%20` are a space). The
  // specs let reserved characters through unencoded (allowReserved, scripts/pipeline.ts), so this decoding is the
  // only one, and the validator judges its result.
  app.set('query parser', 'simple');
  // Only the proxies the operator named may say who the client is and whether it came over TLS.
  app.set('trust proxy', options.trustProxy ?? false);
  // While draining, every answer closes its connection, so keep-alive clients do not hold the shutdown up.
  app.use((_req, res, next) => {
    if (draining) res.set('Connection', 'close');
    next();
  });

  // The APIs first: Express tries each layer in turn, and API requests are the many.
  const mockReset = mockResetOf(options);
  const faults = mockReset ? new MockFaults(Object.values(apis)) : undefined;
  // The server's one cache: answers of the operations that declare 304, by the versions the database keeps.
  const cache = new EdgeCache({ validating: options.validateResponses, ...(options.edgeCacheBytes !== undefined && { maxBytes: options.edgeCacheBytes }) });
  for (const api of Object.values(apis)) mountApi(app, api, options, context, faults, cache);

  // Someone who opens the server's address in a browser is looking for the documentation.
  app.get('/', (_req, res) => res.redirect(302, '/docs/'));
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    if (draining) return void res.status(503).json({ status: 'draining' });
    // Asked apart from the pool and within a bound of its own: a pool busy or waiting on a lock holds no probe up.
    if (await databaseAnswers(options.services.database, READINESS_TIMEOUT_MS)) res.json({ status: 'ready' });
    else res.status(503).json({ status: 'database unavailable' });
  });

  if (metrics && !options.metricsOnOwnPort) {
    // An operator endpoint like the probes: no credentials, in no API's spec.
    app.get('/metrics', async (_req, res) => {
      res.type(metrics.contentType).send(await metrics.text());
    });
  }

  if (mockReset && faults) {
    if (options.corsOrigins) app.use('/mock', crossOriginMockControls(options.corsOrigins));
    app.post('/mock/reset', async (req, res) => {
      try {
        faults.clear();
        res.json({ status: 'reset', duration_ms: tenths(await mockReset()) });
      } catch (error) {
        req.log.error({ err: error }, 'mock reset failed');
        res.status(500).json({ status: 'reset failed', message: String(error) });
      }
    });
    // Mock controls, like the reset: no credentials, in no API's spec; a refusal is `{"message": …}` with 400.
    const { mockScenarios } = options;
    if (mockScenarios) {
      app.get('/mock/scenarios', (_req, res) => {
        res.json({ scenarios: mockScenarios.list() });
      });
      app.post('/mock/scenarios/:name', async (req, res) => {
        const known = mockScenarios.list().map((scenario) => scenario.name);
        const { name } = req.params;
        if (!known.includes(name)) {
          return void res.status(404).json({ message: `no scenario '${name.slice(0, 80)}': the scenarios are ${known.join(', ')}` });
        }
        try {
          faults.clear();
          res.json({ scenario: name, duration_ms: tenths(await mockScenarios.load(name)) });
        } catch (error) {
          req.log.error({ err: error, scenario: name }, 'loading a mock scenario failed');
          res.status(500).json({ message: `loading the scenario '${name}' failed: ${String(error)}` });
        }
      });
    }
    app.get('/mock/faults', (_req, res) => {
      res.json({ faults: faults.list() });
    });
    app.post('/mock/faults', express.json({ limit: '4kb' }), (req, res) => {
      try {
        res.status(201).json(faults.arm(req.body));
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        res.status(400).json({ message: error.message });
      }
    });
    app.delete('/mock/faults', (_req, res) => {
      faults.clear();
      res.status(204).end();
    });
    // A body that is no JSON, or too large, is refused in the same shape.
    const refusedBody: ErrorRequestHandler = (error, _req, res, next) => {
      const status = (error as { status?: unknown }).status;
      if (typeof status !== 'number' || status < 400 || status >= 500) return next(error);
      res.status(status).json({ message: (error as Error).message });
    };
    app.use('/mock', refusedBody);
  }

  mountDocs(app, apis);

  // The console's pages at /console; anything under /console/api is the console API's, mounted above.
  mountConsole(app);

  return { express: app, setDraining: (value) => (draining = value) };
}
