import fc from 'fast-check';
import { flatten, resolve, type Document, type Schema } from '../contract-tests/property/arbitraries.js';
import type { SpecOperation } from '../contract-tests/property/operations.js';

/**
 * The request bodies that cost the validator most, for every operation with a JSON body: each fits the server's JSON
 * limit (1 MB), and each is built from the operation's schema alone.
 *
 * - `within the bounds`: every field present, every string as long as its `maxLength` allows, every array filled to
 *   its `maxItems` with distinct items (the validator compares them all), every open object filled to its
 *   `maxProperties`.
 * - `past the bounds`: the same body with one of its arrays filled with distinct items up to the size limit,
 *   whatever its `maxItems` says (one such body per array), or without an array, its longest string filled to the
 *   limit: what a client that ignores the spec can send. The validator reports every problem, so without the
 *   server's check of the bounds first (server/src/http/bounds-first.ts) it would look at each item.
 *
 * Used by bench/request-validation.ts (how long validation takes) and server/test/worst-bodies.test.ts (that the
 * server answers them and keeps answering /healthz meanwhile).
 */

/** The server's JSON body limit (express.json `1mb`). */
export const BODY_LIMIT_BYTES = 1024 * 1024;
/** Room left under the limit for what a body holds besides its filled array or string. */
const MARGIN_BYTES = 256;

export type Variant = 'within the bounds' | 'past the bounds';
export const VARIANTS: readonly Variant[] = ['within the bounds', 'past the bounds'];

export interface WorstBody {
  variant: Variant;
  body: unknown;
  /** Serialized size in bytes. */
  bytes: number;
  /** Where the largest array or string is, and how many items or characters it holds. */
  largest: string;
}

const hex = (n: number, width: number) => n.toString(16).padStart(width, '0').slice(-width);
/** A UUID (version 4 form) that differs for each `i`. */
const uuidOf = (i: number) => `${hex(i, 8)}-${hex(i >>> 8, 4)}-4${hex(i, 3)}-8${hex(i >>> 4, 3)}-${hex(i, 12)}`;
/** `prefix` padded to `length` with `fill`, distinct per `i` as long as the length leaves room for it. */
const padded = (prefix: string, i: number, length: number, fill = 'x') => {
  const start = `${prefix}${i}`;
  return start.length >= length ? start.slice(0, Math.max(length, 1)) : `${start}${fill.repeat(length - start.length)}`;
};

