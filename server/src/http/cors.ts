import cors from 'cors';
import type { Request, RequestHandler } from 'express';
import type { CorsOrigins } from '../config.js';
import type { ApiDocument } from './apis.js';

/**
 * What a browser page may send each API: its credentials and bodies, the console's CSRF token, its request id, and
 * the ETag of an answer it holds (the compliance API's conditional requests, http/edge-cache.ts).
 */
const REQUEST_HEADERS = {
  compliance: ['Authorization', 'Content-Type', 'If-None-Match', 'X-Request-Id'],
  conductor: ['Authorization', 'Content-Type', 'X-Request-Id'],
  console: ['Content-Type', 'X-CSRF-Token', 'X-Request-Id'],
} as const;

/** Answer headers a page may read besides the simple ones. */
const EXPOSED_HEADERS = ['ETag', 'Location', 'Retry-After', 'WWW-Authenticate', 'X-Request-Id'];

/**
 * Whether `origin` names the host the request was sent to, over the same scheme, on any port: such a page is of the
 * same site as the server (a site ignores the port), so the browser sends it the SameSite=Strict session cookie.
 * Hosts that differ are treated as other sites, even where a registrable domain would join them.
 */
function sameHost(origin: string | undefined, req: Request): boolean {
  if (origin === undefined) return false;
  try {
    const page = new URL(origin);
    return page.protocol === `${req.protocol}:` && page.hostname === req.hostname;
  } catch {
    // `null` (a sandboxed or file: page) and anything else that is no origin.
    return false;
  }
}

export interface CrossOriginOptions {
  /**
   * The stateful mock only: with `*`, the console API also lets a page of the server's own host on another port
   * (a frontend's dev server) call it with credentials, so it can sign in. Other origins keep `*` without them.
   */
  sameHostCredentials?: boolean;
  /** The stateful mock only: pages may send `Prefer` (http/mock-steering.ts). */
  acceptsPrefer?: boolean;
}

/**
 * Cross-origin access to one API for pages served from `origins` (CORS_ORIGINS): preflights are answered 204 with
 * the methods the API's operations use and the headers it reads. With `*` any origin may call, without
 * credentials; the console's session cookie travels only to an origin listed by name (and the cookie itself is
 * SameSite=Strict, so only from the same site), or, on the stateful mock, to a page of the server's own host.
 * Basic credentials are a header, allowed either way.
 */
export function crossOrigin(api: ApiDocument, origins: CorsOrigins, options: CrossOriginOptions = {}): RequestHandler {
  const methods = [...new Set(api.operations.map((operation) => operation.method.toUpperCase()))];
  const listed = origins === '*' ? undefined : new Set(origins);
  const allowedHeaders = [...REQUEST_HEADERS[api.name], ...(options.acceptsPrefer ? ['Prefer'] : [])];
  const common = { methods, allowedHeaders, exposedHeaders: EXPOSED_HEADERS, maxAge: 600 };
  if (listed === undefined && api.name === 'console' && options.sameHostCredentials) {
    const perRequest = cors((req, callback) => {
      const origin = req.headers.origin;
      const ownHost = sameHost(origin, req as Request);
      callback(null, { ...common, origin: ownHost ? origin : '*', credentials: ownHost });
    });
    return (req, res, next) => {
      // The answer depends on the origin either way, so no cache may hand one origin's answer to another.
      res.vary('Origin');
      perRequest(req, res, next);
    };
  }
  return cors({
    ...common,
    origin: listed === undefined ? '*' : (origin, allow) => allow(null, origin !== undefined && listed.has(origin) ? origin : false),
    credentials: api.name === 'console' && listed !== undefined,
  });
}

/** Cross-origin access to the stateful mock's controls (`/mock/…`): as to its APIs, without credentials. */
export function crossOriginMockControls(origins: CorsOrigins): RequestHandler {
  const listed = origins === '*' ? undefined : new Set(origins);
  return cors({
    methods: ['GET', 'POST', 'DELETE'],
    allowedHeaders: ['Content-Type', 'X-Request-Id'],
    exposedHeaders: EXPOSED_HEADERS,
    maxAge: 600,
    origin: listed === undefined ? '*' : (origin, allow) => allow(null, origin !== undefined && listed.has(origin) ? origin : false),
  });
}
