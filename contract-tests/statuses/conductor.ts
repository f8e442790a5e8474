import { randomUUID } from 'node:crypto';
import { expect } from '@jest/globals';
import { compositionTar, nextAccount, WEB_RESOURCES } from '../../server/test/conductor.js';
import { filesTar } from '../../server/test/fixtures/archives.js';
import { detachPolicy, must, send, type Answer, type Call, type Case, type OperationStatuses, type StatusContext } from './scenario.js';

/**
 * The conductor API: every call as root, which no policy restricts. The rbac policy is one per deployment, so the
 * scenarios that read or change it attach or detach their own first.
 */

let counter = 0;
const unique = (prefix: string) => `${prefix}-${process.pid}-${(counter += 1)}`;

const asRoot = (ctx: StatusContext, method: string, path: string, body?: unknown): Call => ({
  method,
  path: `/api/v0${path}`,
  auth: ctx.server.rootAuth,
  ...(body !== undefined && { body }),
});

async function account(ctx: StatusContext): Promise<string> {
  const { name, accountId } = nextAccount();
  await must(ctx, asRoot(ctx, 'POST', '/accounts', { name, provider: 'provider_a', account_id: accountId }));
  return name;
}

const composition = () => compositionTar(WEB_RESOURCES);

/** A process just created (its creation job not run: the requests below need only the record). */
async function process_(ctx: StatusContext, options: { alias?: string; lock?: boolean } = {}): Promise<{ fid: string; account: string }> {
  const name = await account(ctx);
  const query = `account=${name}${options.alias ? `&alias=${options.alias}` : ''}`;
  const created = await must(ctx, asRoot(ctx, 'POST', `/processes?${query}`, await composition()));
  if (options.lock) await must(ctx, asRoot(ctx, 'PATCH', `/processes/${created.fid}`, { lock: true }));
  return { fid: created.fid, account: name };
}

const libraryArchive = () => filesTar({ 'rules.yaml': 'rules: []\n' });
async function library(ctx: StatusContext): Promise<string> {
  const name = unique('lib');
  await must(ctx, asRoot(ctx, 'POST', `/validations?name=${name}`, await libraryArchive()));
  return name;
}

const policyArchive = () => filesTar({ 'policy.yaml': 'users: [alice]\nrules: []\n' });
const attachPolicy = async (ctx: StatusContext) => must(ctx, asRoot(ctx, 'POST', '/rbac', await policyArchive()));

/** The conductor's 404 body: its title and the one problem, by code. */
const notFound = (how: string, call: (ctx: StatusContext) => Promise<Call>, code: string, message = 'Resource not found'): Case => ({
  how,
  run: async (ctx) => send(ctx, await call(ctx)),
  check: ({ body }) => expect(body).toMatchObject({ code: 404, message, errors: [{ code }] }),
});

const unknownProcess = (call: (ctx: StatusContext, ref: string) => Promise<Call> | Call, message = 'Resource not found'): Case =>
  notFound('an unknown process alias', async (ctx) => call(ctx, unique('no-such-process')), 'process.not_found', message);

/** A locked process refuses every state transition and composition update. */
const locked = (call: (ctx: StatusContext, fid: string) => Promise<Call> | Call): Case => ({
  how: 'a locked process',
  run: async (ctx) => send(ctx, await call(ctx, (await process_(ctx, { lock: true })).fid)),
  check: ({ body }) => expect(body).toMatchObject({ code: 409, message: 'Illegal state change', errors: [{ code: 'process.locked' }] }),
});

const items = (answer: Answer) => answer.body.items as Array<Record<string, unknown>>;

