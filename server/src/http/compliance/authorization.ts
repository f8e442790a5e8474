import type { RequestHandler } from 'express';
import type { operations } from '../../../../generated/compliance/schema.js';
import type { AccessLevel, Grants } from '../../domain/access/grants.js';
import type { ApiClientPrincipal } from '../../domain/auth/api-clients.js';
import { AppError } from '../../domain/errors.js';
import type { Services } from '../../services.js';
import type { ApiDocument } from '../apis.js';
import type { PathParams, QueryParams } from '../registry.js';

/*
 * Who may call which compliance operation ("Access control" in the spec). Every operation names the access level
 * it needs and what that level must cover:
 *   - `organization`: some group of the caller grants the level;
 *   - `everywhere`: a group covering all environments (`*`) grants it (creating an environment);
 *   - `environment` / `scan`: the level is granted over that environment, or over the scan's environment;
 *   - `listing`: the handler lists only the environments the level is granted over (`principal.grants`).
 * An API client in no group is unrestricted and skips every check. The table is typed by the spec's operations, so
 * an operation without an entry does not compile, and the server refuses to start if the spec has one it lacks.
 */

/** The compliance caller as handlers see it: the API client and what its groups grant. */
export interface CompliancePrincipal extends ApiClientPrincipal {
  grants: Grants;
}

interface Params<Op> {
  path: PathParams<Op>;
  query: QueryParams<Op>;
}

type Access<Op> =
  | { public: true }
  | { level: AccessLevel; scope: 'organization' | 'everywhere' | 'listing' }
  | { level: AccessLevel; environment: (params: Params<Op>) => string }
  | { level: AccessLevel; scan: (params: Params<Op>) => string };

type AccessTable = { [K in keyof operations]: Access<operations[K]> };

const organization = (level: AccessLevel) => ({ level, scope: 'organization' }) as const;

export const COMPLIANCE_ACCESS = {
  getSwagger: { public: true },

  listEnvironments: { level: 'results', scope: 'listing' },
  createEnvironment: { level: 'contribute', scope: 'everywhere' },
  getEnvironment: { level: 'results', environment: ({ path }) => path.environment_id },
  updateEnvironment: { level: 'edit', environment: ({ path }) => path.environment_id },
  deleteEnvironment: { level: 'contribute', environment: ({ path }) => path.environment_id },

  listScans: { level: 'results', environment: ({ query }) => query.environment_id },
  createScan: { level: 'edit', environment: ({ query }) => query.environment_id },
  getScan: { level: 'results', scan: ({ path }) => path.scan_id },
  getComplianceByRules: { level: 'results', scan: ({ path }) => path.scan_id },
  getComplianceByResourceTypes: { level: 'results', scan: ({ path }) => path.scan_id },
  listEvents: { level: 'read', environment: ({ query }) => query.environment_id },

  getResourceTypes: organization('read'),
  getPermissions: organization('read'),

  listCustomRules: organization('read'),
  getCustomRule: organization('read'),
  createCustomRule: organization('edit'),
  updateCustomRule: organization('edit'),
  deleteCustomRule: organization('edit'),
  testCustomRule: organization('edit'),
  testCustomRuleInput: organization('edit'),

  listNotifications: organization('read'),
  listNotificationDeliveries: organization('read'),
  createNotification: organization('edit'),
  updateNotification: organization('edit'),
  deleteNotification: organization('edit'),

  listGroups: organization('read'),
  listUsers: organization('read'),
  getUserById: organization('read'),
  listInvites: organization('read'),
  getInviteById: organization('read'),
  createGroup: organization('manage'),
  editUsersGroupAssignments: organization('manage'),
  createInvite: organization('manage'),
} satisfies AccessTable;

type AnyAccess =
  | { public: true }
  | { level: AccessLevel; scope?: 'organization' | 'everywhere' | 'listing'; environment?: (p: unknown) => string; scan?: (p: unknown) => string };
const TABLE = COMPLIANCE_ACCESS as unknown as Record<string, AnyAccess>;

/** The operations of the spec the table has no entry for (none, or the server does not start). */
export const operationsWithoutComplianceAccess = (api: ApiDocument): string[] =>
  api.operations.map((op) => op.operationId).filter((operationId) => !Object.hasOwn(TABLE, operationId));

/**
 * The compliance API's group policies, placed after the validator (which authenticated the caller and checked the
 * parameters) and before dispatch. A record of another organization stays a 404: existence is checked before
 * coverage, so a 403 never confirms an id the caller could not see anyway.
 */
export function authorizeCompliance(api: ApiDocument, services: Services): RequestHandler {
  const missing = operationsWithoutComplianceAccess(api);
  if (missing.length > 0) throw new Error(`the compliance API cannot start: no authorization rule for ${missing.join(', ')}`);
  return async (req, _res, next) => {
    const operationId = req.openapi?.schema.operationId;
    if (operationId === undefined) return next();
    const access = TABLE[operationId];
    if (!access) throw new AppError('forbidden', 'Forbidden');
    if ('public' in access) return next();
    const principal = req.principal as ApiClientPrincipal | undefined;
    if (!principal) throw new AppError('forbidden', 'Forbidden');
    // Reused for at most a second, and read again at once after a group change in this process (AccessService).
    const grants = await services.access.grantsOfApiClient(principal.clientId);
    req.principal = { ...principal, grants } satisfies CompliancePrincipal;
    if (!grants.restricted) return next();

    const params = { path: req.openapi?.pathParams ?? {}, query: req.query };
    if (access.environment) {
      const environmentId = access.environment(params);
      if (!grants.allowsOver(access.level, environmentId)) {
        await services.environments.get(principal.orgId, environmentId);
        grants.requireOver(access.level, environmentId, operationId);
      }
    } else if (access.scan) {
      const scan = await services.scans.get(principal.orgId, access.scan(params));
      grants.requireOver(access.level, scan.environmentId, operationId);
    } else if (access.scope === 'everywhere') {
      grants.requireEverywhere(access.level, operationId);
    } else {
      grants.requireSomewhere(access.level, operationId);
    }
    next();
  };
}
