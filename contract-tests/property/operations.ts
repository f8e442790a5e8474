import fc from 'fast-check';
import { flatten, resolve, schemaArbitrary, serialize, type Document, type Schema } from './arbitraries.js';

/** One operation of an OpenAPI 3 document, with its parameters and request body resolved. */
export interface SpecOperation {
  api: string;
  basePath: string;
  operationId: string;
  method: string;
  path: string;
  parameters: Array<{ name: string; in: 'path' | 'query' | 'header'; required: boolean; schema: Schema }>;
  body?: { required: boolean; mediaTypes: string[]; schema?: Schema; binary: boolean };
  statuses: string[];
  /** False for operations declared with `security: []`. */
  secured: boolean;
  /** Every security scheme the operation names. */
  securitySchemes: string[];
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;
const BINARY_TYPES = ['application/x-tar', 'application/octet-stream', 'application/gzip'];

export function specOperations(api: string, doc: Document): SpecOperation[] {
  const basePath: string = doc.servers?.[0]?.url ?? '';
  const operations: SpecOperation[] = [];
  for (const [path, item] of Object.entries<Record<string, any>>(doc.paths ?? {})) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const byKey = new Map<string, any>();
      for (const p of [...(item.parameters ?? []), ...(op.parameters ?? [])]) {
        const param = resolve(doc, p);
        byKey.set(`${param.in}:${param.name}`, param);
      }
      const parameters = [...byKey.values()]
        .filter((p) => p.in !== 'cookie')
        .map((p) => ({ name: p.name as string, in: p.in, required: p.required === true || p.in === 'path', schema: flatten(doc, p.schema ?? {}) }));
      let body: SpecOperation['body'];
      if (op.requestBody) {
        const requestBody = resolve(doc, op.requestBody);
        const mediaTypes = Object.keys(requestBody.content ?? {});
        const json = mediaTypes.find((m) => m.includes('json'));
        body = {
          required: requestBody.required === true,
          mediaTypes,
          schema: json ? flatten(doc, requestBody.content[json].schema ?? {}) : undefined,
          binary: !json && mediaTypes.some((m) => BINARY_TYPES.includes(m)),
        };
      }
      const security = op.security ?? doc.security ?? [];
      operations.push({
        api,
        basePath,
        operationId: op.operationId,
        method: method.toUpperCase(),
        path,
        parameters,
        body,
        statuses: Object.keys(op.responses ?? {}),
        secured: security.length > 0 && security.some((s: Record<string, unknown>) => Object.keys(s).length > 0),
        securitySchemes: [...new Set<string>(security.flatMap((s: Record<string, unknown>) => Object.keys(s)))],
      });
    }
  }
  return operations;
}

/** A request ready to send: its URL path (base path, path and query), headers and body. */
export interface GeneratedRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  /** A Buffer for binary bodies, a string for raw (possibly malformed) text, else a JSON value. */
  body?: unknown;
}

export interface RequestValues {
  path: Record<string, string>;
  query: Array<[string, string]>;
  headers: Record<string, string>;
  body?: unknown;
  contentType?: string;
}

/** Builds the request of an operation from parameter values (already serialized) and a body. */
export function buildRequest(op: SpecOperation, values: RequestValues): GeneratedRequest {
  const path = op.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(values.path[name] ?? ''));
  const query = new URLSearchParams(values.query).toString();
  const headers = { ...values.headers, ...(values.contentType && { 'content-type': values.contentType }) };
  return { method: op.method, url: `${op.basePath}${path}${query ? `?${query}` : ''}`, headers, body: values.body };
}

export interface ArbitraryOptions {
  /** Values known to name existing records, by parameter name: mixed with random values. */
  pools?: Record<string, string[]>;
  /** Arbitraries replacing the generated one of a parameter, by `operationId.param` or `param`. */
  overrides?: Record<string, fc.Arbitrary<unknown>>;
  /** Bodies of binary (archive) operations. */
  binaryBodies?: fc.Arbitrary<Buffer>;
  /** JSON bodies made from records that exist, mixed with generated ones; for binary operations, their archives. By operationId. */
  bodies?: Record<string, fc.Arbitrary<unknown>>;
}

