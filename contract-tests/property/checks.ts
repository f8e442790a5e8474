import type { SpecOperation } from './operations.js';

/** What every answer must satisfy, whatever was sent. */
export interface Answer {
  status: number;
  body: any;
  text: string;
}

/** The error body of each API: compliance and console `{type, code, message}`, the conductor `{code, message, errors}`. */
export function errorShapeProblem(api: string, status: number, body: any): string | undefined {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return 'the error body is not a JSON object';
  if (body.code !== status) return `code ${JSON.stringify(body.code)} is not the status ${status}`;
  if (typeof body.message !== 'string' || body.message.length === 0) return 'message is not a non-empty string';
  if (api === 'conductor') {
    if (!Array.isArray(body.errors)) return 'errors is not an array';
  } else if (typeof body.type !== 'string' || body.type.length === 0) return 'type is not a non-empty string';
  return undefined;
}

/** No 5xx, a status the operation declares, and the API's error shape on every 4xx. Returns the problem, if any. */
export function answerProblem(op: SpecOperation, answer: Answer): string | undefined {
  if (answer.status >= 500) return `answered ${answer.status}: ${answer.text.slice(0, 500)}`;
  if (!op.statuses.includes(String(answer.status))) return `answered ${answer.status}, which ${op.operationId} does not declare (${op.statuses.join(', ')}): ${answer.text.slice(0, 300)}`;
  if (answer.status >= 400) {
    const problem = errorShapeProblem(op.api, answer.status, answer.body);
    if (problem) return `${answer.status} with a malformed error body (${problem}): ${answer.text.slice(0, 300)}`;
  }
  return undefined;
}

/** Property runs per operation: PROPERTY_RUNS, default 15. */
export const propertyRuns = (fallback = 15): number => {
  const value = Number(process.env.PROPERTY_RUNS ?? fallback);
  if (!Number.isInteger(value) || value < 1) throw new Error(`PROPERTY_RUNS must be a positive integer, not ${process.env.PROPERTY_RUNS}`);
  return value;
};

/** The fixed seed of every property run; PROPERTY_SEED replays another. */
export const propertySeed = (): number => Number(process.env.PROPERTY_SEED ?? 20260601);

/** Operations of `expected` that `covered` lacks: the meta-check that every operation of every API is exercised. */
export function missingOperations(expected: string[], covered: Iterable<string>): string[] {
  const seen = new Set(covered);
  return expected.filter((id) => !seen.has(id));
}
