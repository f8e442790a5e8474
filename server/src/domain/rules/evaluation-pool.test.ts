import { afterAll, describe, expect, it, jest } from '@jest/globals';
import { DEFAULT_BUDGET, type ResourceDocument } from './engine.js';
import { EvaluationPool } from './evaluation-pool.js';
import { evaluateRuleTest, evaluateScanBatch, SLICE_MS, type EvaluationTask } from './evaluation-tasks.js';

const bucket = (id: string, versioning: string): string =>
  JSON.stringify({ id, type: 'PROVA.S3.Bucket', name: id, region: null, account: '123456789012', tags: {}, properties: { versioning } } satisfies ResourceDocument);
const VERSIONING = { expression: 'resource.properties.versioning == "Enabled"', budget: DEFAULT_BUDGET };
const MISSING = { expression: 'resource.properties.encryption == true', budget: DEFAULT_BUDGET };
/**
 * A few milliseconds per resource: some dozens fill a time slice. What it shows is the slicing, not the time budget
 * (engine.test.ts shows that on a clock it is given), so its time budget is one a stalled thread cannot reach: with
 * the default 250 ms, one resource ran over it on a machine whose other processes held both cores.
 */
const SLOW = (() => {
  const list = (n: number) => `[${Array.from({ length: n }, (_, i) => i).join(',')}]`;
  return { expression: `${list(32)}.all(x, ${list(256)}.all(y, !resource.name.matches("q+x")))`, budget: { ...DEFAULT_BUDGET, milliseconds: 60_000 } };
})();
/** Over its cost budget on every resource. */
const OVER_BUDGET = { expression: 'resource.name.matches("a+")', budget: { cost: 1, milliseconds: 250 } };

describe('rule evaluation in worker threads', () => {
  const pool = new EvaluationPool(1);
  afterAll(() => pool.close());

  it('evaluates the rules of each type on a batch in a worker thread, reporting what did not pass', async () => {
    const documents = [bucket('a', 'Enabled'), bucket('b', 'Suspended'), JSON.stringify({ ...JSON.parse(bucket('c', 'Enabled')), type: 'PROVA.IAM.User' })];
    const evaluation = await pool.scanBatch([VERSIONING, MISSING], { 'PROVA.S3.Bucket': [0, 1] }, documents);
    expect(evaluation).toEqual({
      evaluated: [2, 2],
      misses: [
        { document: 0, rule: 1, result: 'ERROR', message: 'No such key: encryption' },
        { document: 1, rule: 0, result: 'FAIL', message: null },
        { document: 1, rule: 1, result: 'ERROR', message: 'No such key: encryption' },
      ],
    });
  });

  it('gives the worker back after a time slice, and carries on from where the slice stopped', async () => {
    const documents = Array.from({ length: 100 }, (_, i) => bucket(`b${i}`, 'Enabled'));
    // A clock that moves 10 ms at every reading: the slice starts at 0 and ends after the first reading past 50 ms,
    // that is after the 6th document.
    const ticking = () => {
      let ms = -10;
      return () => (ms += 10);
    };
    const first = evaluateRuleTest({ kind: 'test', rule: VERSIONING, documents, start: 0 }, ticking());
    expect(first).toEqual({ next: SLICE_MS / 10 + 1, outcomes: Array(SLICE_MS / 10 + 1).fill({ result: 'PASS' }) });
    const slice = evaluateScanBatch({ kind: 'scan', rules: [VERSIONING], rulesByType: { 'PROVA.S3.Bucket': [0] }, documents, start: 5 }, ticking());
    expect(slice).toEqual({ next: 5 + SLICE_MS / 10 + 1, misses: [], evaluated: [SLICE_MS / 10 + 1] });
    // A clock that stands still: the task runs to the end.
    expect(evaluateRuleTest({ kind: 'test', rule: VERSIONING, documents, start: 0 }, () => 0).next).toBe(documents.length);
    expect(SLICE_MS).toBeLessThan(100);

    // The pool sends the rest again from where each slice stopped: here every task stops after 6 documents.
    const sliced = new EvaluationPool(1);
    const sent: number[] = [];
    const run = jest.spyOn(sliced as unknown as { run(task: EvaluationTask): Promise<unknown> }, 'run').mockImplementation(async (task) => {
      sent.push(task.start);
      return task.kind === 'test' ? evaluateRuleTest(task, ticking()) : evaluateScanBatch(task, ticking());
    });
    try {
      expect(await sliced.test(VERSIONING, documents)).toEqual(documents.map(() => ({ result: 'PASS' })));
      expect(sent).toEqual(Array.from({ length: Math.ceil(documents.length / 6) }, (_, i) => i * 6));
      sent.length = 0;
      const documentsOfTwoStates = documents.map((d, i) => (i % 2 ? bucket(`b${i}`, 'Suspended') : d));
      const scanned = await sliced.scanBatch([VERSIONING], { 'PROVA.S3.Bucket': [0] }, documentsOfTwoStates);
      expect(scanned.evaluated).toEqual([documents.length]);
      expect(scanned.misses.map((miss) => miss.document)).toEqual(documents.flatMap((_, i) => (i % 2 ? [i] : [])));
      expect(sent).toHaveLength(Math.ceil(documents.length / 6));
    } finally {
      run.mockRestore();
      await sliced.close();
    }

    // In the worker threads, with their own clock, the outcomes are the same however the work was sliced.
    const before = pool.completedTasks;
    const outcomes = await pool.test(SLOW, documents);
    expect(outcomes).toEqual(documents.map(() => ({ result: 'PASS' })));
    expect(pool.completedTasks).toBeGreaterThan(before);
  }, 60_000);

  it('stops a rule test at the first resource over budget', async () => {
    const outcomes = await pool.test(OVER_BUDGET, [bucket('a', 'Enabled'), bucket('b', 'Enabled')]);
    expect(outcomes).toEqual([{ result: 'ERROR', message: 'the rule exceeded its evaluation budget of 1 units', overBudget: true }]);
  });

  it('refuses work once closed', async () => {
    const closed = new EvaluationPool(1);
    await closed.close();
    await expect(closed.test(VERSIONING, [bucket('a', 'Enabled')])).rejects.toThrow(/shutting down/);
  });
});
