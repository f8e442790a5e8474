import { parse, serialize } from 'cookie';
import type { Request } from 'express';

export const SESSION_COOKIE = 'console_session';

/**
 * The value of one cookie of the request, if sent: the `cookie` package's reading of the header, which keeps a value
 * whose %-escapes do not decode as sent rather than failing the request.
 */
export function cookieOf(req: Request, name: string): string | undefined {
  const header = req.headers.cookie;
  return header === undefined ? undefined : parse(header)[name];
}

/**
 * The console's session cookie: HttpOnly (no script reads it) and SameSite=Strict (no other site sends it), scoped to
 * the console; Secure when the request came over TLS, so that the browser never sends it over plain HTTP again.
 * An empty value with a max age of 0 ends it.
 */
export const sessionCookie = (value: string, maxAgeSeconds: number, secure: boolean): string =>
  serialize(SESSION_COOKIE, value, { path: '/console', httpOnly: true, sameSite: 'strict', maxAge: maxAgeSeconds, secure });