/** Strings the patterns of the three specs accept, as long as `length` allows and distinct per `i`. */
const PATTERNED: Array<[RegExp, (i: number, length: number) => string]> = [
  [/^\^PROV\[AB\]/, (i, length) => `PROVA.S${i}.${'x'.repeat(Math.max(1, length - `PROVA.S${i}.`.length))}`],
  [/^\^arn:/, (i, length) => padded('arn:prova:iam::123456789012:role/r', i, Math.min(length, 34 + 64 - 1))],
  [/\[0-9a-f-\]\{36\}|\[0-9a-fA-F-\]\{36\}/, (i) => uuidOf(i)],
  [/^\^\[0-9\]\+\$$/, (i, length) => `${'9'.repeat(Math.max(0, Math.min(length, 15) - String(i).length))}${i}`.slice(-Math.min(length, 15))],
  [/^\^\(?\[a-z0-9\]\[a-z0-9-\]\*\)?\??\$$/, (i, length) => padded('a', i, length, 'b')],
  [/^\^\[a-z0-9\]\[a-z0-9._-\]\*\$$/, (i, length) => padded('a', i, length, 'b')],
  [/^\^\(\[0-9\]\{12\}\|/, (i) => hex(i, 12).replace(/[a-f]/g, '7')],
  [/^\^\\S\(\.\*\\S\)\?\$$/, (i, length) => padded('n', i, length)],
];

/** The longest string the schema allows, distinct per `i` where the schema leaves room. */
function longestString(schema: Schema, i: number): string {
  if (Array.isArray(schema.enum)) {
    const values = [...(schema.enum as string[])].sort((a, b) => b.length - a.length);
    return values[i % values.length]!;
  }
  const length: number = schema.maxLength ?? Math.max(schema.minLength ?? 0, 256);
  if (schema.format === 'uuid') return uuidOf(i);
  if (schema.format === 'email') {
    const local = padded('u', i, Math.min(64, length - 6), 'a');
    let domain = 'example.com';
    while (local.length + 1 + domain.length + 64 <= length) domain = `${'d'.repeat(62)}.${domain}`;
    return `${local}@${domain}`;
  }
  if (schema.format === 'uri' || schema.format === 'url') return padded('https://hooks.example.com/p', i, length, 'p');
  if (typeof schema.pattern === 'string') {
    const known = PATTERNED.find(([test]) => test.test(schema.pattern as string));
    if (known) return known[1](i, length);
    // Any other pattern: the longest of a few strings generated from it that fit.
    const fitting = fc
      .sample(fc.stringMatching(new RegExp(schema.pattern as string)), { seed: i + 1, numRuns: 20 })
      .filter((s) => s.length <= length)
      .sort((a, b) => b.length - a.length);
    if (fitting[0] !== undefined) return fitting[0];
  }
  return padded('s', i, length);
}

/** The alternative of a `oneOf` that costs most: a string or an array before anything else. */
function costliest(doc: Document, branches: Schema[]): Schema {
  const flat = branches.map((b) => flatten(doc, b));
  return flat.find((b) => b.type === 'array') ?? flat.find((b) => b.type === 'string' && !b.enum) ?? flat[0]!;
}

interface Filler {
  doc: Document;
  /** The array or string to fill past its bounds (a path such as `body.survey_resource_types`), if any. */
  overflow?: string;
  /** Bytes that array or string may take. */
  overflowBytes?: number;
}

function valueOf(filler: Filler, node: Schema, at: string, i: number): unknown {
  let schema = flatten(filler.doc, node);
  if (Array.isArray(schema.oneOf)) schema = costliest(filler.doc, schema.oneOf as Schema[]);
  if (Array.isArray(schema.anyOf)) schema = costliest(filler.doc, schema.anyOf as Schema[]);
  const type = schema.type ?? (schema.properties ? 'object' : schema.items ? 'array' : undefined);
  switch (type) {
    case 'object': {
      const value: Record<string, unknown> = {};
      for (const [name, property] of Object.entries((schema.properties ?? {}) as Record<string, Schema>)) {
        value[name] = valueOf(filler, property, `${at}.${name}`, i);
      }
      const open = schema.additionalProperties === true || typeof schema.additionalProperties === 'object';
      if (open) {
        const values: Schema = typeof schema.additionalProperties === 'object' ? schema.additionalProperties : { type: 'string', maxLength: 64 };
        const keys = (schema.maxProperties as number | undefined) ?? 100;
        for (let k = Object.keys(value).length; k < keys; k += 1) value[padded('key', k, 64)] = valueOf(filler, values, `${at}.*`, k);
      }
      return value;
    }
    case 'array': {
      const items = resolve(filler.doc, schema.items ?? {});
      if (at === filler.overflow) {
        const out: unknown[] = [];
        let bytes = 2;
        for (let k = 0; ; k += 1) {
          const item = valueOf(filler, items, `${at}[]`, k);
          const size = JSON.stringify(item).length + 1;
          if (bytes + size > filler.overflowBytes!) return out;
          out.push(item);
          bytes += size;
        }
      }
      const count = (schema.maxItems as number | undefined) ?? 1000;
      return Array.from({ length: count }, (_, k) => valueOf(filler, items, `${at}[]`, k));
    }
    case 'string':
      if (at === filler.overflow) return padded('s', i, Math.floor(filler.overflowBytes!) - 2);
      return longestString(schema, i);
    case 'integer':
    case 'number':
      return schema.maximum ?? schema.minimum ?? 0;
    case 'boolean':
      return true;
    default:
      return longestString({ type: 'string', maxLength: 64 }, i);
  }
}

/** Every array and string of a schema, with how it is bounded, by path (`body.a.b`, `body.list[]`). */
function fillable(doc: Document, node: Schema, at: string, seen = new Set<Schema>()): Array<{ at: string; kind: 'array' | 'string'; unique: boolean; bound: number }> {
  let schema = flatten(doc, node);
  if (seen.has(schema)) return [];
  seen.add(schema);
  if (Array.isArray(schema.oneOf)) schema = costliest(doc, schema.oneOf as Schema[]);
  const found: Array<{ at: string; kind: 'array' | 'string'; unique: boolean; bound: number }> = [];
  if (schema.type === 'array' || schema.items) {
    found.push({ at, kind: 'array', unique: schema.uniqueItems === true, bound: schema.maxItems ?? Infinity });
    // Arrays nested in arrays are filled as items of the outer one.
    return found;
  }
  if (schema.type === 'string' && !schema.enum) found.push({ at, kind: 'string', unique: false, bound: schema.maxLength ?? Infinity });
  for (const [name, property] of Object.entries((schema.properties ?? {}) as Record<string, Schema>)) found.push(...fillable(doc, property, `${at}.${name}`, seen));
  return found;
}

/** The arrays to fill past their bounds, each in a body of its own, or without any the longest string. */
function overflowTargets(doc: Document, schema: Schema): string[] {
  const all = fillable(doc, schema, 'body');
  const arrays = all.filter((f) => f.kind === 'array');
  if (arrays.length > 0) return arrays.map((f) => f.at);
  const longest = all.filter((f) => f.kind === 'string').sort((a, b) => b.bound - a.bound)[0];
  return longest ? [longest.at] : [];
}

function describeLargest(body: unknown): string {
  let best = { at: 'body', size: 0, text: '' };
  const visit = (value: unknown, at: string) => {
    if (Array.isArray(value)) {
      if (value.length > best.size) best = { at, size: value.length, text: `${value.length} items` };
      value.forEach((item, k) => k < 3 && visit(item, `${at}[]`));
    } else if (typeof value === 'string') {
      if (value.length > best.size) best = { at, size: value.length, text: `${value.length} characters` };
    } else if (value && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) visit(item, `${at}.${key.length > 40 ? '*' : key}`);
    }
  };
  visit(body, 'body');
  return `${best.at}: ${best.text}`;
}

