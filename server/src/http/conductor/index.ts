import type { operations } from '../../../../generated/conductor/schema.js';
import type { ConductorPrincipal } from '../../domain/auth/conductor-users.js';
import type { HandlerContext } from '../context.js';
import type { HandlerMap } from '../registry.js';

/** One module per tag; every conductor operation still declares 501 in the spec. */
export const conductorHandlers = {} satisfies HandlerMap<operations, ConductorPrincipal, HandlerContext>;
