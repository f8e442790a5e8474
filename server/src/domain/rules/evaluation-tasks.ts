import { compileRule, type CompiledRule, type EvaluationBudget, type ResourceDocument, type RuleOutcome } from './engine.js';

/**
 * The work a rule-evaluation worker thread does, as plain data both ways (messages between threads are structured
 * clones: compiled rules cannot cross, so rules travel as their expression and budget and are compiled again in the
 * worker). Documents travel as their JSON text, which the caller has at hand (it stores that text) and which clones
 * far more cheaply than objects.
 *
 * A task evaluates documents from `start` on and stops after its time slice, so that one long task cannot hold a
 * worker while others wait; the caller sends the rest again from `next`.
 */
export interface RuleSpec {
  expression: string;
  budget: EvaluationBudget;
}

/** Every rule of a scan on a batch of resources. */
export interface ScanBatchTask {
  kind: 'scan';
  rules: readonly RuleSpec[];
  /** For each resource type, the indexes in `rules` of the rules that apply to it. */
  rulesByType: Readonly<Record<string, readonly number[]>>;
  documents: readonly string[];
  start: number;
}

/** A rule that did not pass on a document; indexes into the task's documents and rules. */
export interface Miss {
  document: number;
  rule: number;
  result: 'FAIL' | 'ERROR';
  /** Why the rule could not be evaluated (ERROR only). */
  message: string | null;
}

export interface ScanBatchResult {
  /** The first document not evaluated yet; the task's length when all were. */
  next: number;
  misses: Miss[];
  /** How many documents each rule was evaluated on, by index in the task's rules. */
  evaluated: number[];
}

/** One rule on a batch of resources, for a rule test. */
export interface RuleTestTask {
  kind: 'test';
  rule: RuleSpec;
  documents: readonly string[];
  start: number;
}

export interface RuleTestResult {
  next: number;
  /** From `start` to `next`, one per document. Stops after the first outcome over budget. */
  outcomes: RuleOutcome[];
}

export type EvaluationTask = ScanBatchTask | RuleTestTask;

/** How long one task may run before it hands the worker back (at least one document is always evaluated). */
export const SLICE_MS = 50;

/** The clock of time slices: monotonic milliseconds. */
const monotonicMs = (): number => performance.now();

const COMPILED_CACHE_SIZE = 1000;
const compiledCache = new Map<string, CompiledRule | Error>();

/** The rule compiled in this thread, kept by expression and budget. */
function compiled(spec: RuleSpec): CompiledRule | Error {
  const key = `${spec.budget.cost}:${spec.budget.milliseconds}:${spec.expression}`;
  let rule = compiledCache.get(key);
  if (rule === undefined) {
    try {
      rule = compileRule(spec.expression, spec.budget);
    } catch (error) {
      // The caller compiled the rule before sending it, so this only happens if the engine changed under a rule.
      rule = error instanceof Error ? error : new Error(String(error));
    }
    if (compiledCache.size >= COMPILED_CACHE_SIZE) compiledCache.clear();
    compiledCache.set(key, rule);
  }
  return rule;
}

function evaluate(rule: CompiledRule | Error, document: ResourceDocument): RuleOutcome {
  return rule instanceof Error ? { result: 'ERROR', message: rule.message } : rule.evaluate(document);
}

/** `now`: the clock of the time slice (tests pass one they move themselves). */
export function evaluateScanBatch(task: ScanBatchTask, now: () => number = monotonicMs): ScanBatchResult {
  const rules = task.rules.map(compiled);
  const evaluated = task.rules.map(() => 0);
  const misses: Miss[] = [];
  const until = now() + SLICE_MS;
  let index = task.start;
  while (index < task.documents.length) {
    const document = JSON.parse(task.documents[index]!) as ResourceDocument;
    for (const ruleIndex of Object.hasOwn(task.rulesByType, document.type) ? task.rulesByType[document.type]! : []) {
      evaluated[ruleIndex]! += 1;
      const outcome = evaluate(rules[ruleIndex]!, document);
      if (outcome.result === 'PASS') continue;
      misses.push({ document: index, rule: ruleIndex, result: outcome.result, message: outcome.result === 'ERROR' ? outcome.message : null });
    }
    index += 1;
    if (now() > until) break;
  }
  return { next: index, misses, evaluated };
}

/** `now`: the clock of the time slice (tests pass one they move themselves). */
export function evaluateRuleTest(task: RuleTestTask, now: () => number = monotonicMs): RuleTestResult {
  const rule = compiled(task.rule);
  const outcomes: RuleOutcome[] = [];
  const until = now() + SLICE_MS;
  let index = task.start;
  while (index < task.documents.length) {
    const outcome = evaluate(rule, JSON.parse(task.documents[index]!) as ResourceDocument);
    outcomes.push(outcome);
    index += 1;
    if ((outcome.result === 'ERROR' && outcome.overBudget) || now() > until) break;
  }
  return { next: index, outcomes };
}

/** What a worker thread runs: one task, answered with plain data. */
export function runTask(task: EvaluationTask): ScanBatchResult | RuleTestResult {
  return task.kind === 'scan' ? evaluateScanBatch(task) : evaluateRuleTest(task);
}
