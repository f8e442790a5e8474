import type { Request } from 'express';
import type { AppError } from '../domain/errors.js';

/**
 * A credential check may refuse an attempt without judging its credentials: past a limit of failed
 * authentications, the attempt is answered 429 with `Retry-After`. The validator passes on only a status and a
 * message of what a security handler threw, and answers a status it does not know (429 among them) as a 500; so
 * the handler keeps the refusal on the request, and the error renderer answers with it.
 */
const REFUSAL = Symbol('refusal decided while checking the credentials');
type WithRefusal = { [REFUSAL]?: AppError };

/** Keeps the refusal (an AppError `rate_limited`) the request's credential check decided on. */
export function keepRefusal(req: Request, refusal: AppError): void {
  (req as WithRefusal)[REFUSAL] = refusal;
}

/** The refusal the request's credential check decided on, if it decided on one. */
export function refusalBehind(req: Request): AppError | undefined {
  return (req as WithRefusal)[REFUSAL];
}
