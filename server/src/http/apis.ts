import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { GENERATED_DIR } from '../paths.js';

export const API_NAMES = ['compliance', 'conductor', 'console'] as const;
export type ApiName = (typeof API_NAMES)[number];

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;

export interface OperationInfo {
  operationId: string;
  method: string;
  path: string;
  /** Declared statuses, as strings: '200', '404', ... */
  statuses: string[];
  /** Media types of each declared response that has a body, in the spec's order (the first is the default). */
  responseMediaTypes: Record<string, string[]>;
  /**
   * Per declared status, the response headers the spec fixes to one value (`Cache-Control: no-store` on answers
   * that carry a secret): the dispatcher sends them, so no handler can forget one.
   */
  fixedResponseHeaders: Record<string, Record<string, string>>;
  /** The spec requires a JSON request body. (Archives are judged by the archive reader, which says what is wrong.) */
  jsonBodyRequired: boolean;
}

/** One API as the server sees it: the generated documents it serves and validates against. */
export interface ApiDocument {
  name: ApiName;
  basePath: string;
  /** The OpenAPI 3 document (generated/<api>/openapi.yaml), parsed. */
  openapi: Record<string, unknown>;
  /** The Swagger 2.0 bundle exactly as generated, served by GET /v0/swagger. */
  swaggerYaml: Buffer;
  operations: OperationInfo[];
}

type Operation = {
  operationId?: string;
  requestBody?: { required?: boolean; content?: Record<string, unknown> };
  responses?: Record<string, { content?: Record<string, unknown>; headers?: Record<string, { schema?: { enum?: unknown[] } }> }>;
};

export function listOperations(openapi: Record<string, unknown>): OperationInfo[] {
  const paths = (openapi.paths ?? {}) as Record<string, Record<string, Operation>>;
  const operations: OperationInfo[] = [];
  for (const [path, item] of Object.entries(paths)) {
    for (const method of HTTP_METHODS) {
      const op = item[method];
      if (!op?.operationId) continue;
      const responses = op.responses ?? {};
      const responseMediaTypes: Record<string, string[]> = {};
      const fixedResponseHeaders: Record<string, Record<string, string>> = {};
      for (const [status, response] of Object.entries(responses)) {
        const mediaTypes = Object.keys(response.content ?? {});
        if (mediaTypes.length > 0) responseMediaTypes[status] = mediaTypes;
        for (const [name, header] of Object.entries(response.headers ?? {})) {
          const values = header.schema?.enum;
          if (values?.length === 1 && typeof values[0] === 'string') (fixedResponseHeaders[status] ??= {})[name] = values[0];
        }
      }
      operations.push({
        operationId: op.operationId,
        method,
        path,
        statuses: Object.keys(responses),
        responseMediaTypes,
        fixedResponseHeaders,
        jsonBodyRequired: op.requestBody?.required === true && 'application/json' in (op.requestBody.content ?? {}),
      });
    }
  }
  return operations;
}

/**
 * OpenAPI 3.0.3 says a nullable schema's `enum` admits null only when it lists null. Swagger 2.0 has no null enum
 * value its tools accept (the lint and the type generator refuse one), so a nullable enum there (`x-nullable`, as
 * `Environment.scan_status`) is converted without it: the validator's copy of the document lists it.
 */
export function withNullInNullableEnums(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) withNullInNullableEnums(item);
  } else if (typeof node === 'object' && node !== null) {
    const schema = node as { nullable?: unknown; enum?: unknown };
    if (schema.nullable === true && Array.isArray(schema.enum) && !schema.enum.includes(null)) schema.enum.push(null);
    for (const value of Object.values(node)) withNullInNullableEnums(value);
  }
}

const loaded = new Map<string, ApiDocument>();

/** Reads an API's generated documents once per process; they never change while it runs. */
export function loadApiDocument(name: ApiName, generatedDir = GENERATED_DIR): ApiDocument {
  const key = join(generatedDir, name);
  const cached = loaded.get(key);
  if (cached) return cached;
  const openapi = load(readFileSync(join(generatedDir, name, 'openapi.yaml'), 'utf8')) as Record<string, unknown>;
  withNullInNullableEnums(openapi);
  const servers = (openapi.servers ?? []) as Array<{ url: string }>;
  const basePath = servers[0]?.url ?? '/';
  const document: ApiDocument = {
    name,
    basePath,
    openapi,
    swaggerYaml: readFileSync(join(generatedDir, name, 'swagger.yaml')),
    operations: listOperations(openapi),
  };
  loaded.set(key, document);
  return document;
}

/**
 * Operations that declare a 501 response are not implemented yet. That declaration in the spec is the one list:
 * the server answers 501 for exactly these and the contract tests skip exactly these.
 */
export const isPending = (op: OperationInfo): boolean => op.statuses.includes('501');
