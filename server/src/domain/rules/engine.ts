import { Environment, type ASTNode } from '@marcbachmann/cel-js';
import { RE2JS } from 're2js';
import { LRUCache } from 'lru-cache';

/**
 * The one policy engine: built-in compliance rules, custom rules and conductor validation libraries are all CEL
 * expressions evaluated over one resource document, bound to the variable `resource`.
 *
 * Evaluation is bounded: CEL has no loops or recursion, expressions are limited in size and depth at compile time,
 * comprehensions and `cel.bind` (`all`, `exists`, `map`, …) may nest at most MAX_COMPREHENSION_NESTING deep (a
 * deeper chain of bound variables doubles a value per level), and resource documents keep their lists short.
 * cel-js has no hook to meter evaluation steps, so the library functions whose work grows with the size of their
 * input (`matches`, `join`, `split`) are replaced by metered ones: each charges the characters it scans or builds
 * against the evaluation's budget (EvaluationBudget) and checks its deadline; over budget, the rule's outcome is an
 * ERROR with `overBudget` set.
 *
 * Regular expressions have RE2 semantics, as CEL specifies, and run in linear time (re2js): no backreferences or
 * lookaround, and `matches` finds a match anywhere in the string unless the pattern is anchored.
 */
export const LIMITS = { maxAstNodes: 1000, maxDepth: 48, maxListElements: 256, maxMapEntries: 256, maxCallArguments: 16 };
export const MAX_COMPREHENSION_NESTING = 2;
/** Macros that bind a variable whose value the body may reuse: comprehensions and `cel.bind`. */
const COMPREHENSIONS = new Set(['all', 'exists', 'exists_one', 'map', 'filter', 'bind']);

/**
 * What one evaluation of a rule on one resource may spend: `cost` in characters scanned or built by the metered
 * functions (a regular expression's characters weigh more as its program grows), `milliseconds` of wall time,
 * checked whenever a metered function runs.
 */
export interface EvaluationBudget {
  cost: number;
  milliseconds: number;
}
export const DEFAULT_BUDGET: EvaluationBudget = { cost: 16_000_000, milliseconds: 250 };

/** What a rule sees: one resource of the simulated (or a real) cloud. */
export interface ResourceDocument {
  id: string;
  type: string;
  name: string;
  region: string | null;
  account: string;
  tags: Record<string, string>;
  properties: Record<string, unknown>;
  /** provider_b only. */
  resource_group?: string;
}

/** `overBudget`: the evaluation was stopped because it exceeded its EvaluationBudget. */
export type RuleOutcome = { result: 'PASS' } | { result: 'FAIL' } | { result: 'ERROR'; message: string; overBudget?: true };

/** A compile error with the compiler's message and where in the expression it is (1-based). */
export class RuleCompileError extends Error {
  constructor(
    message: string,
    readonly line: number,
    readonly column: number,
  ) {
    super(`${message} (at line ${line}, column ${column})`);
    this.name = 'RuleCompileError';
  }
}

export interface CompiledRule {
  readonly expression: string;
  /** What each evaluation may spend; with `expression`, all a worker thread needs to compile the rule again. */
  readonly budget: EvaluationBudget;
  evaluate(document: ResourceDocument): RuleOutcome;
}

/** The meter of the evaluation under way; evaluation is synchronous, so there is at most one. */
class Meter {
  private spent = 0;
  private readonly deadline: number;
  exceeded: string | null = null;

  constructor(
    private readonly budget: EvaluationBudget,
    private readonly now: () => number,
  ) {
    this.deadline = now() + budget.milliseconds;
  }

  charge(cost: number): void {
    this.spent += cost;
    if (this.spent > this.budget.cost) this.stop(`the rule exceeded its evaluation budget of ${this.budget.cost} units`);
    if (this.now() > this.deadline) this.stop(`the rule exceeded its evaluation time budget of ${this.budget.milliseconds} ms`);
  }

  private stop(message: string): never {
    this.exceeded = message;
    throw new Error(message);
  }
}

let meter: Meter | null = null;
const charge = (cost: number): void => meter?.charge(cost);

const REGEX_CACHE_SIZE = 512;
/** Patterns compiled with RE2 syntax, or their syntax errors; the least recently used go first. */
const regexCache = new LRUCache<string, RE2JS | Error>({ max: REGEX_CACHE_SIZE });

/** The pattern compiled with RE2 syntax, or the syntax error; both are cached. */
function compileRegex(pattern: string): RE2JS | Error {
  let compiled = regexCache.get(pattern);
  if (compiled === undefined) {
    try {
      compiled = RE2JS.compile(pattern);
    } catch (error) {
      compiled = new Error(`invalid regular expression ${JSON.stringify(pattern)}: ${error instanceof Error ? error.message : String(error)}`);
    }
    regexCache.set(pattern, compiled);
  }
  return compiled;
}

function matches(text: string, pattern: string): boolean {
  charge(pattern.length);
  const regex = compileRegex(pattern);
  if (regex instanceof Error) throw regex;
  // The automaton may step through every instruction of the program for each character.
  charge((text.length + 1) * Math.ceil(regex.programSize() / 32));
  return regex.test(text);
}

function join(list: unknown[], separator = ''): string {
  for (const element of list) {
    if (typeof element !== 'string') throw new Error('join(): the list must contain only strings');
  }
  const strings = list as string[];
  charge(strings.reduce((total, s) => total + s.length, separator.length * strings.length));
  return strings.join(separator);
}

function split(text: string, separator: string, limit = -1n): string[] {
  charge(text.length + 1);
  const n = Number(limit);
  if (n === 0) return [];
  const parts = text.split(separator);
  charge(parts.length);
  if (n < 0 || parts.length <= n) return parts;
  return [...parts.slice(0, n - 1), parts.slice(n - 1).join(separator)];
}

