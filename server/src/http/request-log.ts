import { randomUUID } from 'node:crypto';
import type { Express, Request, Response } from 'express';
import type { Logger } from 'pino';
import type { ApiName } from './apis.js';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** The request's id, as answered in X-Request-Id. */
      readonly id: string;
      /** The log of this request: every line carries its id. */
      readonly log: Logger;
    }
    interface Response {
      /** A server error the request failed with, for its log line (set by the error renderer). */
      err?: Error;
      /** The message of a 4xx answered, for its log line (set by the error renderer). */
      problem?: string;
    }
    interface Locals {
      requestId: string;
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

/** Paths that carry a credential: an invitation's token is the last segment of the console API's path. */
const CREDENTIAL_IN_PATH = /^(\/console\/api\/invitations\/)[^/]+/i;

/**
 * The path without its query string (queries are the caller's to fill, and a careless one could hold a secret), and
 * with an invitation's token replaced by `{token}`.
 */
function pathOf(req: Request): string {
  const url = req.originalUrl;
  const query = url.indexOf('?');
  const path = query === -1 ? url : url.slice(0, query);
  return path.replace(CREDENTIAL_IN_PATH, '$1{token}');
}

/**
 * Gives every request of `app` an id and a log line, as the first middleware:
 * - the id is the caller's X-Request-Id when acceptable, otherwise a new UUID; it is answered in X-Request-Id
 *   whatever comes next (errors, 404s, validator 400s, CORS preflights), and is `req.id`;
 * - `req.log` writes lines that carry the id;
 * - once the answer is sent (or the client leaves), one line: request id, API, operationId, method, path, status,
 *   duration and caller, at `info` (API requests), `debug` (the docs, the console's pages) or `error` (a server
 *   error, with the error and its stack; a 4xx, with the message answered as `problem`). Headers, cookies, query
 *   strings and bodies are never logged;
 * - the API request's duration goes to `timer`, from the same measurement.
 *
 * Written on pino directly rather than with pino-http, whose middleware adds seven properties to every request
 * and response and makes two child loggers; measured on this server, that cost more than the rest of the logging.
 * Here the id and the API go into `res.locals` (a plain object), the timing stays in one closure, and `req.log` is
 * made only when something logs.
 */
export function logRequests(app: Express, { log, timer }: RequestLogOptions): void {
  Object.defineProperties(app.request, {
    id: {
      configurable: true,
      get(this: Request) {
        return this.res?.locals.requestId;
      },
    },
    log: {
      configurable: true,
      get(this: Request) {
        const child = log.child({ requestId: this.id });
        Object.defineProperty(this, 'log', { value: child });
        return child;
      },
    },
  });

  const finished = (req: Request, res: Response, started: number) => {
    const seconds = (performance.now() - started) / 1000;
    const { api, requestId } = res.locals;
    const sent = res.writableFinished;
    const status = sent ? res.statusCode : 0;
    const operationId = req.openapi?.schema.operationId;
    if (timer && api) timer(api, operationId ?? 'none', status, seconds);
    const failed = res.err !== undefined || (status >= 500 && status !== 501);
    const level = failed ? 'error' : api ? 'info' : 'debug';
    if (!log.isLevelEnabled(level)) return;
    const path = pathOf(req);
    log[level](
      {
        requestId,
        api,
        operationId,
        method: req.method,
        path,
        status,
        durationMs: Math.round(seconds * 10_000) / 10,
        caller: callerOf(api, req.principal),
        ...(res.err && { err: res.err }),
        ...(res.problem !== undefined && { problem: res.problem }),
      },
      sent ? `${req.method} ${path} ${status}` : `${req.method} ${path} aborted by the client`,
    );
  };

  app.use((req, res, next) => {
    const started = performance.now();
    const id = requestIdOf(req.headers['x-request-id']);
    res.locals.requestId = id;
    res.setHeader(REQUEST_ID_HEADER, id);
    // 'close' comes once, after the answer was sent or when the client left before it was.
    if (!UNLOGGED_PATHS.has(req.url)) res.once('close', () => finished(req, res, started));
    next();
  });
}
