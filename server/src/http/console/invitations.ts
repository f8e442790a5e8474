import { SESSION_SECONDS } from '../../domain/console/sessions.js';
import type { HandlerContext } from '../context.js';
import { SESSION_COOKIE, sessionCookie } from './cookies.js';
import { sessionBody } from './presenters.js';
import type { Req, Res } from './types.js';

export async function getInvitation(req: Req<'getInvitation'>, { services }: HandlerContext): Res<'getInvitation'> {
  const invitation = await services.invitations.describe(req.path.token, req.remoteAddress);
  return {
    status: 200,
    body: {
      email: invitation.email,
      organization: { id: invitation.organization.id, name: invitation.organization.name },
      groups: invitation.groups.map((group) => ({ id: group.id, name: group.name, policy: group.policy })),
      expires_at: invitation.expiresAt,
    },
    headers: { 'Cache-Control': 'no-store' },
  };
}

export async function acceptInvitation(req: Req<'acceptInvitation'>, { services }: HandlerContext): Res<'acceptInvitation'> {
  const signedIn = await services.invitations.accept(req.path.token, req.body.password, req.remoteAddress, req.cookie(SESSION_COOKIE));
  return {
    status: 200,
    body: sessionBody(signedIn),
    headers: { 'Set-Cookie': sessionCookie(signedIn.token, SESSION_SECONDS, req.secure), 'Cache-Control': 'no-store' },
  };
}
