import { API_NAMES, loadApiDocument, type ApiName } from '../../server/src/http/apis.js';
import { resolve } from '../property/arbitraries.js';
import { specOperations, type SpecOperation } from '../property/operations.js';

/** The steps of a resource chain, in the order they run. */
export const STEPS = ['create', 'get', 'update', 'list', 'delete'] as const;
export type Step = (typeof STEPS)[number];

const operationsOf = new Map<ApiName, SpecOperation[]>();

/** Every operation of an API, read once from generated/<api>/openapi.yaml. */
export function apiOperations(api: ApiName): SpecOperation[] {
  if (!operationsOf.has(api)) operationsOf.set(api, specOperations(api, loadApiDocument(api).openapi));
  return operationsOf.get(api)!;
}

export function operationById(api: ApiName, operationId: string): SpecOperation {
  const op = apiOperations(api).find((o) => o.operationId === operationId);
  if (!op) throw new Error(`${api} has no operation ${operationId}`);
  return op;
}

const find = (api: ApiName, method: string, path: string): SpecOperation | undefined =>
  apiOperations(api).find((o) => o.method === method && o.path === path);

/** A path that ends in a path parameter: `/environments/{environment_id}` → `environment_id`. */
const trailingParam = (path: string): string | undefined => /\/\{([^}]+)\}$/.exec(path)?.[1];

/** The item path of a collection: the one path `<collection>/{param}`, if the spec has it. */
export function itemPath(api: ApiName, collection: string): string | undefined {
  const paths = new Set(apiOperations(api).map((o) => o.path));
  return [...paths].find((p) => p.startsWith(`${collection}/`) && p.slice(collection.length).match(/^\/\{[^}/]+\}$/));
}

/**
 * Paths that look like a resource to create, list and follow: a path not ending in a parameter that takes a POST
 * or has an item path below it. The declaration table must say, for each, how its chain runs or why there is none.
 */
export function resourceCandidates(): Array<{ api: ApiName; path: string }> {
  const candidates: Array<{ api: ApiName; path: string }> = [];
  for (const api of API_NAMES) {
    const paths = [...new Set(apiOperations(api).map((o) => o.path))];
    for (const path of paths) {
      if (trailingParam(path)) continue;
      if (find(api, 'POST', path) || itemPath(api, path)) candidates.push({ api, path });
    }
  }
  return candidates;
}

/**
 * The operation the spec offers for each step of a resource: on a collection, create is its POST and list its GET,
 * get / update (PATCH, else PUT) / delete act on its item path; on a singleton (one record at one path, no id),
 * create is its POST, get its GET, update its PUT, delete its DELETE, and there is no list.
 */
export function offeredSteps(api: ApiName, path: string, kind: 'collection' | 'singleton'): Partial<Record<Step, SpecOperation>> {
  if (kind === 'singleton') {
    return { create: find(api, 'POST', path), get: find(api, 'GET', path), update: find(api, 'PUT', path), delete: find(api, 'DELETE', path) };
  }
  const item = itemPath(api, path);
  return {
    create: find(api, 'POST', path),
    list: find(api, 'GET', path),
    get: item ? find(api, 'GET', item) : undefined,
    update: item ? (find(api, 'PATCH', item) ?? find(api, 'PUT', item)) : undefined,
    delete: item ? find(api, 'DELETE', item) : undefined,
  };
}

/** The example of an operation's JSON request body, from the spec (every body has one, by the house style). */
export function exampleBody(op: SpecOperation): Record<string, any> {
  const example = op.body?.schema?.example;
  if (example === undefined) throw new Error(`${op.operationId} has no request body example`);
  return structuredClone(example);
}

/** Whether the spec declares `header` on the `status` response of an operation. */
export function declaresHeader(op: SpecOperation, status: number, header: string): boolean {
  const doc = loadApiDocument(op.api as ApiName).openapi as Record<string, any>;
  const response = resolve(doc, doc.paths[op.path][op.method.toLowerCase()].responses[String(status)] ?? {});
  return Object.keys((response as Record<string, any>).headers ?? {}).some((h) => h.toLowerCase() === header.toLowerCase());
}

/** The page size to list with: the smallest the spec allows, so that even a short list takes several pages. */
export function smallestPage(op: SpecOperation): number | undefined {
  const param = op.parameters.find((p) => p.name === 'max_items' && p.in === 'query');
  if (!param) return undefined;
  if (Array.isArray(param.schema.enum)) return Math.min(...(param.schema.enum as number[]));
  return param.schema.minimum ?? 1;
}
