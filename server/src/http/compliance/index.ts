import type { ApiClientPrincipal } from '../../domain/auth/api-clients.js';
import type { HandlerContext } from '../context.js';
import type { HandlerMap } from '../registry.js';
import * as environments from './environments.js';
import * as swagger from './swagger.js';
import type { Operations } from './types.js';

/** One module per tag; an operation without a handler (and without a 501 in the spec) does not compile. */
export const complianceHandlers = {
  ...environments,
  ...swagger,
} satisfies HandlerMap<Operations, ApiClientPrincipal, HandlerContext>;
