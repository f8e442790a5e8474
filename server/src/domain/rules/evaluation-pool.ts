import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import type { RuleOutcome } from './engine.js';
import type { EvaluationTask, Miss, RuleSpec, RuleTestResult, ScanBatchResult } from './evaluation-tasks.js';

/**
 * Rule evaluation off the request thread: scans and rule tests hand their batches to worker threads (piscina), one
 * fewer than the cores (at least one), so that the request thread keeps a core for I/O and answering requests.
 * Threads start on first use and stop after a minute idle; `close()` stops them for good.
 *
 * The worker is the module beside this one: its compiled .js, or its .ts source when this module runs from source
 * (tsx, jest), in which case the thread loads tsx first, as the process did (a worker thread is a plain Node thread:
 * it shares neither tsx's hooks registered in the process nor jest's module system).
 */
const FROM_SOURCE = import.meta.url.endsWith('.ts');
const WORKER = fileURLToPath(new URL(`./evaluation-worker.${FROM_SOURCE ? 'ts' : 'js'}`, import.meta.url));
const IDLE_MS = 60_000;
/**
 * Worker threads run at a lower priority, so that on a busy machine the request thread gets a core first; only a
 * little lower, since rules' time budgets are wall-clock time, and a thread starved by other processes would see
 * rules that pass on a quiet machine run over their budget.
 */
const NICE_INCREMENT = 5;
/**
 * A worker's young generation, in MiB. An evaluation allocates little that outlives its document, so a small
 * nursery costs no time; V8's default (up to 48 MiB per thread) added some 35 MiB to the server's peak RSS during
 * a 150 000-resource scan.
 */
const WORKER_YOUNG_GENERATION_MB = 8;

export const defaultThreads = (): number => Math.max(1, availableParallelism() - 1);

export interface ScanBatchEvaluation {
  misses: Miss[];
  evaluated: number[];
}

export class EvaluationPool {
  private pool: Piscina<EvaluationTask, ScanBatchResult | RuleTestResult> | null = null;
  private closed = false;

  constructor(private readonly threads: number = defaultThreads()) {}

  /** Every applicable rule on every document (JSON text); `rulesByType` holds indexes into `rules`. */
  async scanBatch(rules: readonly RuleSpec[], rulesByType: Readonly<Record<string, readonly number[]>>, documents: readonly string[]): Promise<ScanBatchEvaluation> {
    const misses: Miss[] = [];
    const evaluated = rules.map(() => 0);
    for (let start = 0; start < documents.length; ) {
      const slice = (await this.run({ kind: 'scan', rules, rulesByType, documents, start })) as ScanBatchResult;
      misses.push(...slice.misses);
      slice.evaluated.forEach((count, i) => (evaluated[i]! += count));
      start = slice.next;
    }
    return { misses, evaluated };
  }

  /** The rule's outcome on each document (JSON text), in order; the last one is over budget if any is. */
  async test(rule: RuleSpec, documents: readonly string[]): Promise<RuleOutcome[]> {
    const outcomes: RuleOutcome[] = [];
    for (let start = 0; start < documents.length; ) {
      const slice = (await this.run({ kind: 'test', rule, documents, start })) as RuleTestResult;
      outcomes.push(...slice.outcomes);
      const last = slice.outcomes[slice.outcomes.length - 1];
      if (last?.result === 'ERROR' && last.overBudget) break;
      start = slice.next;
    }
    return outcomes;
  }

  /**
   * Tasks its threads have finished since the pool started (0 again after `close`): the record that work ran on
   * them and not on the thread that sent it.
   */
  get completedTasks(): number {
    return this.pool?.completed ?? 0;
  }

  /** Lets the tasks under way finish, then stops the threads; tasks sent afterwards are refused. */
  async close(): Promise<void> {
    this.closed = true;
    const pool = this.pool;
    this.pool = null;
    await pool?.close();
  }

  private run(task: EvaluationTask): Promise<ScanBatchResult | RuleTestResult> {
    if (this.closed) return Promise.reject(new Error('rule evaluation has stopped: the server is shutting down'));
    this.pool ??= new Piscina({
      filename: WORKER,
      minThreads: 0,
      maxThreads: this.threads,
      idleTimeout: IDLE_MS,
      niceIncrement: NICE_INCREMENT,
      resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB },
      ...(FROM_SOURCE && { execArgv: ['--import', 'tsx'] }),
    });
    return this.pool.run(task);
  }
}
