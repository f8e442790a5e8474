import type { HandlerContext } from '../context.js';
import type { HandlerMap } from '../registry.js';
import * as apiClients from './api-clients.js';
import * as invitations from './invitations.js';
import * as session from './session.js';
import type { ConsolePrincipal, Operations } from './types.js';

/** One module per tag; an operation without a handler (and without a 501 in the spec) does not compile. */
export const consoleHandlers = {
  ...session,
  ...apiClients,
  ...invitations,
} satisfies HandlerMap<Operations, ConsolePrincipal, HandlerContext>;
