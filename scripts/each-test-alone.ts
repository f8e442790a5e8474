import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { relative } from 'node:path';
import { parseArgs } from 'node:util';
import { Random } from '../server/src/domain/cloud/random.js';
import { ROOT } from './root.js';

/**
 * Runs tests one at a time, each in a jest run of its own selected by `-t`, and lists those that fail alone: a test
 * that passes only after its neighbours (state they leave behind) fails here. The names come from the results of a
 * whole run (`make test-unit` writes reports/jest-results.json).
 *
 *   tsx scripts/each-test-alone.ts [--results reports/jest-results.json] [--files <regex>] [--sample <n>] [--seed <s>]
 *
 * `--sample n` picks n tests (seeded by `--seed`, every file at least once when n allows) instead of all of them:
 * a jest run per test costs seconds, and the whole suite holds thousands.
 */
const { values } = parseArgs({
  options: {
    results: { type: 'string', default: 'reports/jest-results.json' },
    files: { type: 'string' },
    sample: { type: 'string' },
    seed: { type: 'string', default: 'each-test-alone' },
    parallel: { type: 'string', default: String(Math.max(1, availableParallelism())) },
  },
});

interface TestCase {
  file: string;
  name: string;
}

interface JestResults {
  testResults: Array<{ name: string; assertionResults: Array<{ fullName: string; status: string }> }>;
}

const results = JSON.parse(await readFile(values.results!, 'utf8')) as JestResults;
const fileFilter = values.files ? new RegExp(values.files) : undefined;
let tests: TestCase[] = results.testResults.flatMap((suite) =>
  suite.assertionResults.filter((a) => a.status === 'passed').map((a) => ({ file: relative(ROOT, suite.name), name: a.fullName })),
);
if (fileFilter) tests = tests.filter((t) => fileFilter.test(t.file));

if (values.sample) {
  const wanted = Number(values.sample);
  if (!Number.isInteger(wanted) || wanted < 1) throw new Error(`--sample must be a whole number above 0, got '${values.sample}'`);
  const rng = new Random(values.seed!);
  const byFile = new Map<string, TestCase[]>();
  for (const t of tests) byFile.set(t.file, [...(byFile.get(t.file) ?? []), t]);
  const picked: TestCase[] = [];
  // One of each file first, then the rest at random, so that a small sample still touches every file.
  for (const cases of byFile.values()) picked.push(cases.splice(rng.int(0, cases.length - 1), 1)[0]!);
  const rest = [...byFile.values()].flat();
  while (picked.length < wanted && rest.length > 0) picked.push(rest.splice(rng.int(0, rest.length - 1), 1)[0]!);
  tests = picked.slice(0, Math.max(wanted, 0));
}

/** jest's `-t` is a regular expression over the full name: anchored and escaped, it selects that test only. */
const exactly = (name: string) => `^${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`;

/** `make test` runs the fault and outage matrices in its jest run; jest takes them when FAULT_MATRIX is set, and they start the server from the build (`make build`). */
const MATRICES = /server\/test\/(fault|outage)-matrix\.test\.ts$/;

function runAlone(test: TestCase): Promise<{ test: TestCase; passed: boolean; output: string }> {
  return new Promise((resolve) => {
    const env = MATRICES.test(test.file) ? { ...process.env, FAULT_MATRIX: '1', FAULT_BUILD: 'dist' } : process.env;
    const child = spawn(
      process.execPath,
      ['--experimental-vm-modules', '--disable-warning=ExperimentalWarning', 'node_modules/jest/bin/jest.js', '--ci', test.file, '-t', exactly(test.name)],
      { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => {
      // A name that selects nothing counts as a failure too: the test could not be run alone by its name.
      const ran = /Tests:\s+.*\b1 passed\b/.test(output);
      resolve({ test, passed: code === 0 && ran, output });
    });
  });
}

const failures: Array<{ test: TestCase; output: string }> = [];
let next = 0;
let done = 0;
const workers = Array.from({ length: Number(values.parallel) }, async () => {
  while (next < tests.length) {
    const test = tests[next++]!;
    const outcome = await runAlone(test);
    done += 1;
    console.log(`${outcome.passed ? 'pass' : 'FAIL'} ${done}/${tests.length} ${test.file} › ${test.name}`);
    if (!outcome.passed) failures.push(outcome);
  }
});
await Promise.all(workers);

if (failures.length > 0) {
  for (const { test, output } of failures) console.error(`\n--- ${test.file} › ${test.name}\n${output.split('\n').slice(-40).join('\n')}`);
  console.error(`\n${failures.length} of ${tests.length} tests fail when run alone`);
  process.exitCode = 1;
} else {
  console.log(`each of ${tests.length} tests passes when run alone`);
}
