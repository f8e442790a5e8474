import type { components, operations } from '../../../../generated/compliance/schema.js';
import type { HandlerRequest, Reply } from '../registry.js';
import type { CompliancePrincipal } from './authorization.js';

export type Operations = operations;
export type Schemas = components['schemas'];
export type Req<K extends keyof operations> = HandlerRequest<operations[K], CompliancePrincipal>;
export type Res<K extends keyof operations> = Promise<Reply<operations[K]>>;
