import type { components, operations } from '../../../../generated/compliance/schema.js';
import type { ApiClientPrincipal } from '../../domain/auth/api-clients.js';
import type { HandlerRequest, Reply } from '../registry.js';

export type Operations = operations;
export type Schemas = components['schemas'];
export type Req<K extends keyof operations> = HandlerRequest<operations[K], ApiClientPrincipal>;
export type Res<K extends keyof operations> = Promise<Reply<operations[K]>>;
