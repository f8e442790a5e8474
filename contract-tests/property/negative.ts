import { buildRequest, type GeneratedRequest, type RequestValues, type SpecOperation } from './operations.js';
import type { Schema } from './arbitraries.js';

/**
 * Negative mode: requests that the spec makes invalid, derived from an operation's parameters and body schema,
 * each named by the rule it breaks. The server must refuse every one with a declared 4xx and change nothing.
 */
export interface NegativeCase {
  name: string;
  request: GeneratedRequest;
  /** Statuses this case may get; any declared 4xx when absent. */
  expected?: number[];
}

/** Strings tried, in order, against a pattern until one does not match it. */
const PATTERN_BREAKERS = ['not valid!', 'UPPER_CASE', '12/31/2026', '-leading-dash', 'a', '0', 'x'.repeat(300), '%%%'];

/** Serialized (query or path) values that break a parameter's schema. */
export function invalidParameterValues(schema: Schema): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  if (Array.isArray(schema.enum)) out.push(['unknown enum value', 'not-a-member-of-the-enum']);
  switch (schema.type) {
    case 'integer':
    case 'number':
      out.push(['not a number', 'abc']);
      if (schema.type === 'integer') out.push(['not an integer', '1.5']);
      if (typeof schema.minimum === 'number') out.push(['below the minimum', String(schema.minimum - 1)]);
      if (typeof schema.maximum === 'number') out.push(['above the maximum', String(schema.maximum + 1)]);
      break;
    case 'boolean':
      out.push(['not a boolean', 'maybe']);
      break;
    case 'string': {
      if (Array.isArray(schema.enum)) break;
      if (schema.format === 'uuid') out.push(['not a uuid', 'not-a-uuid']);
      if (schema.format === 'email') out.push(['not an email', 'not-an-email']);
      if (typeof schema.maxLength === 'number') out.push(['longer than maxLength', 'x'.repeat(schema.maxLength + 1)]);
      if (typeof schema.minLength === 'number' && schema.minLength > 1) out.push(['shorter than minLength', 'x'.repeat(schema.minLength - 1)]);
      if (typeof schema.pattern === 'string') {
        const re = new RegExp(schema.pattern);
        const breaker = PATTERN_BREAKERS.find((s) => !re.test(s));
        if (breaker) out.push(['not matching the pattern', breaker]);
      }
      break;
    }
  }
  return out;
}

/** JSON values of the wrong type, or out of range, for a body property of this schema. */
export function invalidJsonValues(schema: Schema): Array<[string, unknown]> {
  const out: Array<[string, unknown]> = [];
  if (Array.isArray(schema.enum) && schema.type === 'string') out.push(['unknown enum value', 'not-a-member-of-the-enum']);
  switch (schema.type) {
    case 'string':
      out.push(['a number for a string', 12345]);
      if (schema.format === 'uuid') out.push(['not a uuid', 'not-a-uuid']);
      if (schema.format === 'email') out.push(['not an email', 'not-an-email']);
      if (typeof schema.maxLength === 'number') out.push(['longer than maxLength', 'x'.repeat(schema.maxLength + 1)]);
      if (typeof schema.pattern === 'string' && !Array.isArray(schema.enum)) {
        const re = new RegExp(schema.pattern);
        const breaker = PATTERN_BREAKERS.find((s) => !re.test(s));
        if (breaker !== undefined) out.push(['not matching the pattern', breaker]);
      }
      break;
    case 'integer':
    case 'number':
      out.push(['a string for a number', 'abc']);
      if (typeof schema.minimum === 'number') out.push(['below the minimum', schema.minimum - 1]);
      if (typeof schema.maximum === 'number') out.push(['above the maximum', schema.maximum + 1]);
      break;
    case 'boolean':
      out.push(['a string for a boolean', 'yes']);
      break;
    case 'array':
      out.push(['an object for an array', { not: 'an array' }]);
      if (typeof schema.maxItems === 'number' && schema.items?.type === 'string' && !schema.uniqueItems) out.push(['more than maxItems', Array.from({ length: schema.maxItems + 1 }, () => 'x')]);
      break;
    case 'object':
      out.push(['a number for an object', 7]);
      break;
  }
  if (schema.nullable !== true && schema.type) out.push(['null where not nullable', null]);
  return out;
}