const OMIT = Symbol('omit');

/** An arbitrary of valid-by-the-spec requests of one operation. */
export function requestArbitrary(doc: Document, op: SpecOperation, options: ArbitraryOptions = {}): fc.Arbitrary<GeneratedRequest> {
  const pools = options.pools ?? {};
  const overrides = options.overrides ?? {};
  const params: Record<string, fc.Arbitrary<unknown>> = {};
  for (const p of op.parameters) {
    let arb: fc.Arbitrary<unknown> = overrides[`${op.operationId}.${p.name}`] ?? overrides[p.name] ?? schemaArbitrary(doc, p.schema);
    const pool = pools[p.name];
    if (pool?.length) arb = fc.oneof({ arbitrary: fc.constantFrom(...pool), weight: 3 }, { arbitrary: arb, weight: 1 });
    params[`${p.in}:${p.name}`] = p.required ? arb : fc.option(arb, { nil: OMIT as unknown as undefined, freq: 2 });
  }
  let body: fc.Arbitrary<unknown> = fc.constant(OMIT);
  let contentType: string | undefined;
  if (op.body) {
    if (op.body.binary) {
      body = (options.bodies?.[op.operationId] as fc.Arbitrary<Buffer> | undefined) ?? options.binaryBodies ?? fc.uint8Array({ maxLength: 256 }).map((a) => Buffer.from(a));
      contentType = op.body.mediaTypes.includes('application/x-tar') ? 'application/x-tar' : op.body.mediaTypes[0];
    } else if (op.body.schema) {
      body = schemaArbitrary(doc, op.body.schema);
      const known = options.bodies?.[op.operationId];
      if (known) body = fc.oneof(known, body);
      contentType = op.body.mediaTypes.find((m) => m.includes('json'));
    }
    if (!op.body.required) body = fc.option(body, { nil: OMIT as unknown as undefined, freq: 4 });
  }
  return fc.record({ params: fc.record(params), body }).map(({ params: values, body: value }) => {
    const request: RequestValues = { path: {}, query: [], headers: {} };
    for (const p of op.parameters) {
      const v = values[`${p.in}:${p.name}`];
      if (v === OMIT || v === undefined) continue;
      if (p.in === 'path') request.path[p.name] = serialize(v);
      else if (p.in === 'header') request.headers[p.name.toLowerCase()] = serialize(v);
      else if (Array.isArray(v)) for (const item of v) request.query.push([p.name, serialize(item)]);
      else request.query.push([p.name, serialize(v)]);
    }
    if (value !== OMIT) {
      request.body = value;
      request.contentType = contentType;
    }
    return buildRequest(op, request);
  });
}

/**
 * One valid request of an operation, as values: required parameters only (an existing record's id where there is
 * one, else a generated value) and a body (a known-good one, else generated). Negative cases break it one rule at
 * a time.
 */
export function baseValues(doc: Document, op: SpecOperation, options: ArbitraryOptions & { binaryBody?: Buffer }, seed: number): RequestValues {
  const sample = <T>(arb: fc.Arbitrary<T>): T => fc.sample(arb, { seed, numRuns: 1 })[0] as T;
  const values: RequestValues = { path: {}, query: [], headers: {} };
  for (const p of op.parameters) {
    if (!p.required) continue;
    const pooled = options.pools?.[p.name]?.[0];
    const override = options.overrides?.[`${op.operationId}.${p.name}`] ?? options.overrides?.[p.name];
    const value = serialize(pooled ?? sample(override ?? schemaArbitrary(doc, p.schema)));
    if (p.in === 'path') values.path[p.name] = value;
    else if (p.in === 'header') values.headers[p.name.toLowerCase()] = value;
    else values.query.push([p.name, value]);
  }
  if (op.body?.binary) {
    values.body = options.binaryBody;
    values.contentType = op.body.mediaTypes.includes('application/x-tar') ? 'application/x-tar' : op.body.mediaTypes[0];
  } else if (op.body?.schema) {
    const known = options.bodies?.[op.operationId];
    values.body = sample(known ?? schemaArbitrary(doc, op.body.schema));
    values.contentType = op.body.mediaTypes.find((m) => m.includes('json'));
  }
  return values;
}
