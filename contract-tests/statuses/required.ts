import { APIS, declaredStatuses, type CoverageApi } from '../coverage.js';

/**
 * What the table of declared statuses must provoke, in a module of its own: the check made after the suites
 * (scripts/check-exercised.ts) reads it without loading the table's scenarios and the test helpers they use.
 */

/** Statuses no table needs to provoke: 501 marks an operation not implemented yet. */
export const EXEMPT_STATUSES: readonly number[] = [501];

/** The declared statuses the table must provoke, per operation (`<api>.<operationId>`). */
export function requiredStatuses(): Map<string, { api: CoverageApi; operationId: string; statuses: number[] }> {
  const required = new Map<string, { api: CoverageApi; operationId: string; statuses: number[] }>();
  for (const api of APIS) {
    for (const [operationId, statuses] of declaredStatuses(api)) {
      required.set(`${api}.${operationId}`, { api, operationId, statuses: statuses.filter((status) => !EXEMPT_STATUSES.includes(status)) });
    }
  }
  return required;
}
