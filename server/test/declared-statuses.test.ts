import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, it } from '@jest/globals';
import { APIS, buildCoverage, clearExercised, declaredStatuses, missingStatuses, recordExercised } from '../../contract-tests/coverage.js';
import { errorShapeProblem } from '../../contract-tests/property/checks.js';
import { FaultInjector } from '../../contract-tests/statuses/faults.js';
import type { StatusContext } from '../../contract-tests/statuses/scenario.js';
import { requiredStatuses } from '../../contract-tests/statuses/required.js';
import { OPERATIONS, statusScenarios } from '../../contract-tests/statuses/table.js';
import { CapturedLog } from './captured-log.js';
import { describeEachDatabase } from './databases.js';
import { useTestServer } from './server.js';
import { expect } from './expect.js';

/**
 * Every status each operation declares is provoked once per database against the whole server
 * (response validation on, so a body the spec does not describe fails the call), and its body checked. Each
 * answer goes to the spec coverage report (`reports/exercised/declared-statuses.jsonl`); that every status the table
 * is meant to provoke is there is checked after the suites, by scripts/check-exercised.ts.
 */
const SUITE = 'declared-statuses';
/** Small, so a 413 needs only a few kilobytes; the archives the scenarios send are around 2 KiB. */
const ARCHIVE_LIMIT_BYTES = 16 * 1024;
/** Small, so a 429 needs only a few failed attempts; each scenario fails from an address of its own. */
const AUTHENTICATION_LIMITS = { windowSeconds: 900, perAddressAndIdentity: 2, perIdentity: 4, perAddress: 4 };
/** Small, so a 409 for a full quota needs only a few creates; no other scenario makes as many in one organization. */
const QUOTAS = { environments: 4, notifications: 3, groups: 3 };
const scenarios = statusScenarios();

beforeAll(() => clearExercised(SUITE));

describeEachDatabase(
  'every declared status',
  (db) => {
    const faults = new FaultInjector();
    const log = new CapturedLog();
    const server = useTestServer(db, {
      archiveLimitBytes: ARCHIVE_LIMIT_BYTES,
      authenticationLimits: AUTHENTICATION_LIMITS,
      quotas: QUOTAS,
      beforeHandler: faults.beforeHandler,
      databasePlugins: [faults.outage],
      requestLog: log.logger,
    });
    for (const scenario of scenarios) {
      const { api, operationId, status } = scenario;
      it(`${api} ${operationId} answers ${status} to ${scenario.how}`, async () => {
        const ctx: StatusContext = { server: server(), faults, archiveLimitBytes: ARCHIVE_LIMIT_BYTES, log };
        const answer = await scenario.run(ctx);
        expect(answer.status, answer.text.slice(0, 500)).toBe(status);
        if (status >= 400) expect(errorShapeProblem(api, status, answer.body), answer.text).toBeUndefined();
        await scenario.check?.(answer, ctx);
        recordExercised(SUITE, { api, operationId, status });
      });
    }
  },
  'suite',
);

const key = ({ api, operationId, status }: { api: string; operationId: string; status: number }) => `${api}.${operationId} ${status}`;

describe('the declared-status table', () => {
  const required = requiredStatuses();
  const declared = new Set([...required.values()].flatMap(({ api, operationId, statuses }) => statuses.map((status) => key({ api, operationId, status }))));
  const provoked = new Set(scenarios.map(key));

  it('has a scenario for every status the specs declare', () => {
    const missing = [...declared].filter((entry) => !provoked.has(entry));
    expect(missing, `declared statuses without a scenario: ${missing.join(', ')}`).toEqual([]);
  });

  it('provokes only declared statuses of operations the specs have', () => {
    for (const op of OPERATIONS) {
      const statuses = required.get(`${op.api}.${op.operationId}`)?.statuses;
      expect(statuses, `${op.api}.${op.operationId} is not in the specs`).toBeDefined();
      for (const status of [op.success.status, ...Object.keys(op.cases ?? {}).map(Number)]) {
        expect(statuses, `${op.api}.${op.operationId} does not declare ${status}`).toContain(status);
      }
    }
    expect(new Set(OPERATIONS.map((op) => `${op.api}.${op.operationId}`)).size).toBe(OPERATIONS.length);
    expect(OPERATIONS.length).toBe(required.size);
  });
});

describe('the spec coverage report', () => {
  // What the report requires: every declared status but 501, those the table leaves to other suites included.
  const required = new Map(
    APIS.flatMap((api) =>
      [...declaredStatuses(api)].map(([operationId, statuses]) => [`${api}.${operationId}`, { api, operationId, statuses: statuses.filter((status) => status !== 501) }] as const),
    ),
  );
  const scratch = (lines: object[]) => {
    const dir = mkdtempSync(join(tmpdir(), 'coverage-'));
    const file = join(dir, 'exercised.jsonl');
    writeFileSync(file, lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
    return { file, dispose: () => rmSync(dir, { recursive: true, force: true }) };
  };

  it('lists per operation the declared statuses nobody exercised, and counts them', () => {
    const { api, operationId, statuses } = required.get('conductor.deleteProcess')!;
    const { file, dispose } = scratch([
      { api, operationId, status: 200 },
      { api, operationId, status: 409 },
      { api, operationId, status: 418 },
    ]);
    try {
      const report = buildCoverage([file], null);
      const coverage = report.apis.conductor!.operations.deleteProcess!;
      expect(coverage.exercised).toEqual([200, 409, 418]);
      expect(coverage.missing).toEqual(statuses.filter((status) => status !== 200 && status !== 409));
      const total = [...required.values()].filter((op) => op.api === 'conductor').reduce((sum, op) => sum + op.statuses.length, 0);
      expect(report.apis.conductor!.summary.missing_statuses).toBe(total - 2);
      expect(missingStatuses(report)).toContain('conductor.deleteProcess 202');
      expect(missingStatuses(report)).not.toContain('conductor.deleteProcess 200');
      // An operation nobody called is still uncovered, as before.
      expect(report.uncovered).toContain('conductor.listAccounts');
    } finally {
      dispose();
    }
  });

  it('requires no 501 and is empty when every declared status was exercised', () => {
    const lines = [...required.values()].flatMap(({ api, operationId, statuses }) => statuses.map((status) => ({ api, operationId, status })));
    const { file, dispose } = scratch(lines);
    try {
      const report = buildCoverage([file], null);
      expect(missingStatuses(report)).toEqual([]);
      expect(report.uncovered).toEqual([]);
      for (const { summary } of Object.values(report.apis)) expect(summary.missing_statuses).toBe(0);
    } finally {
      dispose();
    }
  });
});
