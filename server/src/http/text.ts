import type { RequestHandler } from 'express';
import { AppError } from '../domain/errors.js';
import { textProblem } from '../domain/text.js';

/** The first string (value or object key) under `value` that cannot be stored as text, with its field name. */
function firstBadText(value: unknown, field: string): { field: string; problem: string } | undefined {
  if (typeof value === 'string') {
    const problem = textProblem(value);
    return problem === undefined ? undefined : { field, problem };
  }
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = firstBadText(item, `${field}[${index}]`);
      if (found) return found;
    }
    return undefined;
  }
  // Archives arrive as a Buffer: their reader judges their content.
  if (typeof value !== 'object' || value === null || Buffer.isBuffer(value)) return undefined;
  for (const [key, item] of Object.entries(value)) {
    const keyProblem = textProblem(key);
    if (keyProblem !== undefined) return { field: field || 'body', problem: `holds a key that ${keyProblem}` };
    const found = firstBadText(item, field ? `${field}.${key}` : key);
    if (found) return found;
  }
  return undefined;
}

/**
 * Refuses a request whose path, query or JSON body holds a NUL or a lone surrogate (400, in the API's error body).
 * It runs after the validator, so credentials are judged first (401) and the route is known; before authorization
 * and the handler, so no such string reaches a use case or a store. Field names read as the validator's do:
 * `path.process`, `query.account`, `name` for a body field.
 */
export function refuseInvalidText(): RequestHandler {
  return (req, _res, next) => {
    const found =
      firstBadText(req.openapi?.pathParams ?? req.params, 'path') ?? firstBadText(req.query, 'query') ?? firstBadText(req.body, '');
    if (found) throw AppError.invalid(found.field, found.problem);
    next();
  };
}
