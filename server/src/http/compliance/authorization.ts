import type { Request, RequestHandler } from 'express';
import type { Grants, GroupGrant, Reach } from '../../domain/access/grants.js';
import { GROUP_POLICIES, type GroupPolicy } from '../../domain/access/types.js';
import type { ApiClientPrincipal } from '../../domain/auth/api-clients.js';
import { ALL } from '../../domain/cloud/providers.js';
import { AppError } from '../../domain/errors.js';
import type { Services } from '../../services.js';
import type { ApiDocument } from '../apis.js';
import { readAccessDeclarations, type AccessDeclaration, type Place, type Subject } from './access-declarations.js';

/*
 * Who may call which compliance operation ("Access control" in the spec), in one place for every operation. Each
 * operation's `x-access` in the spec (access-declarations.ts) says the level it needs, where its request names
 * environments, scans, notifications or kept rule tests, and where it names the grants it hands out (a new group, groups, users);
 * this middleware reads those ids from the request, resolves them through the services to the environments and
 * grants they lead to, and the caller's grants (the domain) decide. An API client in no group is unrestricted and
 * skips every check. The server refuses to start when an operation of the spec has no declaration.
 */

/** The compliance caller as handlers see it: the API client and what its groups grant. */
export interface CompliancePrincipal extends ApiClientPrincipal {
  grants: Grants;
}

/** The ids at a place of the request: one value, or the strings of a list. */
function idsAt(req: Request, place: Place): string[] {
  const values = place.in === 'path' ? req.openapi?.pathParams : place.in === 'query' ? req.query : req.body;
  const value = (values as Record<string, unknown> | undefined)?.[place.name];
  return (Array.isArray(value) ? value : [value]).filter((id): id is string => typeof id === 'string');
}

/** Gathers what a request reaches, subject by subject. */
class ReachOfRequest implements Reach {
  allEnvironments = false;
  readonly environmentIds = new Set<string>();
  readonly handsOut: GroupGrant[] = [];

  add(environments: 'all' | readonly string[]): void {
    if (environments === 'all') this.allEnvironments = true;
    else for (const id of environments) this.environmentIds.add(id);
  }
}

/** A record the organization does not have is left to the operation, which answers it as its spec says (404 or 400). */
async function unlessUnknown<T>(read: Promise<T>): Promise<T | undefined> {
  try {
    return await read;
  } catch (error) {
    if (error instanceof AppError && error.code === 'not_found') return undefined;
    throw error;
  }
}

type Resolve = (ids: string[], orgId: string, services: Services, reach: ReachOfRequest) => Promise<void>;

/** How the ids of each subject lead to environments. */
const RESOLVE: Record<Subject, Resolve> = {
  environment: async (ids, orgId, services, reach) => {
    if (ids.includes(ALL)) reach.add('all');
    const named = ids.filter((id) => id !== ALL);
    if (named.length > 0) reach.add(await services.access.existingEnvironments(orgId, named));
  },
  scan: async (ids, orgId, services, reach) => {
    for (const id of ids) {
      const scan = await unlessUnknown(services.scans.get(orgId, id));
      if (scan) reach.add([scan.environmentId]);
    }
  },
  notification: async (ids, orgId, services, reach) => {
    for (const id of ids) {
      const notification = await unlessUnknown(services.notifications.get(orgId, id));
      if (notification) reach.add(notification.allEnvironments ? 'all' : notification.environments.map((env) => env.id));
    }
  },
  rule_test_output: async (ids, orgId, services, reach) => {
    for (const id of ids) {
      const kept = await unlessUnknown(services.customRules.testOutput(orgId, id));
      if (kept) reach.add([kept.environmentId]);
    }
  },
};

/** The environments a new group covers: `*`, or those of the ids that are environments of the organization. */
async function newGroupEnvironments(ids: string[], orgId: string, services: Services): Promise<Pick<GroupGrant, 'allEnvironments' | 'environmentIds'>> {
  if (ids.includes(ALL)) return { allEnvironments: true, environmentIds: [] };
  return { allEnvironments: false, environmentIds: ids.length === 0 ? [] : await services.access.existingEnvironments(orgId, ids) };
}

async function reachOf(declaration: Extract<AccessDeclaration, { public: false }>, req: Request, orgId: string, services: Services): Promise<Reach> {
  const reach = new ReachOfRequest();
  for (const source of declaration.sources) {
    if (source.at === 'all') reach.add('all');
    else await RESOLVE[source.subject](idsAt(req, source.at), orgId, services, reach);
  }
  const { group, groups, users } = declaration.handsOut;
  if (group) {
    // An unknown policy is the validator's 400.
    const [policy] = idsAt(req, group.policy);
    if ((GROUP_POLICIES as readonly string[]).includes(policy ?? '')) {
      reach.handsOut.push({ policy: policy as GroupPolicy, ...(await newGroupEnvironments(idsAt(req, group.environments), orgId, services)) });
    }
  }
  if (groups) reach.handsOut.push(...(await services.access.grantsOfGroups(orgId, idsAt(req, groups))));
  if (users) reach.handsOut.push(...(await services.access.grantsOfUsersGroups(orgId, idsAt(req, users))));
  return reach;
}

/**
 * The compliance API's group policies, placed after the validator (which authenticated the caller and checked the
 * parameters) and before dispatch. An id that names nothing of the caller's organization is not checked here, so a
 * 403 never confirms an id: the operation answers it as unknown (404, or 400 for ids in a body).
 */
export function authorizeCompliance(api: ApiDocument, services: Services): RequestHandler {
  const { declarations, problems } = readAccessDeclarations(api.openapi);
  if (problems.length > 0) throw new Error(`the compliance API cannot start: x-access: ${problems.join('; ')}`);
  return async (req, _res, next) => {
    const operationId = req.openapi?.schema.operationId;
    if (operationId === undefined) return next();
    const declaration = declarations.get(operationId);
    if (!declaration) throw new AppError('forbidden', 'Forbidden');
    if (declaration.public) return next();
    const principal = req.principal as ApiClientPrincipal | undefined;
    if (!principal) throw new AppError('forbidden', 'Forbidden');
    // Reused for at most a second, and read again at once after a group change in this process (AccessService).
    const grants = await services.access.grantsOfApiClient(principal.clientId);
    req.principal = { ...principal, grants } satisfies CompliancePrincipal;
    if (!grants.restricted) return next();
    grants.authorize(declaration.level, await reachOf(declaration, req, principal.orgId, services), operationId);
    next();
  };
}
