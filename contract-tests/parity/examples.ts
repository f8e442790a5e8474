import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { filesTar } from '../../server/test/fixtures/archives.js';
import type { MockApi } from '../prism/mocks.js';
import { resolverOf, type Resolver, type Schema } from './shape.js';

/**
 * One request per operation, built from the spec's own examples: `x-example` of every parameter that has one, the
 * example of the body's schema, and for archive uploads a real tar of the matching file under examples/conductor/
 * (the spec's example of a binary body is placeholder text). Fixtures (fixtures.ts) may then swap example ids for
 * ids that exist on the real server; the mock accepts any id.
 */
export interface ExampleRequest {
  api: MockApi;
  operationId: string;
  method: string;
  /** Path template with the base path: `/v0/environments/{environment_id}`. */
  template: string;
  path: Record<string, string>;
  query: Array<[string, string]>;
  /** A JSON body. */
  json?: unknown;
  /** An archive body, sent as `application/x-tar`. */
  archive?: Buffer;
  /** Credentials of the server's caller that replace the usual ones (signOut ends a session of its own). */
  headers?: Record<string, string>;
  /** The lowest success status the spec declares: the one the Prism mock answers. */
  expectedStatus: number;
}

interface Parameter {
  $ref?: string;
  name: string;
  in: 'path' | 'query' | 'header' | 'body' | 'formData';
  required?: boolean;
  type?: string;
  format?: string;
  schema?: Schema & { example?: unknown };
  'x-example'?: unknown;
}

interface Operation {
  operationId?: string;
  parameters?: Parameter[];
  responses: Record<string, { $ref?: string; schema?: Schema }>;
  security?: unknown[];
}

export interface SpecDocument {
  basePath: string;
  paths: Record<string, Record<string, Operation> & { parameters?: Parameter[] }>;
  parameters?: Record<string, Parameter>;
  definitions?: Record<string, Schema & { example?: unknown }>;
  responses?: Record<string, { schema?: Schema }>;
}

export interface Spec {
  api: MockApi;
  document: SpecDocument;
  resolve: Resolver;
  /** Operation by operationId, with its method and path. */
  operations: Map<string, { method: string; path: string; operation: Operation }>;
}

const METHODS = new Set(['get', 'put', 'post', 'patch', 'delete']);

export function loadSpec(root: string, api: MockApi): Spec {
  const document = load(readFileSync(join(root, 'generated', api, 'swagger.yaml'), 'utf8')) as SpecDocument;
  const operations: Spec['operations'] = new Map();
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (METHODS.has(method) && (operation as Operation).operationId) {
        operations.set((operation as Operation).operationId!, { method: method.toUpperCase(), path, operation: operation as Operation });
      }
    }
  }
  return { api, document, resolve: resolverOf(document), operations };
}

/** The response schema the spec declares for `status` of an operation, references resolved. */
export function responseSchema(spec: Spec, operationId: string, status: number): Schema | undefined {
  const entry = spec.operations.get(operationId);
  let response = entry?.operation.responses[String(status)];
  if (response?.$ref) response = spec.document.responses?.[response.$ref.split('/').pop()!];
  return response?.schema;
}

/** The example answer the spec gives for `status` of an operation (what the Prism mock answers). */
export function responseExample(spec: Spec, operationId: string, status: number): unknown {
  const entry = spec.operations.get(operationId);
  let response = entry?.operation.responses[String(status)] as { $ref?: string; schema?: Schema & { example?: unknown }; examples?: Record<string, unknown> } | undefined;
  if (response?.$ref) response = spec.document.responses?.[response.$ref.split('/').pop()!] as typeof response;
  return response?.examples?.['application/json'] ?? spec.resolve(response?.schema as Schema) ?.['example' as keyof Schema];
}

/** Whether the spec declares `status` for the operation. */
export const declares = (spec: Spec, operationId: string, status: number): boolean =>
  Boolean(spec.operations.get(operationId)?.operation.responses[String(status)]);

/** The archive each upload takes, from examples/conductor/ (file name inside the archive, source path). */
const UPLOADS: Record<string, { name: string; source: string }> = {
  createDryRun: { name: 'composition.yaml', source: 'composition/composition.yaml' },
  createProcess: { name: 'composition.yaml', source: 'composition/composition.yaml' },
  updateProcessComposition: { name: 'composition.yaml', source: 'composition/composition.yaml' },
  attachRbacPolicy: { name: 'policy.yaml', source: 'policy/policy.yaml' },
  addValidation: { name: 'rules.yaml', source: 'validation/rules.yaml' },
};

/** The example archive an upload operation takes. */
export function exampleArchive(root: string, operationId: string): Promise<Buffer> {
  const upload = UPLOADS[operationId];
  if (!upload) throw new Error(`${operationId} takes an archive, but no example archive is named for it in parity/examples.ts`);
  return filesTar({ [upload.name]: readFileSync(join(root, 'examples', 'conductor', upload.source), 'utf8') });
}

/** The example request of every operation of a spec, in the spec's order. */
export async function exampleRequests(root: string, spec: Spec): Promise<ExampleRequest[]> {
  const requests: ExampleRequest[] = [];
  const resolveParameter = (parameter: Parameter) =>
    parameter.$ref ? spec.document.parameters![parameter.$ref.split('/').pop()!]! : parameter;
  for (const [operationId, { method, path, operation }] of spec.operations) {
    const pathItem = spec.document.paths[path]!;
    const parameters = new Map<string, Parameter>();
    for (const raw of [...(pathItem.parameters ?? []), ...(operation.parameters ?? [])]) {
      const parameter = resolveParameter(raw);
      parameters.set(`${parameter.in}:${parameter.name}`, parameter);
    }
    const successes = Object.keys(operation.responses).filter((code) => /^2\d\d$/.test(code)).map(Number).sort((a, b) => a - b);
    if (successes.length === 0) throw new Error(`${spec.api}.${operationId} declares no success status`);
    const request: ExampleRequest = { api: spec.api, operationId, method, template: `${spec.document.basePath}${path}`, path: {}, query: [], expectedStatus: successes[0]! };
    for (const parameter of parameters.values()) {
      const example = parameter['x-example'];
      if (parameter.in === 'body') {
        if (parameter.schema?.type === 'string' && parameter.schema.format === 'binary') {
          request.archive = await exampleArchive(root, operationId);
        } else {
          const schema = spec.resolve(parameter.schema) as (Schema & { example?: unknown }) | undefined;
          const body = example ?? parameter.schema?.example ?? schema?.example;
          if (body === undefined && parameter.required) throw new Error(`${spec.api}.${operationId}: the body has no example`);
          if (body !== undefined) request.json = body;
        }
        continue;
      }
      if (example === undefined) {
        if (parameter.required) throw new Error(`${spec.api}.${operationId}: required parameter ${parameter.name} has no x-example`);
        continue;
      }
      if (parameter.in === 'path') request.path[parameter.name] = String(example);
      else if (parameter.in === 'query') {
        for (const value of Array.isArray(example) ? example : [example]) request.query.push([parameter.name, String(value)]);
      } else throw new Error(`${spec.api}.${operationId}: example ${parameter.in} parameters are not sent by the parity suite`);
    }
    requests.push(request);
  }
  return requests;
}

/** The request's URL path: base path, path with its parameters, query. */
export function urlPath(request: ExampleRequest): string {
  const path = request.template.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = request.path[name];
    if (value === undefined) throw new Error(`${request.api}.${request.operationId}: no value for path parameter ${name}`);
    return encodeURIComponent(value);
  });
  const query = new URLSearchParams(request.query).toString();
  return query ? `${path}?${query}` : path;
}
