import type { components, operations } from '../../../../generated/console/schema.js';
import type { ConsoleSession } from '../../domain/console/sessions.js';
import type { HandlerRequest, Reply } from '../registry.js';

/** The signed-in user, and the cookie token that proves it (sign-out needs the token). */
export interface ConsolePrincipal {
  session: ConsoleSession;
  token: string;
}

export type Operations = operations;
export type Schemas = components['schemas'];
export type Req<K extends keyof operations> = HandlerRequest<operations[K], ConsolePrincipal>;
export type Res<K extends keyof operations> = Promise<Reply<operations[K]>>;