export interface NegativeOptions {
  /** Hostile archives, by name, for binary bodies. */
  hostileArchives?: Record<string, Buffer>;
  /** Resolves a property schema (for $refs inside a body schema). */
  flatten: (node: unknown) => Schema;
}

/** Every negative case of an operation, built around `base`: a valid request of it. */
export function negativeCases(op: SpecOperation, base: RequestValues, options: NegativeOptions): NegativeCase[] {
  const cases: NegativeCase[] = [];
  // An input the spec makes invalid is a bad request; a path parameter may also name nothing (404).
  const build = (name: string, change: (values: RequestValues) => RequestValues, expected: number[] = [400]) =>
    cases.push({ name, request: buildRequest(op, change(structuredClone({ ...base, body: Buffer.isBuffer(base.body) ? undefined : base.body })) ), expected });
  const withBody = (values: RequestValues, body: unknown, contentType = values.contentType) => ({ ...values, body, contentType });

  // The spec lists every parameter an operation takes; the server refuses the others.
  build('query: an undeclared parameter', (values) => keepBody({ ...values, query: [...values.query, ['undeclared_parameter_xyz', '1']] }));
  for (const p of op.parameters) {
    for (const [label, value] of invalidParameterValues(p.schema)) {
      build(
        `${p.in} ${p.name}: ${label}`,
        (values) => {
          if (p.in === 'path') values.path[p.name] = value;
          else if (p.in === 'header') values.headers[p.name.toLowerCase()] = value;
          else values.query = [...values.query.filter(([k]) => k !== p.name), [p.name, value]];
          return keepBody(values);
        },
        p.in === 'path' ? [400, 404] : [400],
      );
    }
    if (p.required && p.in === 'query') build(`query ${p.name}: missing`, (values) => keepBody({ ...values, query: values.query.filter(([k]) => k !== p.name) }));
  }

  function keepBody(values: RequestValues): RequestValues {
    return Buffer.isBuffer(base.body) ? { ...values, body: base.body } : values;
  }

  if (op.body?.binary) {
    for (const [name, archive] of Object.entries(options.hostileArchives ?? {})) {
      build(`body: hostile archive ${name}`, (values) => withBody(values, archive));
    }
    build('body: JSON where an archive is expected', (values) => withBody(values, '{"not":"an archive"}', 'application/json'));
  } else if (op.body?.schema) {
    const schema = op.body.schema;
    build('body: malformed JSON', (values) => withBody(values, '{"unterminated": '));
    if (op.body.required) build('body: missing', (values) => withBody(values, undefined, undefined));
    if (schema.type === 'object' || schema.properties) {
      build('body: an array for an object', (values) => withBody(values, []));
      build('body: a string for an object', (values) => withBody(values, '"just a string"'));
      const example = (base.body ?? {}) as Record<string, unknown>;
      for (const key of schema.required ?? []) {
        build(`body: required ${key} missing`, (values) => {
          const body = { ...example };
          delete body[key];
          return withBody(values, body);
        });
      }
      if (schema.additionalProperties === false) build('body: unknown property', (values) => withBody(values, { ...example, unexpected_property_xyz: 1 }));
      for (const [key, node] of Object.entries<unknown>(schema.properties ?? {})) {
        const property = options.flatten(node);
        if (property.readOnly) continue;
        for (const [label, value] of invalidJsonValues(property)) {
          build(`body ${key}: ${label}`, (values) => withBody(values, { ...example, [key]: value }));
        }
      }
    }
  }
  return cases;
}
