import type { Request } from 'express';
import { csrfMatches } from '../domain/console/sessions.js';
import { AppError } from '../domain/errors.js';
import { textProblem } from '../domain/text.js';
import type { Services } from '../services.js';
import { SESSION_COOKIE, cookieOf } from './console/cookies.js';
import type { ConsolePrincipal } from './console/types.js';
import { keepRefusal } from './credential-refusals.js';
import { CSRF_REFUSED } from './errors.js';
import { keepIfUnavailable } from './unavailable.js';

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
 * Each handler answering at most once per request, whoever asks: the validator's security check asks again, on its
 * full path, when the one-requirement path of its patch did not pass (patches/express-openapi-validator+5.6.2.patch).
 */
export function oncePerRequest(handlers: Record<string, SecurityHandler>): Record<string, SecurityHandler> {
  return Object.fromEntries(
    Object.entries(handlers).map(([name, handler]) => {
      const answers = new WeakMap<Request, Promise<boolean>>();
      const once: SecurityHandler = (req) => {
        let answer = answers.get(req);
        if (!answer) {
          answer = handler(req);
          answers.set(req, answer);
        }
        return answer;
      };
      return [name, once];
    }),
  );
}

/**
 * The validator answers 401 for anything a security handler throws without a status, so a failure to check the
 * credentials (the database is down) would pass for bad credentials; it is marked a server error instead, keeping
 * its message for the log only. An attempt refused unchecked (too many failed authentications) is kept on the
 * request, to be answered as it is (429 with Retry-After).
 */
function failingLookup(req: Request, error: unknown): never {
  if (typeof (error as { status?: unknown })?.status === 'number') throw error;
  if (error instanceof AppError && error.code === 'rate_limited') {
    keepRefusal(req, error);
    throw Object.assign(new Error(error.message), { status: 429 });
  }
  keepIfUnavailable(req, error);
  throw Object.assign(new Error(`checking the credentials failed: ${(error as Error)?.message ?? String(error)}`, { cause: error }), { status: 500 });
}

/** The client's address that authentication limits count: the socket's, or what a trusted proxy says (TRUST_PROXY). */
const clientAddress = (req: Request): string => req.ip ?? '';

/**
 * The validator calls this for operations whose spec requires `basicAuth`: it resolves the principal from the
 * credentials sent from the client's address, or refuses (401 with the API's body and challenge, or 429 past a
 * limit of failed authentications).
 */
export function basicAuth<P>(authenticate: (user: string, secret: string, address: string) => Promise<P | undefined>): SecurityHandler {
  return async (req) => {
    const credentials = basicCredentials(req);
    const principal =
      credentials && (await authenticate(credentials.user, credentials.secret, clientAddress(req)).catch((error: unknown) => failingLookup(req, error)));
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
    return token
      ? services.consoleAuth.session(token, clientAddress(req)).then(
          (session) => session && { session, token },
          (error: unknown) => failingLookup(req, error),
        )
      : Promise.resolve(undefined);
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