/** The worst bodies of one operation (none when it takes no JSON body). */
export function worstBodies(doc: Document, op: SpecOperation): WorstBody[] {
  const schema = op.body?.schema;
  if (!schema || op.body?.binary) return [];
  const within = valueOf({ doc }, schema, 'body', 0);
  const bodies: WorstBody[] = [{ variant: 'within the bounds', body: within, bytes: Buffer.byteLength(JSON.stringify(within)), largest: describeLargest(within) }];
  for (const overflow of overflowTargets(doc, schema)) {
    // What the rest of the body takes, measured with the target empty, leaves the room the target may fill.
    const rest = Buffer.byteLength(JSON.stringify(valueOf({ doc, overflow, overflowBytes: 2 }, schema, 'body', 0)));
    const past = valueOf({ doc, overflow, overflowBytes: BODY_LIMIT_BYTES - rest - MARGIN_BYTES }, schema, 'body', 0);
    bodies.push({ variant: 'past the bounds', body: past, bytes: Buffer.byteLength(JSON.stringify(past)), largest: describeLargest(past) });
  }
  for (const b of bodies) if (b.bytes > BODY_LIMIT_BYTES) throw new Error(`${op.operationId} ${b.variant}: ${b.bytes} bytes, past the ${BODY_LIMIT_BYTES}-byte limit`);
  return bodies;
}

/** A value for each path parameter and required query parameter that the operation's schema accepts. */
export function parameterValues(doc: Document, op: SpecOperation): { path: Record<string, string>; query: Array<[string, string]> } {
  const path: Record<string, string> = {};
  const query: Array<[string, string]> = [];
  for (const p of op.parameters) {
    if (p.in !== 'path' && !(p.in === 'query' && p.required)) continue;
    const schema = flatten(doc, p.schema);
    const value = schema.type === 'integer' || schema.type === 'number' ? String(schema.minimum ?? 0) : longestString({ ...schema, maxLength: Math.min(schema.maxLength ?? 36, 36) }, 1);
    if (p.in === 'path') path[p.name] = value;
    else query.push([p.name, value]);
  }
  return { path, query };
}
