import type { operations } from '../../../../generated/conductor/schema.js';
import type { ConductorPrincipal } from '../../domain/auth/conductor-users.js';
import type { HandlerContext } from '../context.js';
import type { HandlerMap } from '../registry.js';
import * as accounts from './accounts.js';
import * as dryRun from './dry-run.js';
import * as processes from './processes.js';
import * as rbac from './rbac.js';
import * as swagger from './swagger.js';
import * as validations from './validations.js';

/** One module per tag; an operation without a handler (and without a 501 in the spec) does not compile. */
export const conductorHandlers = {
  ...accounts,
  ...dryRun,
  ...processes,
  ...rbac,
  ...swagger,
  ...validations,
} satisfies HandlerMap<operations, ConductorPrincipal, HandlerContext>;
