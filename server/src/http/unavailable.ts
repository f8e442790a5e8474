import type { Request } from 'express';
import type { AppError } from '../domain/errors.js';
import { asUnavailable, isUnavailable } from '../storage/availability.js';

/**
 * A request whose credentials could not be checked because the database cannot serve now must be answered 503,
 * like any other request meeting it. The validator passes on only a status and a message of what a security
 * handler threw, so the handler keeps the error on the request, and the error renderer finds it there.
 */
const UNAVAILABLE = Symbol('database unavailable while checking the credentials');
type WithUnavailable = { [UNAVAILABLE]?: AppError };

/** Called with whatever checking the credentials failed with; keeps it when it means the database is unavailable. */
export function keepIfUnavailable(req: Request, error: unknown): void {
  if (isUnavailable(error)) (req as WithUnavailable)[UNAVAILABLE] = asUnavailable(error) as AppError;
}

/** The unavailability the request's credential check met, if it met one. */
export function unavailableBehind(req: Request): AppError | undefined {
  return (req as WithUnavailable)[UNAVAILABLE];
}

/** A driver's error that means the database cannot serve now, as AppError `unavailable`; undefined for any other. */
export function unavailableFrom(error: unknown): AppError | undefined {
  const converted = asUnavailable(error);
  return converted === error ? undefined : (converted as AppError);
}
