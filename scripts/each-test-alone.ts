import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { Random } from '../server/src/domain/cloud/random.js';
import { ROOT } from './root.js';

/**
 * Runs every test alone, selected by `-t` as its only test of its file, and lists those that fail alone: a test that
 * passes only after its neighbours (state they leave behind) fails here. The names come from the results of a whole
 * run (`make test-unit` and `make test` write reports/jest-results.json).
 *
 *   tsx scripts/each-test-alone.ts [--results reports/jest-results.json] [--files <regex>] [--sample <n>] [--seed <s>]
 *                                  [--parallel <jest runs at once>] [--batch <files per jest run, one test of each>]
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
    batch: { type: 'string', default: '6' },
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

/**
 * Tests of different files share nothing but what a whole run shares too (each file gets its own modules, server and
 * databases), so one jest run may take one test of each of several files: each file then runs with that test alone
 * selected, which its results must show (the named test passed, every other test of the file skipped). A jest run
 * costs a second or two before any test starts; batching saves that per test.
 */
type Batch = TestCase[];

function batches(cases: TestCase[], size: number): Batch[] {
  const byFile = new Map<string, TestCase[]>();
  for (const t of cases) byFile.set(t.file, [...(byFile.get(t.file) ?? []), t]);
  // The files with the most tests first, so that the long tail is one file's tests and no run waits on the others.
  const queues = [...byFile.values()].sort((a, b) => b.length - a.length);
  const planned: Batch[] = [];
  while (queues.some((q) => q.length > 0)) {
    const open = queues.filter((q) => q.length > 0);
    for (let i = 0; i < open.length; i += size) planned.push(open.slice(i, i + size).map((q) => q.shift()!));
  }
  return planned;
}

interface FileResult {
  name: string;
  message: string;
  assertionResults: Array<{ fullName: string; status: string }>;
}

interface Outcome {
  test: TestCase;
  passed: boolean;
  output: string;
}

function runBatch(batch: Batch, resultsFile: string): Promise<Outcome[]> {
  return new Promise((resolve) => {
    const env = batch.some((t) => MATRICES.test(t.file)) ? { ...process.env, FAULT_MATRIX: '1', SERVER_BUILD: 'dist' } : process.env;
    const pattern = batch.map((t) => `(?:${exactly(t.name)})`).join('|');
    const child = spawn(
      process.execPath,
      [
        '--experimental-vm-modules',
        '--disable-warning=ExperimentalWarning',
        'node_modules/jest/bin/jest.js',
        '--ci',
        '--json',
        // A file, not stdout: what the suites' own child processes print (a build, say) goes to stdout too.
        `--outputFile=${resultsFile}`,
        '--maxWorkers=1',
        '-t',
        pattern,
        '--runTestsByPath',
        ...batch.map((t) => t.file),
      ],
      { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('exit', () => {
      let files: FileResult[] = [];
      try {
        files = (JSON.parse(readFileSync(resultsFile, 'utf8')) as { testResults: FileResult[] }).testResults;
        rmSync(resultsFile);
      } catch {
        // No results at all (jest did not start): every test of the batch counts as failed, with jest's output.
      }
      resolve(
        batch.map((test) => {
          const file = files.find((f) => relative(ROOT, f.name) === test.file);
          const ran = file?.assertionResults.filter((a) => a.status !== 'pending' && a.status !== 'skipped' && a.status !== 'disabled') ?? [];
          // Passed alone: the named test ran and passed, and nothing else of its file ran (a name that selects
          // nothing, or more than the one test, fails too: the test could not be run alone by its name).
          const passed = ran.length === 1 && ran[0]!.fullName === test.name && ran[0]!.status === 'passed' && file?.message === '';
          return { test, passed, output: `${file?.message ?? ''}\n${stdout}\n${stderr}` };
        }),
      );
    });
  });
}

const planned = batches(tests, Math.max(1, Number(values.batch)));
const failures: Outcome[] = [];
let next = 0;
let done = 0;
const resultsDir = mkdtempSync(join(tmpdir(), 'each-test-alone-'));
const workers = Array.from({ length: Number(values.parallel) }, async (_, worker) => {
  while (next < planned.length) {
    const batch = planned[next++]!;
    for (const outcome of await runBatch(batch, join(resultsDir, `${worker}.json`))) {
      done += 1;
      console.log(`${outcome.passed ? 'pass' : 'FAIL'} ${done}/${tests.length} ${outcome.test.file} › ${outcome.test.name}`);
      if (!outcome.passed) failures.push(outcome);
    }
  }
});
await Promise.all(workers);
rmSync(resultsDir, { recursive: true, force: true });

if (failures.length > 0) {
  for (const { test, output } of failures) console.error(`\n--- ${test.file} › ${test.name}\n${output.split('\n').slice(-40).join('\n')}`);
  console.error(`\n${failures.length} of ${tests.length} tests fail when run alone`);
  process.exitCode = 1;
} else {
  console.log(`each of ${tests.length} tests passes when run alone`);
}
