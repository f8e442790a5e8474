import { COMPLIANCE_OPERATIONS } from './compliance.js';
import { CONDUCTOR_OPERATIONS } from './conductor.js';
import { CONSOLE_OPERATIONS } from './console.js';
import { requiredStatuses } from './required.js';
import { scenariosOf, type OperationStatuses, type StatusScenario } from './scenario.js';

/**
 * Every declared response status of every operation, provoked against the real server. Each
 * operation lists a valid call and the scenarios of its own statuses (compliance.ts, conductor.ts, console.ts);
 * scenario.ts derives the statuses every operation answers alike. A status the spec declares must have a
 * scenario here, or be listed below with the reason it has none.
 */

export const OPERATIONS: OperationStatuses[] = [...COMPLIANCE_OPERATIONS, ...CONDUCTOR_OPERATIONS, ...CONSOLE_OPERATIONS];

/** Every scenario of the table, in the specs' order of operations and statuses. */
export function statusScenarios(): StatusScenario[] {
  const byKey = new Map(OPERATIONS.map((op) => [`${op.api}.${op.operationId}`, op]));
  const scenarios: StatusScenario[] = [];
  for (const [key, { statuses }] of requiredStatuses()) {
    const op = byKey.get(key);
    if (op) scenarios.push(...scenariosOf(op, statuses));
  }
  return scenarios;
}
