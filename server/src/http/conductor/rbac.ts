import type { RbacStatus } from '../../domain/conductor/rbac.js';
import type { HandlerContext } from '../context.js';
import type { Req, Res, Schemas } from './types.js';
import { archiveOf } from './presenters.js';

const statusBody = (status: RbacStatus): Schemas['RbacStatus'] => ({
  applied: status.applied,
  attached_at: status.attachedAt,
  sha256: status.sha256,
  users: status.users,
});

/** The raw archive the body parser kept (a Buffer); anything else is an empty archive, refused by the domain. */

export async function attachRbacPolicy(req: Req<'attachRbacPolicy'>, { services }: HandlerContext): Res<'attachRbacPolicy'> {
  return { status: 200, body: statusBody(await services.rbac.attach(archiveOf(req.body))) };
}

export async function detachRbacPolicy(_req: Req<'detachRbacPolicy'>, { services }: HandlerContext): Res<'detachRbacPolicy'> {
  return { status: 200, body: statusBody(await services.rbac.detach()) };
}

export async function getRbacArchive(_req: Req<'getRbacArchive'>, { services }: HandlerContext): Res<'getRbacArchive'> {
  // The dispatcher sends a non-JSON body as is: the exact bytes uploaded, as application/x-tar.
  return { status: 200, body: (await services.rbac.archive()) as unknown as string };
}

export async function getRbacStatus(_req: Req<'getRbacStatus'>, { services }: HandlerContext): Res<'getRbacStatus'> {
  return { status: 200, body: statusBody(await services.rbac.status()) };
}

export async function listRbacUsers(_req: Req<'listRbacUsers'>, { services }: HandlerContext): Res<'listRbacUsers'> {
  const users = await services.rbac.users();
  return {
    status: 200,
    body: {
      count: users.length,
      items: users.map((user) => ({ name: user.name, has_secret: user.hasSecret, secret_created_at: user.secretCreatedAt })),
    },
  };
}

export async function resetRbacUserSecret(req: Req<'resetRbacUserSecret'>, { services }: HandlerContext): Res<'resetRbacUserSecret'> {
  return { status: 200, body: await services.rbac.resetSecret(req.path.user) };
}
