import type { Services } from '../services.js';
import type { ApiDocument, ApiName } from './apis.js';

/** What every handler is given besides its request. */
export interface HandlerContext {
  services: Services;
  apis: Record<ApiName, ApiDocument>;
}
