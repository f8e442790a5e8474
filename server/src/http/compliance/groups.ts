import type { Group } from '../../domain/access/types.js';
import type { HandlerContext } from '../context.js';
import { pageBody } from '../paging.js';
import { namesById } from './named-refs.js';
import type { Req, Res, Schemas } from './types.js';

function groupBody(group: Group): Schemas['Group'] {
  return {
    id: group.id,
    name: group.name,
    policy: group.policy,
    environments: group.allEnvironments ? { '*': 'All environments' } : namesById(group.environments),
    users: namesById(group.users),
    api_clients: namesById(group.apiClients),
  };
}

export async function listGroups(req: Req<'listGroups'>, { services }: HandlerContext): Res<'listGroups'> {
  const { offset = 0, max_items = 10, order_direction = 'asc' } = req.query;
  const page = await services.access.listGroups(req.principal.orgId, { offset, limit: max_items }, order_direction, req.principal.grants.environmentsAllowing('read'));
  return { status: 200, body: pageBody(page, offset, groupBody) };
}

export async function createGroup(req: Req<'createGroup'>, { services }: HandlerContext): Res<'createGroup'> {
  return { status: 201, body: groupBody(await services.access.createGroup(req.principal.orgId, req.body)) };
}

export async function editUsersGroupAssignments(req: Req<'editUsersGroupAssignments'>, { services }: HandlerContext): Res<'editUsersGroupAssignments'> {
  await services.access.assignGroups(req.principal.orgId, req.body.user_ids, req.body.group_ids);
  return { status: 200, body: undefined };
}
