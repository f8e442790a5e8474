import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import type { Logger } from 'pino';
import { pinoHttp } from 'pino-http';
import type { ApiName } from './apis.js';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** The API whose base path the request is under; unset for the docs, the console's pages and the probes. */
      api?: ApiName;
    }
  }
}

export const REQUEST_ID_HEADER = 'X-Request-Id';

/** What an incoming X-Request-Id may be to be kept: short, and nothing a log line or a header could trip over. */
const ACCEPTED_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The request's id: the caller's X-Request-Id when it is acceptable, otherwise a new UUID. */
export function requestIdOf(sent: string | string[] | undefined): string {
  return typeof sent === 'string' && ACCEPTED_REQUEST_ID.test(sent) ? sent : randomUUID();
}

/** Probes and scrapes come every few seconds from machines; a line for each would bury the requests of people. */
const UNLOGGED_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

/** Receives the duration of every finished API request (the request duration histogram). */
export type RequestTimer = (api: ApiName, operationId: string, status: number, seconds: number) => void;

export interface RequestLogOptions {
  log: Logger;
  /** Called once per finished API request, with what its log line says. */
  timer?: RequestTimer;
}

const STARTED = Symbol('started');
/** The message of the error pino-http makes up for a 5xx answered without one. */
const SYNTHETIC_ERROR = /^failed with status code \d+$/;
type TimedResponse = ServerResponse & { [STARTED]?: number };

/**
 * Who called, for the log: the API client's id, the conductor user's name or the console user's email, as the
 * security handler resolved them. Never anything the caller proved itself with.
 */
function callerOf(api: ApiName | undefined, principal: unknown): string | undefined {
  if (principal === undefined || principal === null) return undefined;
  switch (api) {
    case 'compliance':
      return (principal as { clientId?: string }).clientId;
    case 'conductor':
      return (principal as { user?: string }).user;
    case 'console':
      return (principal as { session?: { user?: { email?: string } } }).session?.user?.email;
    default:
      return undefined;
  }
}

/** The path without its query string: queries are the caller's to fill, and a careless one could hold a secret. */
function pathOf(req: IncomingMessage & { originalUrl?: string }): string {
  const url = req.originalUrl ?? req.url ?? '';
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

/** `GET /v0/environments 200`, or `… aborted by the client` when the connection closed before the answer was sent. */
function messageOf(req: IncomingMessage, res: ServerResponse): string {
  return res.writableFinished ? `${req.method} ${pathOf(req)} ${res.statusCode}` : `${req.method} ${pathOf(req)} aborted by the client`;
}

/**
 * The first middleware of the app: gives the request its id (kept from X-Request-Id or made), answers it in
 * X-Request-Id whatever comes next (errors, 404s, validator 400s, CORS preflights), puts it on every line logged
 * through `req.log`, and writes one line per request once the answer is sent: request id, API, operationId,
 * method, path, status, duration and caller. Headers, cookies and bodies are never logged.
 *
 * The line and the duration metric are taken at the same moment, from pino-http's one finish listener, rather
 * than each from a listener of its own.
 */
export function requestLog({ log, timer }: RequestLogOptions): RequestHandler {
  const finished = (req: IncomingMessage, res: ServerResponse) => {
    const request = req as Express.Request;
    const started = (res as TimedResponse)[STARTED] ?? performance.now();
    const milliseconds = performance.now() - started;
    const operationId = request.openapi?.schema.operationId;
    const status = res.writableFinished || res.headersSent ? res.statusCode : 0;
    if (timer && request.api) timer(request.api, operationId ?? 'none', status, milliseconds / 1000);
    return {
      api: request.api,
      operationId,
      method: req.method,
      path: pathOf(req),
      status,
      durationMs: Math.round(milliseconds * 10) / 10,
      caller: callerOf(request.api, request.principal),
    };
  };
  const middleware = pinoHttp({
    logger: log,
    // The request's own child logger (`req.log`) carries the request id and nothing else of the request.
    quietReqLogger: true,
    quietResLogger: true,
    customAttributeKeys: { reqId: 'requestId' },
    genReqId: (req, res) => {
      (res as TimedResponse)[STARTED] = performance.now();
      const id = requestIdOf(req.headers['x-request-id']);
      res.setHeader(REQUEST_ID_HEADER, id);
      return id;
    },
    // No request or response object is ever serialized: the line is built by `finished` alone.
    wrapSerializers: false,
    serializers: { req: () => undefined, res: () => undefined },
    autoLogging: { ignore: (req) => UNLOGGED_PATHS.has(req.url ?? '') },
    customLogLevel: (req, res, error) => {
      if (error || res.err || (res.statusCode >= 500 && res.statusCode !== 501)) return 'error';
      return (req as Express.Request).api ? 'info' : 'debug';
    },
    customSuccessObject: (req, res) => finished(req, res),
    // pino-http takes any 5xx for an error and makes one up when none was thrown; only a real one is worth its stack.
    customErrorObject: (req, res, error) => {
      const thrown = res.err ?? (SYNTHETIC_ERROR.test(error.message) ? undefined : error);
      return thrown ? { ...finished(req, res), err: thrown } : finished(req, res);
    },
    customSuccessMessage: (req, res) => messageOf(req, res),
    customErrorMessage: (req, res) => messageOf(req, res),
  });
  return middleware as unknown as RequestHandler;
}
