import type { RequestHandler } from 'express';
import { requireApiClientsAccess, type ApiClientsNeed } from '../../domain/console/access.js';
import { AppError } from '../../domain/errors.js';
import type { ApiDocument } from '../apis.js';
import type { ConsolePrincipal, Operations } from './types.js';

/*
 * Who may call which console operation ("Access" in the console spec). The session's access (domain/console/
 * access.ts: the owner, or the user's groups) decides; this table says what each operation needs. It is typed by the
 * spec's operations, so an operation without an entry does not compile, and the server refuses to start if the spec
 * has an operation the table lacks.
 */

/** `public`: no session (the token or the password is the credential); `session`: any signed-in user. */
export type ConsoleNeed = 'public' | 'session' | { apiClients: ApiClientsNeed };

export const CONSOLE_ACCESS = {
  signIn: 'public',
  getSession: 'session',
  signOut: 'session',
  listApiClients: { apiClients: 'read' },
  getApiClient: { apiClients: 'read' },
  createApiClient: { apiClients: 'manage' },
  generateApiClientSecret: { apiClients: 'manage' },
  revokeApiClientSecret: { apiClients: 'manage' },
  deleteApiClient: { apiClients: 'manage' },
  getInvitation: 'public',
  acceptInvitation: 'public',
} as const satisfies Record<keyof Operations, ConsoleNeed>;

const NEEDS: Readonly<Record<string, ConsoleNeed | undefined>> = CONSOLE_ACCESS;

/** After authentication and validation, before dispatch: 403 AuthorizationError, saying why, when access falls short. */
export function authorizeConsole(api: ApiDocument): RequestHandler {
  const missing = api.operations.map((op) => op.operationId).filter((operationId) => NEEDS[operationId] === undefined);
  if (missing.length > 0) throw new Error(`the console API cannot start: no access rule for ${missing.join(', ')}`);
  return (req, _res, next) => {
    const operationId = req.openapi?.schema.operationId;
    // No operation matched: the validator has refused the request already, or the not-found handler will.
    if (operationId === undefined) return next();
    const need = NEEDS[operationId];
    if (need === undefined) throw new AppError('forbidden', 'Forbidden');
    if (typeof need === 'object') {
      const principal = req.principal as ConsolePrincipal | undefined;
      if (!principal) throw new AppError('forbidden', 'Forbidden');
      requireApiClientsAccess(principal.session.access, need.apiClients, operationId);
    }
    next();
  };
}
