import type { HandlerContext } from '../context.js';
import { CONDUCTOR_BASE, dryRunBody } from './presenters.js';
import type { Req, Res } from './types.js';

export async function createDryRun(req: Req<'createDryRun'>, { services }: HandlerContext): Res<'createDryRun'> {
  const { command, process, account, import_resources: importResources = false } = req.query;
  const dryRun = await services.dryRuns.request({
    command,
    importResources,
    requestId: req.requestId,
    ...(process !== undefined && { process }),
    ...(account !== undefined && { account }),
    ...(Buffer.isBuffer(req.body) && { archive: req.body }),
  });
  return { status: 202, body: { id: dryRun.id, status: dryRun.status }, headers: { Location: `${CONDUCTOR_BASE}/dry-run/${dryRun.id}` } };
}

export async function getDryRun(req: Req<'getDryRun'>, { services }: HandlerContext): Res<'getDryRun'> {
  return { status: 200, body: dryRunBody(await services.dryRuns.get(req.path.id, req.query.timeout ?? 0)) };
}
