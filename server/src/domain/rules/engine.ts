import { Environment, type ASTNode } from '@marcbachmann/cel-js';

/**
 * The one policy engine: built-in compliance rules, custom rules and conductor validation libraries are all CEL
 * expressions evaluated over one resource document, bound to the variable `resource`.
 *
 * Evaluation is bounded by construction: CEL has no loops or recursion, expressions are limited in size and depth
 * at compile time, comprehensions (`all`, `exists`, `map`, …) may nest at most MAX_COMPREHENSION_NESTING deep, and
 * resource documents keep their lists short, so the work per evaluation has a small fixed ceiling.
 */
export const LIMITS = { maxAstNodes: 1000, maxDepth: 48, maxListElements: 256, maxMapEntries: 256, maxCallArguments: 16 };
export const MAX_COMPREHENSION_NESTING = 2;
const COMPREHENSIONS = new Set(['all', 'exists', 'exists_one', 'map', 'filter']);

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

export type RuleOutcome = { result: 'PASS' } | { result: 'FAIL' } | { result: 'ERROR'; message: string };

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
  evaluate(document: ResourceDocument): RuleOutcome;
}

const environment = new Environment({ unlistedVariablesAreDyn: false, limits: LIMITS }).registerVariable('resource', 'map');

function position(expression: string, offset: number | undefined): { line: number; column: number } {
  const before = expression.slice(0, Math.max(0, offset ?? 0));
  const lines = before.split('\n');
  return { line: lines.length, column: lines[lines.length - 1]!.length + 1 };
}

/** The first line of the library's message: the rest repeats the expression with a caret. */
const summary = (error: unknown): string => (error instanceof Error ? error.message.split('\n')[0]!.trim() : String(error));

function comprehensionDepth(node: unknown): number {
  if (!node || typeof node !== 'object') return 0;
  if (Array.isArray(node)) return Math.max(0, ...node.map(comprehensionDepth));
  const ast = node as Partial<ASTNode> & { op?: string; args?: unknown };
  if (ast.op === undefined) return 0;
  const inner = comprehensionDepth(ast.args);
  if (ast.op === 'rcall' && Array.isArray(ast.args) && COMPREHENSIONS.has(String(ast.args[0]))) return inner + 1;
  return inner;
}

/** Compiles a rule expression, or throws RuleCompileError. The expression must yield a bool. */
export function compileRule(expression: string): CompiledRule {
  let parsed: ReturnType<typeof environment.parse>;
  try {
    parsed = environment.parse(expression);
  } catch (error) {
    const at = position(expression, (error as { range?: { start: number } }).range?.start);
    throw new RuleCompileError(summary(error), at.line, at.column);
  }
  const checked = parsed.check();
  if (!checked.valid) {
    const at = position(expression, checked.error?.range?.start);
    throw new RuleCompileError(summary(checked.error), at.line, at.column);
  }
  if (checked.type !== 'bool' && checked.type !== 'dyn') {
    throw new RuleCompileError(`a rule must yield a bool, but this expression yields ${checked.type}`, 1, 1);
  }
  if (comprehensionDepth(parsed.ast) > MAX_COMPREHENSION_NESTING) {
    throw new RuleCompileError(`comprehensions (all, exists, map, filter) may nest at most ${MAX_COMPREHENSION_NESTING} deep`, 1, 1);
  }
  return {
    expression,
    evaluate(document) {
      try {
        const value = parsed({ resource: document });
        if (value === true) return { result: 'PASS' };
        if (value === false) return { result: 'FAIL' };
        return { result: 'ERROR', message: `the rule yielded ${typeof value === 'bigint' ? 'an int' : typeof value}, not a bool` };
      } catch (error) {
        return { result: 'ERROR', message: summary(error) };
      }
    },
  };
}
