import type { HandlerContext } from '../context.js';
import { archiveOf, CONDUCTOR_BASE, historyBody, operationBody, processBody, processSummaryBody } from './presenters.js';
import type { Req, Res } from './types.js';

const processUrl = (fid: string) => `${CONDUCTOR_BASE}/processes/${fid}`;

export async function listProcesses(req: Req<'listProcesses'>, { services }: HandlerContext): Res<'listProcesses'> {
  const processes = await services.processes.list(req.query.account);
  return { status: 200, body: { count: processes.length, items: processes.map(({ process, resourceCount }) => processSummaryBody(process, resourceCount)) } };
}

export async function createProcess(req: Req<'createProcess'>, { services }: HandlerContext): Res<'createProcess'> {
  const { account, alias, import_resources: importResources = false } = req.query;
  const { process, resources } = await services.processes.create({
    archive: archiveOf(req.body),
    account,
    importResources,
    actor: req.principal.user,
    ...(alias !== undefined && { alias }),
  });
  return { status: 201, body: processBody(process, resources), headers: { Location: processUrl(process.fid) } };
}

export async function getProcess(req: Req<'getProcess'>, { services }: HandlerContext): Res<'getProcess'> {
  const { process, resources } = await services.processes.get(req.path.process);
  return { status: 200, body: processBody(process, resources) };
}

export async function updateProcess(req: Req<'updateProcess'>, { services }: HandlerContext): Res<'updateProcess'> {
  const { process, transactionId } = await services.processes.update(req.path.process, req.body, req.principal.user);
  return {
    status: 202,
    body: { fid: process.fid, alias: process.alias, enforcement: process.enforcement, lock: process.lock, state: process.state, transaction_id: transactionId },
    headers: { Location: `${processUrl(process.fid)}/ops/${transactionId}` },
  };
}

export async function deleteProcess(req: Req<'deleteProcess'>, { services }: HandlerContext): Res<'deleteProcess'> {
  const outcome = await services.processes.delete(req.path.process, req.query.kill ?? false, req.principal.user);
  if (outcome.kind === 'released') return { status: 200, body: { fid: outcome.process.fid, status: 'Released' } };
  const { process, job } = outcome;
  // The kill was requested; the job that ends it KILLED runs after this answer.
  return {
    status: 202,
    body: { fid: process.fid, state: 'KILLING', job_id: job.id },
    headers: { Location: `${processUrl(process.fid)}/ops/${job.id}` },
  };
}

export async function updateProcessComposition(req: Req<'updateProcessComposition'>, { services }: HandlerContext): Res<'updateProcessComposition'> {
  const { process, job } = await services.processes.updateComposition(req.path.process, archiveOf(req.body), req.principal.user);
  return { status: 202, body: { fid: process.fid, job_id: job.id }, headers: { Location: `${processUrl(process.fid)}/ops/${job.id}` } };
}

export async function getProcessHistory(req: Req<'getProcessHistory'>, { services }: HandlerContext): Res<'getProcessHistory'> {
  const history = await services.processes.history(req.path.process, req.query.start, req.query.end);
  return { status: 200, body: { count: history.length, items: history.map(historyBody) } };
}

export async function listProcessOps(req: Req<'listProcessOps'>, { services }: HandlerContext): Res<'listProcessOps'> {
  const { start, end, first = false, last = false } = req.query;
  const operations = await services.processes.operations(req.path.process, { first, last, ...(start !== undefined && { start }), ...(end !== undefined && { end }) });
  return { status: 200, body: { count: operations.length, items: operations.map(operationBody) } };
}

export async function listProcessJobOps(req: Req<'listProcessJobOps'>, { services }: HandlerContext): Res<'listProcessJobOps'> {
  const operations = await services.processes.jobOperations(req.path.process, req.path.job_id, req.query.start, req.query.end);
  return { status: 200, body: { count: operations.length, items: operations.map(operationBody) } };
}
