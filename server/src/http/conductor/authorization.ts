import type { RequestHandler } from 'express';
import type { operations } from '../../../../generated/conductor/schema.js';
import { ROOT_USER, type ConductorPrincipal } from '../../domain/auth/conductor-users.js';
import type { Permissions, RbacAction, RbacResource, RbacService } from '../../domain/conductor/rbac.js';
import { resourceText } from '../../domain/conductor/rbac.js';
import { AppError } from '../../domain/errors.js';
import type { ApiDocument } from '../apis.js';
import { isJsonTextValue } from '../json-response.js';
import type { PathParams, QueryParams, Reply, RequestBody } from '../registry.js';

/*
 * Who may call which conductor operation. Every operation maps to an rbac action (`<area>:read` for GET,
 * `<area>:write` otherwise) and either
 *   - the resource it acts on, computed from its parameters: refused with 403 unless the policy allows it; or
 *   - for listings, the names of each listed item: the answer keeps only the items the user may read.
 * The table is typed by the spec's operations, so an operation without an entry does not compile, and the
 * server refuses to start if the spec has an operation the table lacks. root may always do everything; without
 * an attached policy nobody else exists.
 */

interface Params<Op> {
  path: PathParams<Op>;
  query: QueryParams<Op>;
  body: RequestBody<Op>;
}

type ListItem<Op> = Reply<Op> extends infer R ? (R extends { status: 200; body: infer B } ? (B extends { items: Array<infer Item> } ? Item : never) : never) : never;

type Access<Op> =
  | { action: RbacAction; resource: (params: Params<Op>) => RbacResource }
  | { action: RbacAction; listing: (item: ListItem<Op>) => RbacResource[] }
  // Anyone may call it, without credentials: the API's own description.
  | { public: true };

type AccessTable = { [K in keyof operations]: Access<operations[K]> };

const account = (name: string): RbacResource => ({ kind: 'account', name });
const process = (name: string): RbacResource => ({ kind: 'process', name });
const RBAC: RbacResource = { kind: 'rbac' };

/** A parameter the resource is named by but that only some requests must carry (the dry-run's command decides). */
function required(value: string | undefined, parameter: string, why: string): string {
  if (value !== undefined && value !== '') return value;
  throw new AppError('missing_parameter', 'Bad request', {
    details: [{ code: parameter, message: `${parameter.replace(/^query\./, '')} is required ${why}`, location: parameter }],
  });
}

export const CONDUCTOR_ACCESS = {
  listAccounts: { action: 'accounts:read', listing: (item) => [account(item.name)] },
  addAccount: { action: 'accounts:write', resource: ({ body }) => account(body.name) },
  removeAccount: { action: 'accounts:write', resource: ({ path }) => account(path.account) },

  createDryRun: {
    action: 'dry-run:write',
    // RUN creates a process in an account; the other commands act on an existing process.
    resource: ({ query }) =>
      query.command.toUpperCase() === 'RUN'
        ? account(required(query.account, 'query.account', 'for RUN'))
        : process(required(query.process, 'query.process', `for ${query.command.toUpperCase()}`)),
  },
  getDryRun: { action: 'dry-run:read', resource: ({ path }) => ({ kind: 'dry-run', name: path.id }) },

  listProcesses: {
    action: 'processes:read',
    listing: (item) => [process(item.fid), ...(item.alias === null ? [] : [process(item.alias)])],
  },
  createProcess: { action: 'processes:write', resource: ({ query }) => account(query.account) },
  getProcess: { action: 'processes:read', resource: ({ path }) => process(path.process) },
  updateProcess: { action: 'processes:write', resource: ({ path }) => process(path.process) },
  deleteProcess: { action: 'processes:write', resource: ({ path }) => process(path.process) },
  updateProcessComposition: { action: 'processes:write', resource: ({ path }) => process(path.process) },
  getProcessHistory: { action: 'processes:read', resource: ({ path }) => process(path.process) },
  listProcessOps: { action: 'processes:read', resource: ({ path }) => process(path.process) },
  listProcessJobOps: { action: 'processes:read', resource: ({ path }) => process(path.process) },

  attachRbacPolicy: { action: 'rbac:write', resource: () => RBAC },
  detachRbacPolicy: { action: 'rbac:write', resource: () => RBAC },
  getRbacArchive: { action: 'rbac:read', resource: () => RBAC },
  getRbacStatus: { action: 'rbac:read', resource: () => RBAC },
  listRbacUsers: { action: 'rbac:read', listing: (item) => [{ kind: 'user', name: item.name }] },
  resetRbacUserSecret: { action: 'rbac:write', resource: ({ path }) => ({ kind: 'user', name: path.user }) },

  listValidations: { action: 'validations:read', listing: (item) => [{ kind: 'validation', name: item.name }] },
  addValidation: { action: 'validations:write', resource: ({ query }) => ({ kind: 'validation', name: query.name }) },
  getValidation: { action: 'validations:read', resource: ({ path }) => ({ kind: 'validation', name: path.name }) },
  deleteValidation: { action: 'validations:write', resource: ({ path }) => ({ kind: 'validation', name: path.name }) },
  getValidationArchive: { action: 'validations:read', resource: ({ path }) => ({ kind: 'validation', name: path.name }) },

  getConductorSwagger: { public: true },
} satisfies AccessTable;

