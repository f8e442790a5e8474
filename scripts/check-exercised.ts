import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GROUPS } from '../client/src/cli/main.js';
import { APIS, declaredStatuses, EXERCISED_DIR, exercisedFile, readExercised } from '../contract-tests/coverage.js';
import { requiredStatuses } from '../contract-tests/statuses/required.js';
import { ROOT } from './root.js';

/**
 * Checks that need a whole suite's run, made after the suites so that any test can also run alone.
 *
 * A suite appends to a record under reports/exercised/ as each of its tests passes (`recordPassed`), whichever of its
 * tests runs; `make test` and `make test-unit` empty reports/exercised/ before jest and run this script after it, which
 * fails naming what no passing test recorded. The records are plain text, one item per line, not JSON lines: every
 * `*.jsonl` under reports/exercised/ is read by the spec coverage (contract-tests/coverage.ts) as exercised statuses.
 */
export interface ExercisedCheck {
  /** The suite that records, named when it left nothing behind. */
  suite: string;
  /** What the items are, for the messages: "CLI commands". */
  items: string;
  /** What a missing item lacked: "never ran successfully". */
  lacking: string;
  /** Every item the suite must have recorded, in a stable order. */
  expected(): string[];
  /** The file the suite records to. */
  file(dir: string): string;
  /** The items `file` records. */
  read(file: string): Set<string>;
}

const readLines = (file: string): Set<string> => new Set(readFileSync(file, 'utf8').split('\n').map((line) => line.trim()).filter(Boolean));
const textRecord = (name: string) => (dir: string) => join(dir, `${name}.txt`);

/** `<group> <command>` of every command of the CLI's table, in the table's order. */
export const tableCommands = (): string[] => GROUPS.flatMap((group) => group.commands.map((command) => `${group.name} ${command.name}`));

/** `<api>.<operationId>` of every operation of the three APIs. */
export const allOperations = (): string[] => APIS.flatMap((api) => [...declaredStatuses(api).keys()].map((operationId) => `${api}.${operationId}`));

export const CHECKS = {
  cliCommands: {
    suite: 'server/test/cli.test.ts',
    items: 'CLI commands',
    lacking: 'never ran successfully',
    expected: tableCommands,
    file: textRecord('cli-commands'),
    read: readLines,
  },
  negativeRuns: {
    suite: 'server/test/negative-requests.test.ts',
    items: 'operations',
    lacking: 'had no green negative run',
    expected: allOperations,
    file: textRecord('negative-runs'),
    read: readLines,
  },
  propertyRuns: {
    suite: 'server/test/property-requests.test.ts',
    items: 'operations',
    lacking: 'had no green property run',
    expected: allOperations,
    file: textRecord('property-runs'),
    read: readLines,
  },
  // The table of declared statuses records each status it provoked for the spec coverage, as JSON lines; every
  // declared status it is meant to provoke (501 aside) must be among them.
  declaredStatuses: {
    suite: 'server/test/declared-statuses.test.ts',
    items: 'declared statuses',
    lacking: 'were not provoked by the table of declared statuses',
    expected: () => [...requiredStatuses().values()].flatMap(({ api, operationId, statuses }) => statuses.map((status) => `${api}.${operationId} ${status}`)),
    file: (dir) => exercisedFile('declared-statuses', dir),
    read: (file) => new Set(readExercised(file).map(({ api, operationId, status }) => `${api}.${operationId} ${status}`)),
  },
} satisfies Record<string, ExercisedCheck>;

/** Records that a test of `check`'s suite passed with `item`. */
export function recordPassed(check: ExercisedCheck, item: string, dir = EXERCISED_DIR): void {
  const file = check.file(dir);
  mkdirSync(dirname(file), { recursive: true });
  appendFileSync(file, `${item}\n`);
}

/** What `check` lacks in `dir`: undefined when its suite recorded nothing at all, else the missing items in order. */
export function missingItems(check: ExercisedCheck, dir = EXERCISED_DIR): string[] | undefined {
  const file = check.file(dir);
  if (!existsSync(file)) return undefined;
  const recorded = check.read(file);
  return check.expected().filter((item) => !recorded.has(item));
}

/** One line per check: what holds, or what is missing; `failed` when any check does not hold. */
export function checkExercised(dir = EXERCISED_DIR): { lines: string[]; failed: boolean } {
  const lines: string[] = [];
  let failed = false;
  for (const check of Object.values(CHECKS) as ExercisedCheck[]) {
    const missing = missingItems(check, dir);
    const total = check.expected().length;
    if (missing === undefined) {
      failed = true;
      lines.push(`${check.file(dir).replace(`${ROOT}/`, '')} does not exist: ${check.suite} did not run`);
    } else if (missing.length > 0) {
      failed = true;
      lines.push(`${missing.length} of ${total} ${check.items} ${check.lacking} (${check.suite}):\n  ${missing.join('\n  ')}`);
    } else {
      lines.push(`all ${total} ${check.items} recorded by ${check.suite}`);
    }
  }
  return { lines, failed };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { lines, failed } = checkExercised();
  for (const line of lines) (failed ? console.error : console.log)(`exercised: ${line}`);
  if (failed) process.exitCode = 1;
}
