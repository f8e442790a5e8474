import { SESSION_SECONDS } from '../../domain/console/sessions.js';
import type { HandlerContext } from '../context.js';
import { SESSION_COOKIE, sessionCookie } from './cookies.js';
import { sessionBody } from './presenters.js';
import type { Req, Res } from './types.js';

export async function signIn(req: Req<'signIn'>, { services }: HandlerContext): Res<'signIn'> {
  const signedIn = await services.consoleAuth.signIn(req.body.email, req.body.password, req.remoteAddress, req.cookie(SESSION_COOKIE));
  return {
    status: 200,
    body: sessionBody(signedIn),
    headers: { 'Set-Cookie': sessionCookie(signedIn.token, SESSION_SECONDS, req.secure), 'Cache-Control': 'no-store' },
  };
}

export async function getSession(req: Req<'getSession'>, _context: HandlerContext): Res<'getSession'> {
  return { status: 200, body: sessionBody(req.principal.session), headers: { 'Cache-Control': 'no-store' } };
}

export async function signOut(req: Req<'signOut'>, { services }: HandlerContext): Res<'signOut'> {
  await services.consoleAuth.signOut(req.principal.token);
  return { status: 204, body: undefined, headers: { 'Set-Cookie': sessionCookie('', 0, req.secure) } };
}