/**
 * The library's `matches` uses backtracking JavaScript regular expressions, and cel-js refuses a second overload
 * with the same signature, so calls of the metered functions are renamed in the parsed expression to these.
 */
const METERED = new Map([
  ['matches', 'metered_matches'],
  ['join', 'metered_join'],
  ['split', 'metered_split'],
]);
const PUBLIC_NAME = new Map([...METERED].map(([name, metered]) => [metered, name]));

const environment = new Environment({ unlistedVariablesAreDyn: false, limits: LIMITS })
  .registerVariable('resource', 'map')
  .registerFunction('string.metered_matches(string): bool', matches)
  .registerFunction('list<string>.metered_join(): string', (list: unknown[]) => join(list))
  .registerFunction('list<string>.metered_join(string): string', join)
  .registerFunction('string.metered_split(string): list<string>', (text: string, separator: string) => split(text, separator))
  .registerFunction('string.metered_split(string, int): list<string>', split);

interface CallNode {
  op: 'rcall';
  args: [string, AstLike, AstLike[]];
  start: number;
}
type AstLike = { op?: string; args?: unknown; start?: number } | null | undefined;

/** The rcall nodes of the parsed expression, macro arguments included. */
function* methodCalls(node: unknown): Generator<CallNode> {
  if (!node || typeof node !== 'object') return;
  if (Array.isArray(node)) {
    for (const child of node) yield* methodCalls(child);
    return;
  }
  const ast = node as AstLike & object;
  if (ast.op === undefined) return;
  if (ast.op === 'rcall' && Array.isArray(ast.args) && typeof ast.args[0] === 'string') yield ast as CallNode;
  yield* methodCalls(ast.args);
}

/**
 * Renames calls of the metered functions, and refuses a constant pattern that is not an RE2 regular expression,
 * at the position of the pattern.
 */
function meterCalls(expression: string, ast: unknown): void {
  for (const call of methodCalls(ast)) {
    const metered = METERED.get(call.args[0]);
    if (metered === undefined) continue;
    call.args[0] = metered;
    const pattern = call.args[2][0];
    if (metered === 'metered_matches' && pattern?.op === 'value' && typeof pattern.args === 'string') {
      const regex = compileRegex(pattern.args);
      if (regex instanceof Error) {
        const at = position(expression, pattern.start);
        throw new RuleCompileError(regex.message, at.line, at.column);
      }
    }
  }
}

const publicNames = (message: string): string => message.replace(/metered_(matches|join|split)/g, (name) => PUBLIC_NAME.get(name) ?? name);

function position(expression: string, offset: number | undefined): { line: number; column: number } {
  const before = expression.slice(0, Math.max(0, offset ?? 0));
  const lines = before.split('\n');
  return { line: lines.length, column: lines[lines.length - 1]!.length + 1 };
}

/** The first line of the library's message: the rest repeats the expression with a caret. */
const summary = (error: unknown): string =>
  publicNames(error instanceof Error ? error.message.split('\n')[0]!.trim() : String(error));

function comprehensionDepth(node: unknown): number {
  if (!node || typeof node !== 'object') return 0;
  if (Array.isArray(node)) return Math.max(0, ...node.map(comprehensionDepth));
  const ast = node as Partial<ASTNode> & { op?: string; args?: unknown };
  if (ast.op === undefined) return 0;
  const inner = comprehensionDepth(ast.args);
  if (ast.op === 'rcall' && Array.isArray(ast.args) && COMPREHENSIONS.has(String(ast.args[0]))) return inner + 1;
  return inner;
}

/** The clock of evaluation deadlines: monotonic milliseconds. */
const monotonicMs = (): number => performance.now();

/**
 * Compiles a rule expression, or throws RuleCompileError. The expression must yield a bool. Each evaluation may
 * spend `budget`; its time is read from `now` (monotonic milliseconds; tests pass a clock they move themselves).
 */
export function compileRule(expression: string, budget: EvaluationBudget = DEFAULT_BUDGET, now: () => number = monotonicMs): CompiledRule {
  let parsed: ReturnType<typeof environment.parse>;
  try {
    parsed = environment.parse(expression);
  } catch (error) {
    const at = position(expression, (error as { range?: { start: number } }).range?.start);
    throw new RuleCompileError(summary(error), at.line, at.column);
  }
  meterCalls(expression, parsed.ast);
  const checked = parsed.check();
  if (!checked.valid) {
    const at = position(expression, checked.error?.range?.start);
    throw new RuleCompileError(summary(checked.error), at.line, at.column);
  }
  if (checked.type !== 'bool' && checked.type !== 'dyn') {
    throw new RuleCompileError(`a rule must yield a bool, but this expression yields ${checked.type}`, 1, 1);
  }
  if (comprehensionDepth(parsed.ast) > MAX_COMPREHENSION_NESTING) {
    throw new RuleCompileError(`comprehensions (all, exists, map, filter) and cel.bind may nest at most ${MAX_COMPREHENSION_NESTING} deep`, 1, 1);
  }
  return {
    expression,
    budget,
    evaluate(document) {
      const own = new Meter(budget, now);
      meter = own;
      try {
        const value = parsed({ resource: document });
        if (value === true) return { result: 'PASS' };
        if (value === false) return { result: 'FAIL' };
        return { result: 'ERROR', message: `the rule yielded ${typeof value === 'bigint' ? 'an int' : typeof value}, not a bool` };
      } catch (error) {
        if (own.exceeded !== null) return { result: 'ERROR', message: own.exceeded, overBudget: true };
        return { result: 'ERROR', message: summary(error) };
      } finally {
        meter = null;
      }
    },
  };
}
