import type { Request } from 'express';
import { csrfMatches } from '../domain/console/sessions.js';
import { textProblem } from '../domain/text.js';
import type { Services } from '../services.js';
import { SESSION_COOKIE, cookieOf } from './console/cookies.js';
import type { ConsolePrincipal } from './console/types.js';
import { CSRF_REFUSED } from './errors.js';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** Who is calling, set by the security handler of the matched operation. */
      principal?: unknown;
      /** The operation express-openapi-validator matched. */
      openapi?: import('express-openapi-validator/dist/framework/types.js').OpenApiRequestMetadata;
    }
  }
}

/**
 * Reads `Authorization: Basic base64(user:secret)`; undefined when absent or malformed. A user name or secret that
 * is not storable text (a NUL, a lone surrogate) is malformed: refused as bad credentials before any lookup.
 */
export function basicCredentials(req: Request): { user: string; secret: string } | undefined {
  const header = req.headers.authorization;
  if (!header) return undefined;
  const match = /^Basic ([A-Za-z0-9+/=]+)$/i.exec(header.trim());
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return undefined;
  const user = decoded.slice(0, colon);
  const secret = decoded.slice(colon + 1);
  if (textProblem(user) !== undefined || textProblem(secret) !== undefined) return undefined;
  return { user, secret };
}

export type SecurityHandler = (req: Request) => Promise<boolean>;

/**
 * The validator answers 401 for anything a security handler throws without a status, so a failure to check the
 * credentials (the database is down) would pass for bad credentials; it is marked a server error instead, keeping
 * its message for the log only.
 */
function failingLookup(error: unknown): never {
  if (typeof (error as { status?: unknown })?.status === 'number') throw error;
  throw Object.assign(new Error(`checking the credentials failed: ${(error as Error)?.message ?? String(error)}`, { cause: error }), { status: 500 });
}

/**
 * The validator calls this for operations whose spec requires `basicAuth`: it resolves the principal from the
 * credentials, or refuses (401 with the API's body and challenge).
 */
export function basicAuth<P>(authenticate: (user: string, secret: string) => Promise<P | undefined>): SecurityHandler {
  return async (req) => {
    const credentials = basicCredentials(req);
    const principal = credentials && (await authenticate(credentials.user, credentials.secret).catch(failingLookup));
    if (!principal) return false;
    req.principal = principal;
    return true;
  };
}

/**
 * The session lookup of a request, kept on the request itself. In a WeakMap keyed by the request, the session,
 * user and organization it found outlived the request: each survived young-generation collections and went to the
 * old generation (~500 B per answer).
 */
const SESSION_LOOKUP = Symbol('console session lookup');
type WithSessionLookup = { [SESSION_LOOKUP]?: Promise<ConsolePrincipal | undefined> };

/**
 * The console's two schemes: the session cookie, and the CSRF token header on state-changing calls. The validator
 * runs both handlers of a requirement at once, so each looks the session up through one lookup per request.
 */
export function consoleSecurity(services: Services): Record<string, SecurityHandler> {
  const lookUp = (req: Request): Promise<ConsolePrincipal | undefined> => {
    const token = cookieOf(req, SESSION_COOKIE);
    return token ? services.consoleAuth.session(token).then((session) => session && { session, token }, failingLookup) : Promise.resolve(undefined);
  };
  const principalOf = (req: Request & WithSessionLookup) => (req[SESSION_LOOKUP] ??= lookUp(req));
  return {
    consoleSession: async (req) => {
      const principal = await principalOf(req);
      if (!principal) return false;
      req.principal = principal;
      return true;
    },
    csrfToken: async (req) => {
      const principal = await principalOf(req);
      if (!principal) return false;
      if (!csrfMatches(req.get('x-csrf-token'), principal.session.csrfToken)) throw Object.assign(new Error(CSRF_REFUSED), { status: 403 });
      return true;
    },
  };
}
