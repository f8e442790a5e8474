import type { UserWithGroups } from '../../domain/access/types.js';
import type { HandlerContext } from '../context.js';
import { pageBody } from '../paging.js';
import { namesById } from './named-refs.js';
import type { Req, Res, Schemas } from './types.js';

function userBody({ user, groups }: UserWithGroups): Schemas['User'] {
  return {
    id: user.id,
    email: user.email,
    ...(user.firstName !== null && { first_name: user.firstName }),
    ...(user.lastName !== null && { last_name: user.lastName }),
    owner: user.owner,
    status: user.status,
    groups: namesById(groups),
    resource_type: 'user',
  };
}

export async function listUsers(req: Req<'listUsers'>, { services }: HandlerContext): Res<'listUsers'> {
  const { offset = 0, max_items = 100, order_direction = 'desc', email } = req.query;
  const page = await services.access.listUsers(req.principal.orgId, email, { offset, limit: max_items }, order_direction);
  return { status: 200, body: pageBody(page, offset, userBody) };
}

export async function getUserById(req: Req<'getUserById'>, { services }: HandlerContext): Res<'getUserById'> {
  return { status: 200, body: userBody(await services.access.getUser(req.principal.orgId, req.path.user_id)) };
}
