import fc from 'fast-check';

/**
 * A small OpenAPI 3 schema → fast-check arbitrary converter: type, enum, minimum/maximum, minLength/maxLength,
 * pattern (fc.stringMatching), formats uuid/email/uri/date-time/binary, arrays (minItems/maxItems/uniqueItems),
 * objects (properties/required/additionalProperties), allOf/oneOf/anyOf, nullable and $ref. Values are kept small:
 * the point is to reach the server's branches, not to stress its parser.
 */
export type Schema = Record<string, any>;
export type Document = Record<string, any>;

/** Follows local `$ref`s (`#/components/...`) until a schema that is not a reference. */
export function resolve<T = Schema>(doc: Document, node: any): T {
  let current = node;
  for (let hops = 0; current && typeof current === 'object' && typeof current.$ref === 'string'; hops += 1) {
    if (hops > 32) throw new Error(`$ref cycle at ${current.$ref}`);
    const ref: string = current.$ref;
    if (!ref.startsWith('#/')) throw new Error(`only local $refs are supported: ${ref}`);
    current = ref
      .slice(2)
      .split('/')
      .reduce((acc: any, key) => acc?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
    if (current === undefined) throw new Error(`unresolved $ref ${ref}`);
  }
  return current as T;
}

/** Merges an allOf into one schema (properties and required lists unioned, the rest last-wins). */
export function flatten(doc: Document, node: any): Schema {
  const schema = resolve(doc, node);
  if (!Array.isArray(schema.allOf)) return schema;
  const merged: Schema = { ...schema };
  delete merged.allOf;
  const properties: Record<string, Schema> = { ...(schema.properties ?? {}) };
  const required = new Set<string>(schema.required ?? []);
  for (const part of schema.allOf) {
    const flat = flatten(doc, part);
    Object.assign(properties, flat.properties ?? {});
    for (const r of flat.required ?? []) required.add(r);
    for (const [key, value] of Object.entries(flat)) if (key !== 'properties' && key !== 'required' && !(key in merged)) merged[key] = value;
  }
  if (Object.keys(properties).length) merged.properties = properties;
  if (required.size) merged.required = [...required];
  return merged;
}

const MAX_ARRAY = 3;
const MAX_DEPTH = 6;

function stringArbitrary(schema: Schema): fc.Arbitrary<string> {
  const minLength: number = schema.minLength ?? 0;
  const maxLength: number = Math.min(schema.maxLength ?? Math.max(minLength, 24), Math.max(minLength, 64));
  const fits = (s: string) => s.length >= minLength && s.length <= (schema.maxLength ?? Infinity);
  let base: fc.Arbitrary<string>;
  switch (schema.format) {
    case 'uuid':
      base = fc.uuid();
      break;
    case 'email':
      base = fc.emailAddress();
      break;
    case 'uri':
    case 'url':
      base = fc.webUrl();
      break;
    case 'date-time':
      base = fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString());
      break;
    case 'date':
      base = fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10));
      break;
    default:
      base = schema.pattern ? fc.stringMatching(new RegExp(schema.pattern)) : fc.string({ minLength, maxLength });
  }
  if (schema.pattern && schema.format) {
    const re = new RegExp(schema.pattern);
    base = base.filter((s) => re.test(s));
  }
  // stringMatching ignores lengths; keep only what fits (patterns with a length are rare and generous).
  return schema.pattern || schema.format ? base.filter(fits) : base;
}

function integerArbitrary(schema: Schema): fc.Arbitrary<number> {
  const int32 = schema.format === 'int32';
  let min: number = schema.minimum ?? (int32 ? -(2 ** 31) : -1_000_000);
  let max: number = schema.maximum ?? (int32 ? 2 ** 31 - 1 : 1_000_000_000);
  if (schema.exclusiveMinimum === true) min += 1;
  if (schema.exclusiveMaximum === true) max -= 1;
  // Small values near the lower bound are the interesting ones (offsets, page sizes); mix in the extremes.
  return fc.oneof(fc.integer({ min, max: Math.min(max, min + 20) }), fc.integer({ min, max }), fc.constantFrom(min, max));
}

function numberArbitrary(schema: Schema): fc.Arbitrary<number> {
  const min: number = schema.minimum ?? -1e6;
  const max: number = schema.maximum ?? 1e9;
  return fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
}

/** An arbitrary of values valid against `node` (as far as the supported keywords go). */
export function schemaArbitrary(doc: Document, node: any, depth = 0): fc.Arbitrary<unknown> {
  const schema = flatten(doc, node);
  const nullable = schema.nullable === true;
  const wrap = (arb: fc.Arbitrary<unknown>) => (nullable ? fc.option(arb, { nil: null, freq: 5 }) : arb);
  if (Array.isArray(schema.enum)) return wrap(fc.constantFrom(...schema.enum));
  if (schema.oneOf || schema.anyOf) return wrap(fc.oneof(...(schema.oneOf ?? schema.anyOf).map((s: Schema) => schemaArbitrary(doc, s, depth + 1))));
  const type = schema.type ?? (schema.properties ? 'object' : schema.items ? 'array' : undefined);
  switch (type) {
    case 'string':
      return wrap(schema.format === 'binary' ? fc.uint8Array({ maxLength: 64 }).map((a) => Buffer.from(a)) : stringArbitrary(schema));
    case 'integer':
      return wrap(integerArbitrary(schema));
    case 'number':
      return wrap(numberArbitrary(schema));
    case 'boolean':
      return wrap(fc.boolean());
    case 'array': {
      const minLength: number = schema.minItems ?? 0;
      const maxLength = Math.max(minLength, Math.min(schema.maxItems ?? MAX_ARRAY, depth >= MAX_DEPTH ? minLength : MAX_ARRAY));
      const item = schemaArbitrary(doc, schema.items ?? {}, depth + 1);
      const array = schema.uniqueItems
        ? fc.uniqueArray(item, { minLength, maxLength, selector: (v) => JSON.stringify(v) })
        : fc.array(item, { minLength, maxLength });
      return wrap(array);
    }
    case 'object': {
      const properties: Record<string, Schema> = schema.properties ?? {};
      const required: string[] = schema.required ?? [];
      const keys = Object.keys(properties).filter((key) => depth < MAX_DEPTH || required.includes(key));
      const shape: Record<string, fc.Arbitrary<unknown>> = {};
      for (const key of keys) {
        const property = resolve(properties[key]);
        if (property.readOnly) continue;
        shape[key] = schemaArbitrary(doc, property, depth + 1);
      }
      const record = fc.record(shape, { requiredKeys: required.filter((key) => key in shape) });
      const extra = schema.additionalProperties;
      if (extra && typeof extra === 'object' && Object.keys(shape).length === 0) {
        const values = schemaArbitrary(doc, extra, depth + 1);
        return wrap(fc.dictionary(fc.stringMatching(/^[a-z][a-z0-9_]{0,11}$/), values, { maxKeys: MAX_ARRAY }));
      }
      return wrap(record);
    }
    default:
      // No type: anything JSON.
      return wrap(fc.jsonValue({ maxDepth: 2 }));
  }

  function resolve(n: any): Schema {
    return flatten(doc, n);
  }
}

/** A string that a query or path parameter of this schema serializes to. */
export const serialize = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));
