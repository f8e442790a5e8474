import type { InviteWithStatus } from '../../domain/access/types.js';
import type { HandlerContext } from '../context.js';
import { pageBody } from '../paging.js';
import { namesById } from './named-refs.js';
import type { Req, Res, Schemas } from './types.js';

function inviteBody(invite: InviteWithStatus): Schemas['Invite'] {
  return {
    id: invite.id,
    email: invite.email,
    groups: namesById(invite.groups),
    status: invite.status,
    created_at: invite.createdAt,
    updated_at: invite.updatedAt,
    expires_at: invite.expiresAt,
    delivery_error: invite.deliveryError,
    resource_type: 'invite',
  };
}

export async function listInvites(req: Req<'listInvites'>, { services }: HandlerContext): Res<'listInvites'> {
  const { offset = 0, max_items = 100, order_direction = 'desc', email } = req.query;
  const page = await services.access.listInvites(req.principal.orgId, email, { offset, limit: max_items }, order_direction);
  return { status: 200, body: pageBody(page, offset, inviteBody) };
}

export async function createInvite(req: Req<'createInvite'>, { services }: HandlerContext): Res<'createInvite'> {
  const invite = await services.access.createInvite(req.principal.orgId, req.body, { origin: req.origin, requestId: req.requestId });
  return { status: 201, body: inviteBody(invite) };
}

export async function getInviteById(req: Req<'getInviteById'>, { services }: HandlerContext): Res<'getInviteById'> {
  return { status: 200, body: inviteBody(await services.access.getInvite(req.principal.orgId, req.path.invite_id)) };
}
