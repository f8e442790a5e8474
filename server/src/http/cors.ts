import cors from 'cors';
import type { RequestHandler } from 'express';
import type { CorsOrigins } from '../config.js';
import type { ApiDocument } from './apis.js';

/** What a browser page may send each API: its credentials and bodies, the console's CSRF token, its request id. */
const REQUEST_HEADERS = {
  compliance: ['Authorization', 'Content-Type', 'X-Request-Id'],
  conductor: ['Authorization', 'Content-Type', 'X-Request-Id'],
  console: ['Content-Type', 'X-CSRF-Token', 'X-Request-Id'],
} as const;

/** Answer headers a page may read besides the simple ones. */
const EXPOSED_HEADERS = ['Location', 'Retry-After', 'WWW-Authenticate', 'X-Request-Id'];

/**
 * Cross-origin access to one API for pages served from `origins` (CORS_ORIGINS): preflights are answered 204 with
 * the methods the API's operations use and the headers it reads. With `*` any origin may call, without
 * credentials; the console's session cookie travels only to an origin listed by name (and the cookie itself is
 * SameSite=Strict, so only from the same site). Basic credentials are a header, allowed either way.
 */
export function crossOrigin(api: ApiDocument, origins: CorsOrigins): RequestHandler {
  const methods = [...new Set(api.operations.map((operation) => operation.method.toUpperCase()))];
  const listed = origins === '*' ? undefined : new Set(origins);
  return cors({
    origin: listed === undefined ? '*' : (origin, allow) => allow(null, origin !== undefined && listed.has(origin) ? origin : false),
    credentials: api.name === 'console' && listed !== undefined,
    methods,
    allowedHeaders: [...REQUEST_HEADERS[api.name]],
    exposedHeaders: EXPOSED_HEADERS,
    maxAge: 600,
  });
}
