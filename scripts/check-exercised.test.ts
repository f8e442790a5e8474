import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { GROUPS } from '../client/src/cli/main.js';
import { requiredStatuses } from '../contract-tests/statuses/required.js';
import { allOperations, CHECKS, checkExercised, missingItems, recordPassed, tableCommands, type ExercisedCheck } from './check-exercised.js';

describe('the checks made after the suites', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'exercised-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('lists every command of the table as <group> <command>, and every operation of the three APIs once', () => {
    const commands = tableCommands();
    expect(commands).toContain('scans trigger');
    expect(commands).toHaveLength(GROUPS.reduce((count, group) => count + group.commands.length, 0));
    expect(new Set(commands).size).toBe(commands.length);
    const operations = allOperations();
    expect(operations).toEqual(expect.arrayContaining(['compliance.getEnvironment', 'conductor.deleteProcess', 'console.signIn']));
    expect(new Set(operations).size).toBe(operations.length);
    expect(operations.length).toBeGreaterThan(60);
  });

  it('names the items never recorded, in the expected order, and nothing once all were', async () => {
    const check: ExercisedCheck = { ...CHECKS.cliCommands, expected: () => ['scans trigger', 'scans list', 'environments get'] };
    const sub = join(dir, 'order');
    expect(missingItems(check, sub)).toBeUndefined();
    recordPassed(check, 'scans list', sub);
    recordPassed(check, 'scans list', sub);
    expect(await readFile(join(sub, 'cli-commands.txt'), 'utf8')).toBe('scans list\nscans list\n');
    expect(missingItems(check, sub)).toEqual(['scans trigger', 'environments get']);
    recordPassed(check, 'scans trigger', sub);
    recordPassed(check, 'environments get', sub);
    expect(missingItems(check, sub)).toEqual([]);
  });

  it('fails for a suite that recorded nothing and for one that missed an item, naming both; holds once all are recorded', () => {
    const sub = join(dir, 'whole');
    let result = checkExercised(sub);
    expect(result.failed).toBe(true);
    expect(result.lines.filter((line) => line.includes('did not run'))).toHaveLength(Object.keys(CHECKS).length);
    for (const command of tableCommands()) recordPassed(CHECKS.cliCommands, command, sub);
    for (const operation of allOperations()) recordPassed(CHECKS.negativeRuns, operation, sub);
    for (const operation of allOperations().slice(1)) recordPassed(CHECKS.propertyRuns, operation, sub);
    const required = [...requiredStatuses().values()];
    // The table of declared statuses writes JSON lines (read by the spec coverage too): one line per status.
    for (const { api, operationId, statuses } of required) {
      for (const status of statuses) recordPassed(CHECKS.declaredStatuses, JSON.stringify({ api, operationId, status }), sub);
    }
    result = checkExercised(sub);
    expect(result.failed).toBe(true);
    expect(result.lines.join('\n')).toContain(`1 of ${allOperations().length} operations had no green property run (server/test/property-requests.test.ts):\n  ${allOperations()[0]}`);
    recordPassed(CHECKS.propertyRuns, allOperations()[0]!, sub);
    result = checkExercised(sub);
    expect(result).toEqual({ failed: false, lines: expect.arrayContaining([expect.stringMatching(/^all \d+ declared statuses recorded by server\/test\/declared-statuses\.test\.ts$/)]) });
  });
});