type AnyAccess = { action: RbacAction; resource?: (params: unknown) => RbacResource; listing?: (item: unknown) => RbacResource[]; public?: true };
const TABLE = CONDUCTOR_ACCESS as unknown as Record<string, AnyAccess>;

/** The operations of the spec the table has no entry for (none, or the server does not start). */
export const operationsWithoutAccess = (api: ApiDocument): string[] =>
  api.operations.map((op) => op.operationId).filter((operationId) => !Object.hasOwn(TABLE, operationId));

/** Keeps the listed items the user may read, and recounts them. */
function readableItems(body: unknown, access: AnyAccess, permissions: Permissions): unknown {
  // The stand-in for a body given as JSON text has no items to filter.
  if (isJsonTextValue(body)) throw new Error('a listing the conductor filters cannot be answered as JSON text');
  const list = body as { count?: number; items?: unknown[] } | undefined;
  if (!list || !Array.isArray(list.items)) return body;
  const items = list.items.filter((item) => permissions.allows(access.action, access.listing!(item).map(resourceText)));
  return { ...list, count: items.length, items };
}

/**
 * The conductor's authorization, placed after the validator (which authenticated the caller and checked the
 * parameters) and before dispatch, so it covers every operation, implemented or not.
 */
export function authorizeConductor(api: ApiDocument, rbac: RbacService): RequestHandler {
  const missing = operationsWithoutAccess(api);
  if (missing.length > 0) throw new Error(`the conductor API cannot start: no authorization rule for ${missing.join(', ')}`);
  return async (req, res, next) => {
    const operationId = req.openapi?.schema.operationId;
    // No operation matched: the validator has refused the request already, or the not-found handler will.
    if (operationId === undefined) return next();
    const access = TABLE[operationId];
    if (access?.public) return next();
    const principal = req.principal as ConductorPrincipal | undefined;
    if (!access || !principal) throw new AppError('forbidden', 'Forbidden');
    const permissions = await rbac.permissions(principal.user);
    if (access.resource) {
      const params = { path: req.openapi?.pathParams ?? {}, query: req.query, body: req.body };
      await rbac.authorize(permissions, access.action, access.resource(params));
    } else if (access.listing && permissions.user !== ROOT_USER) {
      // Listings answer 200 with the items the user may read; the filter runs as the handler's answer is sent,
      // before response validation, which wrapped res.json earlier in the chain.
      const send = res.json.bind(res);
      res.json = (body: unknown) => send(res.statusCode === 200 ? readableItems(body, access, permissions) : body);
    }
    next();
  };
}
