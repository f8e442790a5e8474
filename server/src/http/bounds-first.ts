import type { RequestHandler } from 'express';
import { characterCount } from '../domain/text.js';

/**
 * The bounds of a JSON body (`maxItems`, `maxLength`, `maxProperties`) are checked before the validator sees it.
 * The validator reports every problem of a request, so it looks at each item of an array past its `maxItems`: an
 * array of 140 000 items that each break a rule is some 400 000 problems, seconds of the request thread for a body
 * under the 1 MB limit. Checked first, in one walk that does not enter what is too large, a body past its bounds is
 * refused with those bounds alone (as the validator words them), and the validator only ever sees bounded bodies.
 */

type Schema = Record<string, any>;

/** The validator's error as errors.ts reads it: a 400 with each problem's path (`/body/...`) and message. */
interface BoundsError {
  status: 400;
  message: string;
  errors: Array<{ path: string; message: string }>;
}

/** Enough to say what is wrong; errors.ts lists at most 100 problems anyway. */
const MAX_PROBLEMS = 100;
/** Past this depth a body is not walked further (the specs nest far less); the validator still sees it. */
const MAX_DEPTH = 32;

function resolver(document: Schema): (node: Schema) => Schema {
  return (node) => {
    let current = node;
    for (let hops = 0; current && typeof current.$ref === 'string' && hops < 32; hops += 1) {
      current = (current.$ref as string)
        .slice(2)
        .split('/')
        .reduce((at: Schema | undefined, key) => at?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], document) as Schema;
    }
    return current ?? {};
  };
}

/** Bounds broken by `value` under `schema`, at `path`, into `problems`. Does not enter an array or object too large. */
function check(resolve: (node: Schema) => Schema, node: Schema, value: unknown, path: string, problems: BoundsError['errors'], depth: number): void {
  if (problems.length >= MAX_PROBLEMS || depth > MAX_DEPTH) return;
  const schema = resolve(node);
  for (const part of (schema.allOf ?? []) as Schema[]) check(resolve, part, value, path, problems, depth + 1);
  if (typeof value === 'string') {
    // `length` counts UTF-16 units, one or two per character the bound counts: only a string in between is counted.
    const max = schema.maxLength as number | undefined;
    if (typeof max === 'number' && value.length > max && (value.length > 2 * max || characterCount(value) > max)) {
      problems.push({ path, message: `must NOT have more than ${max} characters` });
    }
    return;
  }
  if (Array.isArray(value)) {
    if (typeof schema.maxItems === 'number' && value.length > schema.maxItems) {
      problems.push({ path, message: `must NOT have more than ${schema.maxItems} items` });
      return;
    }
    if (schema.items) for (let i = 0; i < value.length; i += 1) check(resolve, schema.items as Schema, value[i], `${path}/${i}`, problems, depth + 1);
    return;
  }
  if (value === null || typeof value !== 'object') return;
  const keys = Object.keys(value);
  if (typeof schema.maxProperties === 'number' && keys.length > schema.maxProperties) {
    problems.push({ path, message: `must NOT have more than ${schema.maxProperties} properties` });
    return;
  }
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const others = typeof schema.additionalProperties === 'object' ? (schema.additionalProperties as Schema) : undefined;
  for (const key of keys) {
    const property = Object.hasOwn(properties, key) ? properties[key] : others;
    if (property) check(resolve, property, (value as Record<string, unknown>)[key], `${path}/${key}`, problems, depth + 1);
  }
}

/**
 * A handler that refuses a JSON body past the bounds of the operation's schema with a 400, before the validator's
 * request check; it goes after the validator's own handler that matches the operation (`req.openapi`).
 */
export function boundsFirst(document: Record<string, unknown>): RequestHandler {
  const resolve = resolver(document as Schema);
  const bodySchemas = new WeakMap<object, Schema | null>();
  const bodySchemaOf = (operation: Schema): Schema | null => {
    let schema = bodySchemas.get(operation);
    if (schema === undefined) {
      const content = (resolve((operation.requestBody ?? {}) as Schema).content ?? {}) as Record<string, { schema?: Schema }>;
      schema = Object.entries(content).find(([type]) => type.includes('json'))?.[1].schema ?? null;
      bodySchemas.set(operation, schema);
    }
    return schema;
  };
  return (req, _res, next) => {
    const operation = req.openapi?.schema as Schema | undefined;
    const schema = operation && req.body !== undefined && typeof req.body === 'object' ? bodySchemaOf(operation) : null;
    if (!schema) return next();
    const problems: BoundsError['errors'] = [];
    check(resolve, schema, req.body, '/body', problems, 0);
    if (problems.length === 0) return next();
    const error: BoundsError = { status: 400, message: problems.map((p) => `${p.path} ${p.message}`).join(', '), errors: problems };
    return next(error);
  };
}

/**
 * The validator's handlers with `boundsFirst` just before its request check. The check is found by the name the
 * validator gives it; a validator without it (renamed by an upgrade) is refused at start rather than left without
 * bounds.
 */
export function withBoundsFirst(validator: RequestHandler[], document: Record<string, unknown>): RequestHandler[] {
  const index = validator.findIndex((handler) => handler.name === 'requestMiddleware');
  if (index < 0) throw new Error(`express-openapi-validator's request check (requestMiddleware) is not among its handlers: ${validator.map((h) => h.name).join(', ')}`);
  return [...validator.slice(0, index), boundsFirst(document), ...validator.slice(index)];
}
