import type { components, operations } from '../../../../generated/conductor/schema.js';
import type { ConductorPrincipal } from '../../domain/auth/conductor-users.js';
import type { HandlerRequest, Reply } from '../registry.js';

export type Operations = operations;
export type Schemas = components['schemas'];
export type Req<K extends keyof operations> = HandlerRequest<operations[K], ConductorPrincipal>;
export type Res<K extends keyof operations> = Promise<Reply<operations[K]>>;
