import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { load } from 'js-yaml';

/**
 * Spec coverage: which response statuses of each operation the tests exercised, against the ones the spec declares.
 *
 * Any test suite can contribute: it appends JSON lines to a file under `reports/exercised/`, one object per line,
 *   { "api": "compliance", "operationId": "getScan", "status": 404 }
 * (`recordExercised` below does it). `make contract` adds the Dredd transactions that passed against the real
 * server, and writes `reports/spec-coverage.json`; it fails when an operation has no exercised status at all.
 * Each operation also lists the declared statuses nobody exercised (`missing`; 501 never counts): `missingStatuses`
 * names them all, for a run that requires every declared status.
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const APIS = ['compliance', 'conductor', 'console'] as const;
export type CoverageApi = (typeof APIS)[number];
/** Where test suites write their exercised statuses (JSON lines, `*.jsonl`). */
export const EXERCISED_DIR = join(ROOT, 'reports', 'exercised');
export const COVERAGE_REPORT = join(ROOT, 'reports', 'spec-coverage.json');

export interface Exercised {
  api: string;
  operationId: string;
  status: number;
  /** Dredd lines only: whether the transaction passed; a line without it counts as passed. */
  passed?: boolean;
}

/**
 * Records that a test got `status` from `operationId` of `api`, in `reports/exercised/<suite>.jsonl`.
 * A suite that wants only its latest run counted calls `clearExercised(suite)` first.
 */
export function recordExercised(suite: string, entry: Exercised): void {
  mkdirSync(EXERCISED_DIR, { recursive: true });
  const line = { api: entry.api, operationId: entry.operationId, status: Number(entry.status) };
  appendFileSync(exercisedFile(suite), `${JSON.stringify(line)}\n`);
}

/** The file `recordExercised(suite, …)` appends to (under `dir`, reports/exercised/ unless given). */
export const exercisedFile = (suite: string, dir = EXERCISED_DIR): string => join(dir, `${suite}.jsonl`);

/** Empties `reports/exercised/<suite>.jsonl`. */
export function clearExercised(suite: string): void {
  mkdirSync(EXERCISED_DIR, { recursive: true });
  writeFileSync(exercisedFile(suite), '');
}

/** Reads JSON lines; a line that is not `{api, operationId, status}` is an error naming the file and line. */
export function readExercised(file: string): Exercised[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .map((line, index) => [line.trim(), index + 1] as const)
    .filter(([line]) => line !== '')
    .map(([line, number]) => {
      let entry: Partial<Exercised> | undefined;
      try {
        entry = JSON.parse(line) as Partial<Exercised>;
      } catch {
        entry = undefined;
      }
      if (!entry || typeof entry.api !== 'string' || typeof entry.operationId !== 'string' || !Number.isInteger(Number(entry.status))) {
        throw new Error(`${file}:${number}: expected {"api", "operationId", "status"}, got ${line}`);
      }
      return { api: entry.api, operationId: entry.operationId, status: Number(entry.status), ...(entry.passed !== undefined && { passed: entry.passed }) };
    });
}

export interface OperationCoverage {
  declared: number[];
  exercised: number[];
  /** Declared and never exercised, 501 (not implemented) aside. */
  missing: number[];
  /** The spec still declares 501 (not implemented): not required to be covered. */
  pending: boolean;
}

export interface ApiCoverage {
  operations: Record<string, OperationCoverage>;
  summary: { operations: number; covered: number; pending: number; declared_statuses: number; exercised_statuses: number; missing_statuses: number };
}

export interface CoverageReport {
  sources: string[];
  apis: Record<string, ApiCoverage>;
  /** `<api>.<operationId>` of the implemented operations with no exercised status. */
  uncovered: string[];
  /** Lines naming an operation the specs do not have. */
  unknown: Exercised[];
}

/** Marks an operation not implemented yet; never required to be exercised. */
const NOT_IMPLEMENTED = 501;

type Swagger = { paths: Record<string, Record<string, { operationId?: string; responses?: Record<string, unknown> }>> };

