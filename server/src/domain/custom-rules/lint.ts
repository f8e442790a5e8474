import { Environment } from '@marcbachmann/cel-js';
import type { ResourceDocument } from '../rules/engine.js';
import type { RuleWarning } from './types.js';

/** The top-level fields of every resource document; a type's own settings live under `properties`. */
const DOCUMENT_FIELDS = new Set<string>(['id', 'type', 'name', 'region', 'account', 'tags', 'properties', 'resource_group'] satisfies Array<keyof ResourceDocument>);

// Parsing only: the text has already compiled in the engine, which bounds its size.
const parser = new Environment({ unlistedVariablesAreDyn: false }).registerVariable('resource', 'map');

interface Node {
  op?: string;
  args?: unknown;
  pos?: number;
}

function position(text: string, offset: number): { line: number; column: number } {
  const lines = text.slice(0, offset).split('\n');
  return { line: lines.length, column: lines[lines.length - 1]!.length + 1 };
}

/** The field a node reads directly off `resource` (`resource.x`, `resource["x"]`), if any. */
function resourceField(node: Node): { field: string; offset: number } | undefined {
  if ((node.op !== '.' && node.op !== '[]') || !Array.isArray(node.args)) return undefined;
  const [target, key] = node.args as [Node, unknown];
  if (target?.op !== 'id' || target.args !== 'resource') return undefined;
  // The parser places a member access at its field name.
  if (node.op === '.' && typeof key === 'string') return { field: key, offset: node.pos ?? 0 };
  const literal = key as Node;
  if (node.op === '[]' && literal?.op === 'value' && typeof literal.args === 'string') return { field: literal.args, offset: literal.pos ?? 0 };
  return undefined;
}

/**
 * Warnings about a rule text that compiles: it reads a top-level field no resource document has, which fails on
 * every resource at evaluation (most often a setting written without `properties.`).
 */
export function lintRule(text: string): RuleWarning[] {
  const warnings: RuleWarning[] = [];
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(visit);
    if (!value || typeof value !== 'object') return;
    const node = value as Node;
    const read = resourceField(node);
    if (read && !DOCUMENT_FIELDS.has(read.field)) {
      warnings.push({
        text: `resource has no field '${read.field}'; a resource's settings are under resource.properties (resource.properties.${read.field})`,
        ...position(text, read.offset),
      });
    }
    visit(node.args);
  };
  visit(parser.parse(text).ast);
  return warnings;
}
