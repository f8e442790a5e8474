import type { operations } from '../../../../generated/console/schema.js';
import type { HandlerContext } from '../context.js';
import type { HandlerMap } from '../registry.js';

/** One module per tag; every console operation still declares 501 in the spec. */
export const consoleHandlers = {} satisfies HandlerMap<operations, unknown, HandlerContext>;