/** Declared statuses of every operation of `api` (operationId → statuses, ascending), from generated/<api>/swagger.yaml. */
export function declaredStatuses(api: CoverageApi): Map<string, number[]> {
  const swagger = load(readFileSync(join(ROOT, 'generated', api, 'swagger.yaml'), 'utf8')) as Swagger;
  const operations = new Map<string, number[]>();
  for (const item of Object.values(swagger.paths)) {
    for (const op of Object.values(item)) {
      if (!op || typeof op !== 'object' || !op.operationId) continue;
      const statuses = Object.keys(op.responses ?? {}).filter((code) => /^\d+$/.test(code)).map(Number);
      operations.set(op.operationId, statuses.sort((a, b) => a - b));
    }
  }
  return operations;
}

/**
 * Builds the report from the given JSON-lines files plus every `*.jsonl` under `suitesDir` (`reports/exercised/`;
 * null: the given files only).
 */
export function buildCoverage(extraFiles: string[] = [], suitesDir: string | null = EXERCISED_DIR): CoverageReport {
  const suiteFiles =
    suitesDir !== null && existsSync(suitesDir)
      ? readdirSync(suitesDir).filter((name) => name.endsWith('.jsonl')).sort().map((name) => join(suitesDir, name))
      : [];
  const files = [...extraFiles, ...suiteFiles];
  const entries = files.flatMap(readExercised).filter((entry) => entry.passed !== false);
  const report: CoverageReport = { sources: files.map((file) => file.replace(`${ROOT}/`, '')), apis: {}, uncovered: [], unknown: [] };
  const exercised = new Map<string, Set<number>>();
  const known = new Set<string>();
  for (const api of APIS) {
    for (const operationId of declaredStatuses(api).keys()) known.add(`${api}.${operationId}`);
  }
  for (const entry of entries) {
    const key = `${entry.api}.${entry.operationId}`;
    if (!known.has(key)) {
      report.unknown.push(entry);
      continue;
    }
    if (!exercised.has(key)) exercised.set(key, new Set());
    exercised.get(key)!.add(entry.status);
  }
  for (const api of APIS) {
    const operations: Record<string, OperationCoverage> = {};
    const summary = { operations: 0, covered: 0, pending: 0, declared_statuses: 0, exercised_statuses: 0, missing_statuses: 0 };
    for (const [operationId, statuses] of [...declaredStatuses(api)].sort(([a], [b]) => a.localeCompare(b))) {
      const seen = [...(exercised.get(`${api}.${operationId}`) ?? [])].sort((a, b) => a - b);
      const pending = statuses.includes(NOT_IMPLEMENTED);
      const missing = statuses.filter((status) => status !== NOT_IMPLEMENTED && !seen.includes(status));
      operations[operationId] = { declared: statuses, exercised: seen, missing, pending };
      summary.operations += 1;
      summary.missing_statuses += missing.length;
      summary.declared_statuses += statuses.length;
      summary.exercised_statuses += seen.filter((status) => statuses.includes(status)).length;
      if (seen.length > 0) summary.covered += 1;
      else if (pending) summary.pending += 1;
      else report.uncovered.push(`${api}.${operationId}`);
    }
    report.apis[api] = { operations, summary };
  }
  return report;
}

/**
 * Every declared status nobody exercised, as `<api>.<operationId> <status>`, in the report's order; empty when every
 * declared status (501 aside) was exercised.
 */
export function missingStatuses(report: CoverageReport): string[] {
  return Object.entries(report.apis).flatMap(([api, { operations }]) =>
    Object.entries(operations).flatMap(([operationId, { missing }]) => missing.map((status) => `${api}.${operationId} ${status}`)),
  );
}

/** Writes the report to `reports/spec-coverage.json`; returns one summary line per API. */
export function writeCoverage(report: CoverageReport, file = COVERAGE_REPORT): string[] {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  return Object.entries(report.apis).map(
    ([api, { summary: s }]) =>
      `${api.padEnd(10)} operations covered ${s.covered}/${s.operations}${s.pending ? ` (${s.pending} pending 501)` : ''}, ` +
      `statuses exercised ${s.exercised_statuses}/${s.declared_statuses}${s.missing_statuses ? `, ${s.missing_statuses} declared never exercised` : ''}`,
  );
}