export const CONDUCTOR_OPERATIONS: OperationStatuses[] = [
  {
    api: 'conductor',
    operationId: 'listAccounts',
    valid: async (ctx) => {
      await account(ctx);
      return asRoot(ctx, 'GET', '/accounts');
    },
    success: { status: 200, check: (answer) => expect(answer.body.count).toBe(items(answer).length) },
  },
  {
    api: 'conductor',
    operationId: 'addAccount',
    valid: async (ctx) => {
      const { name, accountId } = nextAccount();
      return asRoot(ctx, 'POST', '/accounts', { name, provider: 'provider_a', account_id: accountId });
    },
    success: {
      status: 201,
      check: ({ body, headers }) => {
        expect(body).toMatchObject({ provider: 'provider_a', process_count: 0 });
        expect(headers.get('location')).toBe(`/api/v0/accounts/${body.name}`);
      },
    },
    cases: {
      409: {
        how: 'a name another account has',
        run: async (ctx) => send(ctx, asRoot(ctx, 'POST', '/accounts', { name: await account(ctx), provider: 'provider_a', account_id: nextAccount().accountId })),
        check: ({ body }) => expect(body).toMatchObject({ code: 409, message: 'Account already exists', errors: [{ code: 'account.exists', location: 'body.name' }] }),
      },
    },
  },
  {
    api: 'conductor',
    operationId: 'removeAccount',
    valid: async (ctx) => asRoot(ctx, 'DELETE', `/accounts/${await account(ctx)}`),
    success: { status: 200, check: ({ body }) => expect(body).toMatchObject({ name: expect.any(String), status: 'Removed' }) },
    cases: {
      404: notFound('an unknown account', async (ctx) => asRoot(ctx, 'DELETE', `/accounts/${unique('no-such-account')}`), 'account.not_found'),
      409: {
        how: 'an account a running process uses',
        run: async (ctx) => send(ctx, asRoot(ctx, 'DELETE', `/accounts/${(await process_(ctx)).account}`)),
        check: ({ body }) => expect(body).toMatchObject({ code: 409, message: 'Account in use', errors: [{ code: 'account.in_use' }] }),
      },
    },
  },
  {
    api: 'conductor',
    operationId: 'createDryRun',
    valid: async (ctx) => asRoot(ctx, 'POST', `/dry-run?command=run&account=${await account(ctx)}`, await composition()),
    success: {
      status: 202,
      check: ({ body, headers }) => {
        expect(body).toEqual({ id: expect.any(String), status: 'PENDING' });
        expect(headers.get('location')).toBe(`/api/v0/dry-run/${body.id}`);
      },
    },
    cases: {
      404: notFound('an unknown account', async (ctx) => asRoot(ctx, 'POST', `/dry-run?command=run&account=${unique('no-such-account')}`, await composition()), 'account.not_found'),
    },
  },
  {
    api: 'conductor',
    operationId: 'getDryRun',
    valid: async (ctx) => {
      const started = await must(ctx, asRoot(ctx, 'POST', `/dry-run?command=run&account=${await account(ctx)}`, await composition()));
      return asRoot(ctx, 'GET', `/dry-run/${started.id}`);
    },
    success: { status: 200, check: ({ body }) => expect(body).toMatchObject({ id: expect.any(String), status: 'PENDING', errors: [] }) },
    cases: { 404: notFound('an unknown dry-run id', async (ctx) => asRoot(ctx, 'GET', `/dry-run/${randomUUID()}`), 'dry_run.not_found') },
  },
  {
    api: 'conductor',
    operationId: 'listProcesses',
    valid: async (ctx) => asRoot(ctx, 'GET', `/processes?account=${(await process_(ctx)).account}`),
    success: { status: 200, check: (answer) => expect(answer.body).toMatchObject({ count: 1, items: [{ state: 'RUNNING' }] }) },
  },
  {
    api: 'conductor',
    operationId: 'createProcess',
    valid: async (ctx) => asRoot(ctx, 'POST', `/processes?account=${await account(ctx)}&alias=${unique('web')}`, await composition()),
    success: {
      status: 201,
      check: ({ body, headers }) => {
        expect(body).toMatchObject({ fid: expect.any(String), state: 'RUNNING', enforcement: true, lock: false });
        expect(headers.get('location')).toBe(`/api/v0/processes/${body.fid}`);
      },
    },
    cases: {
      404: notFound('an unknown account', async (ctx) => asRoot(ctx, 'POST', `/processes?account=${unique('no-such-account')}`, await composition()), 'account.not_found'),
      409: {
        how: 'an alias another process has',
        run: async (ctx) => {
          const alias = unique('taken');
          await process_(ctx, { alias });
          return send(ctx, asRoot(ctx, 'POST', `/processes?account=${await account(ctx)}&alias=${alias}`, await composition()));
        },
        check: ({ body }) => expect(body).toMatchObject({ code: 409, message: 'Alias already taken', errors: [{ code: 'process.alias_taken' }] }),
      },
    },
  },
  {
    api: 'conductor',
    operationId: 'getProcess',
    valid: async (ctx) => asRoot(ctx, 'GET', `/processes/${(await process_(ctx)).fid}`),
    success: { status: 200, check: ({ body }) => expect(body).toMatchObject({ state: 'RUNNING', resources: expect.any(Array) }) },
    cases: { 404: unknownProcess((ctx, ref) => asRoot(ctx, 'GET', `/processes/${ref}`)) },
  },
  {
    api: 'conductor',
    operationId: 'updateProcess',
    valid: async (ctx) => asRoot(ctx, 'PATCH', `/processes/${(await process_(ctx)).fid}`, { enforcement: false }),
    success: { status: 202, check: ({ body }) => expect(body).toMatchObject({ enforcement: false, state: 'RUNNING', transaction_id: expect.any(String) }) },
    cases: {
      404: unknownProcess((ctx, ref) => asRoot(ctx, 'PATCH', `/processes/${ref}`, { enforcement: false }), 'Process not found'),
      409: locked((ctx, fid) => asRoot(ctx, 'PATCH', `/processes/${fid}`, { action: 'suspend' })),
    },
  },
  {
    api: 'conductor',
    operationId: 'deleteProcess',
    valid: async (ctx) => asRoot(ctx, 'DELETE', `/processes/${(await process_(ctx)).fid}`),
    success: { status: 200, check: ({ body }) => expect(body).toEqual({ fid: expect.any(String), status: 'Released' }) },
    cases: {
      202: {
        how: 'a kill',
        run: async (ctx) => send(ctx, asRoot(ctx, 'DELETE', `/processes/${(await process_(ctx)).fid}?kill=true`)),
        check: ({ body, headers }) => {
          expect(body).toEqual({ fid: expect.any(String), state: 'KILLING', job_id: expect.any(String) });
          expect(headers.get('location')).toBe(`/api/v0/processes/${body.fid}/ops/${body.job_id}`);
        },
      },
      404: unknownProcess((ctx, ref) => asRoot(ctx, 'DELETE', `/processes/${ref}`)),
      409: locked((ctx, fid) => asRoot(ctx, 'DELETE', `/processes/${fid}`)),
    },
  },
  {
    api: 'conductor',
    operationId: 'updateProcessComposition',
    valid: async (ctx) => asRoot(ctx, 'PUT', `/processes/${(await process_(ctx)).fid}/composition`, await composition()),
    success: { status: 202, check: ({ body }) => expect(body).toEqual({ fid: expect.any(String), job_id: expect.any(String) }) },
    cases: {
      404: unknownProcess(async (ctx, ref) => asRoot(ctx, 'PUT', `/processes/${ref}/composition`, await composition())),
      409: locked(async (ctx, fid) => asRoot(ctx, 'PUT', `/processes/${fid}/composition`, await composition())),
    },
  },
  {
    api: 'conductor',
    operationId: 'getProcessHistory',
    valid: async (ctx) => asRoot(ctx, 'GET', `/processes/${(await process_(ctx)).fid}/history`),
    success: { status: 200, check: (answer) => expect(answer.body).toMatchObject({ count: 1, items: [{ event: 'created', job_id: expect.any(String) }] }) },
    cases: { 404: unknownProcess((ctx, ref) => asRoot(ctx, 'GET', `/processes/${ref}/history`)) },
  },
  {
    api: 'conductor',
    operationId: 'listProcessOps',
    valid: async (ctx) => asRoot(ctx, 'GET', `/processes/${(await process_(ctx)).fid}/ops`),
    // The creation job has not run: no cloud operation yet.
    success: { status: 200, check: ({ body }) => expect(body).toEqual({ count: 0, items: [] }) },
    cases: { 404: unknownProcess((ctx, ref) => asRoot(ctx, 'GET', `/processes/${ref}/ops`)) },
  },
  {
    api: 'conductor',
    operationId: 'listProcessJobOps',
    valid: async (ctx) => {
      const { fid } = await process_(ctx);
      const history = await must(ctx, asRoot(ctx, 'GET', `/processes/${fid}/history`));
      return asRoot(ctx, 'GET', `/processes/${fid}/ops/${history.items[0].job_id}`);
    },
    success: { status: 200, check: ({ body }) => expect(body).toEqual({ count: 0, items: [] }) },
    cases: {
      404: notFound('a job id the process does not have', async (ctx) => asRoot(ctx, 'GET', `/processes/${(await process_(ctx)).fid}/ops/${randomUUID()}`), 'job.not_found'),
    },
  },
  {
    api: 'conductor',
    operationId: 'attachRbacPolicy',
    valid: async (ctx) => asRoot(ctx, 'POST', '/rbac', await policyArchive()),
    success: { status: 200, check: ({ body }) => expect(body).toMatchObject({ applied: true, users: 1, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) }) },
  },
  {
    api: 'conductor',
    operationId: 'detachRbacPolicy',
    valid: async (ctx) => {
      await attachPolicy(ctx);
      return asRoot(ctx, 'DELETE', '/rbac');
    },
    success: { status: 200, check: ({ body }) => expect(body).toEqual({ applied: false, attached_at: null, sha256: null, users: 0 }) },
    cases: {
      404: notFound(
        'no policy attached',
        async (ctx) => {
          await detachPolicy(ctx);
          return asRoot(ctx, 'DELETE', '/rbac');
        },
        'rbac.not_attached',
      ),
    },
  },
  {
    api: 'conductor',
    operationId: 'getRbacArchive',
    valid: async (ctx) => {
      await attachPolicy(ctx);
      return asRoot(ctx, 'GET', '/rbac/archive');
    },
    success: {
      status: 200,
      check: ({ text, headers }) => {
        expect(headers.get('content-type')).toMatch(/^application\/x-tar/);
        expect(text).toContain('users: [alice]');
      },
    },
    cases: {
      404: notFound(
        'no policy attached',
        async (ctx) => {
          await detachPolicy(ctx);
          return asRoot(ctx, 'GET', '/rbac/archive');
        },
        'rbac.not_attached',
      ),
    },
  },
  {
    api: 'conductor',
    operationId: 'getRbacStatus',
    valid: async (ctx) => asRoot(ctx, 'GET', '/rbac/status'),
    success: { status: 200, check: ({ body }) => expect(body).toMatchObject({ applied: expect.any(Boolean), users: expect.any(Number) }) },
  },
  {
    api: 'conductor',
    operationId: 'listRbacUsers',
    valid: async (ctx) => asRoot(ctx, 'GET', '/rbac/users'),
    success: { status: 200, check: (answer) => expect(items(answer)[0]).toMatchObject({ name: 'root', has_secret: true }) },
  },
  {
    api: 'conductor',
    operationId: 'resetRbacUserSecret',
    valid: async (ctx) => {
      await attachPolicy(ctx);
      return asRoot(ctx, 'PUT', '/rbac/users/alice/secret');
    },
    success: { status: 200, check: ({ body }) => expect(body).toEqual({ user: 'alice', secret: expect.stringMatching(/^[A-Za-z0-9_-]{43,}$/) }) },
    cases: {
      404: notFound(
        'a user no policy declares',
        async (ctx) => {
          await attachPolicy(ctx);
          return asRoot(ctx, 'PUT', '/rbac/users/nobody/secret');
        },
        'not_found',
      ),
    },
  },
  {
    api: 'conductor',
    operationId: 'listValidations',
    valid: async (ctx) => asRoot(ctx, 'GET', `/validations?prefix=${await library(ctx)}`),
    success: { status: 200, check: (answer) => expect(answer.body).toMatchObject({ count: 1, items: [{ rule_count: 0 }] }) },
  },
  {
    api: 'conductor',
    operationId: 'addValidation',
    valid: async (ctx) => asRoot(ctx, 'POST', `/validations?name=${unique('lib')}`, await libraryArchive()),
    success: { status: 201, check: ({ body, headers }) => expect(headers.get('location')).toBe(`/api/v0/validations/${body.name}`) },
    cases: {
      409: {
        how: 'a name another library has',
        run: async (ctx) => send(ctx, asRoot(ctx, 'POST', `/validations?name=${await library(ctx)}`, await libraryArchive())),
        check: ({ body }) => expect(body).toMatchObject({ code: 409, message: 'Validation library already exists', errors: [{ code: 'validation.exists' }] }),
      },
    },
  },
  {
    api: 'conductor',
    operationId: 'getValidation',
    valid: async (ctx) => asRoot(ctx, 'GET', `/validations/${await library(ctx)}`),
    success: { status: 200, check: ({ body }) => expect(body).toMatchObject({ rule_count: 0, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) }) },
    cases: { 404: notFound('an unknown library', async (ctx) => asRoot(ctx, 'GET', `/validations/${unique('no-such-lib')}`), 'not_found') },
  },
  {
    api: 'conductor',
    operationId: 'deleteValidation',
    valid: async (ctx) => asRoot(ctx, 'DELETE', `/validations/${await library(ctx)}`),
    success: { status: 200, check: ({ body }) => expect(body).toMatchObject({ status: 'Deleted' }) },
    cases: { 404: notFound('an unknown library', async (ctx) => asRoot(ctx, 'DELETE', `/validations/${unique('no-such-lib')}`), 'not_found') },
  },
  {
    api: 'conductor',
    operationId: 'getValidationArchive',
    valid: async (ctx) => asRoot(ctx, 'GET', `/validations/${await library(ctx)}/archive`),
    success: { status: 200, check: ({ text }) => expect(text).toContain('rules: []') },
    cases: { 404: notFound('an unknown library', async (ctx) => asRoot(ctx, 'GET', `/validations/${unique('no-such-lib')}/archive`), 'not_found') },
  },
  {
    api: 'conductor',
    operationId: 'getConductorSwagger',
    // The bundle is served from memory: no database to fail.
    fault: 'handler',
    valid: async (ctx) => ({ ...asRoot(ctx, 'GET', '/swagger'), auth: null }),
    success: { status: 200, check: ({ text }) => expect(text).toMatch(/^basePath: \/api\/v0$/m) },
  },
];
