import type { HandlerContext } from '../context.js';
import type { HandlerMap } from '../registry.js';
import * as environments from './environments.js';
import * as events from './events.js';
import * as metadata from './metadata.js';
import * as notifications from './notifications.js';
import * as scans from './scans.js';
import * as customRules from './custom-rules.js';
import * as invites from './invites.js';
import * as groups from './groups.js';
import * as users from './users.js';
import * as swagger from './swagger.js';
import type { CompliancePrincipal } from './authorization.js';
import type { Operations } from './types.js';

/** One module per tag; an operation without a handler (and without a 501 in the spec) does not compile. */
export const complianceHandlers = {
  ...environments,
  ...scans,
  ...events,
  ...metadata,
  ...notifications,
  ...customRules,
  ...invites,
  ...groups,
  ...users,
  ...swagger,
} satisfies HandlerMap<Operations, CompliancePrincipal, HandlerContext>;
