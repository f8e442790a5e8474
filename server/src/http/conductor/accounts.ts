import type { HandlerContext } from '../context.js';
import { accountBody, CONDUCTOR_BASE } from './presenters.js';
import type { Req, Res } from './types.js';

export async function listAccounts(_req: Req<'listAccounts'>, { services }: HandlerContext): Res<'listAccounts'> {
  const accounts = await services.conductorAccounts.list();
  return { status: 200, body: { count: accounts.length, items: accounts.map(accountBody) } };
}

export async function addAccount(req: Req<'addAccount'>, { services }: HandlerContext): Res<'addAccount'> {
  const { name, provider, account_id: accountId } = req.body;
  const account = await services.conductorAccounts.add({ name, provider, accountId });
  return { status: 201, body: accountBody(account), headers: { Location: `${CONDUCTOR_BASE}/accounts/${encodeURIComponent(account.name)}` } };
}

export async function removeAccount(req: Req<'removeAccount'>, { services }: HandlerContext): Res<'removeAccount'> {
  const name = await services.conductorAccounts.remove(req.path.account);
  return { status: 200, body: { name, status: 'Removed' } };
}
