import type { ApiClient } from '../../domain/repositories.js';
import type { HandlerContext } from '../context.js';
import type { Req, Res, Schemas } from './types.js';

function apiClientBody(client: ApiClient, now: number): Schemas['ApiClient'] {
  const active = client.status === 'Active';
  return {
    client_id: client.clientId,
    name: client.name,
    status: client.status,
    created_at: client.createdAt,
    secret_created_at: active ? client.secretCreatedAt : null,
    secret_age: active && client.secretCreatedAt !== null ? Math.max(0, now - client.secretCreatedAt) : null,
    last_activity_at: client.lastActivityAt,
  };
}

export async function listApiClients(req: Req<'listApiClients'>, { services }: HandlerContext): Res<'listApiClients'> {
  const { order_by = 'name', order_direction = 'asc', offset = 0, max_items = 10 } = req.query;
  const page = await services.apiClients.list(req.principal.session.organization.id, { by: order_by, direction: order_direction }, { offset, limit: max_items });
  const now = services.clock.nowSeconds();
  return {
    status: 200,
    body: {
      count: page.items.length,
      total: page.total,
      is_truncated: page.hasMore,
      items: page.items.map((c) => apiClientBody(c, now)),
      ...(page.hasMore ? { next_offset: offset + page.items.length } : {}),
    },
  };
}

export async function createApiClient(req: Req<'createApiClient'>, { services }: HandlerContext): Res<'createApiClient'> {
  const orgId = req.principal.session.organization.id;
  const headers = { 'Cache-Control': 'no-store' } as const;
  if (req.body.with_secret) {
    const { client, secret } = await services.apiClients.createActive(orgId, req.body.name);
    return { status: 201, body: { ...apiClientBody(client, services.clock.nowSeconds()), client_secret: secret }, headers };
  }
  const client = await services.apiClients.create(orgId, req.body.name);
  return { status: 201, body: apiClientBody(client, services.clock.nowSeconds()), headers };
}

export async function getApiClient(req: Req<'getApiClient'>, { services }: HandlerContext): Res<'getApiClient'> {
  const client = await services.apiClients.get(req.principal.session.organization.id, req.path.client_id);
  return { status: 200, body: apiClientBody(client, services.clock.nowSeconds()) };
}

export async function generateApiClientSecret(req: Req<'generateApiClientSecret'>, { services }: HandlerContext): Res<'generateApiClientSecret'> {
  const { client, secret } = await services.apiClients.generateSecret(req.principal.session.organization.id, req.path.client_id);
  return {
    status: 201,
    body: { client_id: client.clientId, client_secret: secret, api_client: apiClientBody(client, services.clock.nowSeconds()) },
    headers: { 'Cache-Control': 'no-store' },
  };
}

export async function revokeApiClientSecret(req: Req<'revokeApiClientSecret'>, { services }: HandlerContext): Res<'revokeApiClientSecret'> {
  const client = await services.apiClients.revokeSecret(req.principal.session.organization.id, req.path.client_id);
  return { status: 200, body: apiClientBody(client, services.clock.nowSeconds()) };
}

export async function deleteApiClient(req: Req<'deleteApiClient'>, { services }: HandlerContext): Res<'deleteApiClient'> {
  await services.apiClients.delete(req.principal.session.organization.id, req.path.client_id);
  return { status: 204, body: undefined };
}
