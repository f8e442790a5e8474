import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { API_NAMES, ROOT } from './pipeline.js';

/**
 * The house rules of specs/README.md that no off-the-shelf lint rule checks, applied to every generated Swagger
 * 2.0 bundle: bounded parameters and body numbers, examples for Dredd, every error status listed (503, and 429 on
 * authenticated operations, with their Retry-After too), operationIds unique across APIs.
 */
type Node = Record<string, any>;
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

function resolve(doc: Node, node: Node): Node {
  if (typeof node?.$ref !== 'string') return node;
  return node.$ref
    .slice(2)
    .split('/')
    .reduce((n: Node, key: string) => n[key.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
}

function parameterProblems(param: Node): string[] {
  if (param.in === 'body') return param.schema ? [] : ['body parameter without a schema'];
  const problems: string[] = [];
  const schema = param.type === 'array' ? param.items ?? {} : param;
  if (!param.type) problems.push(`parameter ${param.name} has no type`);
  if (param.type === 'array' && param.in === 'query' && param.collectionFormat !== 'multi') {
    problems.push(`repeatable parameter ${param.name} must use collectionFormat: multi`);
  }
  if ((schema.type === 'integer' || schema.type === 'number') && !schema.enum && (schema.minimum === undefined || schema.maximum === undefined)) {
    problems.push(`numeric parameter ${param.name} needs a minimum and a maximum`);
  }
  if (param.required && param.in !== 'body' && param['x-example'] === undefined) problems.push(`required parameter ${param.name} has no x-example`);
  return problems;
}

/**
 * Every number a request body carries is bounded: past 2^53 a JSON number loses precision and past 2^63 PostgreSQL's
 * bigint overflows, so an unbounded one is a 500 waiting to happen. Walks the body schema through $refs, properties,
 * items, additionalProperties and the alternatives.
 */
function bodyNumberProblems(doc: Node, schema: Node, where: string, seen = new Set<Node>()): string[] {
  const node = resolve(doc, schema);
  if (!node || typeof node !== 'object' || seen.has(node)) return [];
  seen.add(node);
  const problems: string[] = [];
  if ((node.type === 'integer' || node.type === 'number') && !node.enum && (node.minimum === undefined || node.maximum === undefined)) {
    problems.push(`numeric body field ${where} needs a minimum and a maximum`);
  }
  for (const [name, property] of Object.entries((node.properties ?? {}) as Node)) problems.push(...bodyNumberProblems(doc, property, `${where}.${name}`, seen));
  if (node.items) problems.push(...bodyNumberProblems(doc, node.items, `${where}[]`, seen));
  if (typeof node.additionalProperties === 'object') problems.push(...bodyNumberProblems(doc, node.additionalProperties, `${where}.*`, seen));
  for (const key of ['x-oneOf', 'allOf']) for (const branch of node[key] ?? []) problems.push(...bodyNumberProblems(doc, branch, where, seen));
  return problems;
}

const SCALAR_TYPES = new Set(['string', 'integer', 'number', 'boolean']);
/** Some 5 000 comparisons at most for an array whose items are compared pairwise. */
const MAX_PAIRWISE_UNIQUE_ITEMS = 100;
/** Formats whose value is not validated as a JSON string: a raw body, bounded by the upload limit. */
const UNVALIDATED_FORMATS = new Set(['binary']);

/**
 * Every value a schema admits is bounded, so the validator's work on a body that fits the size limit is bounded
 * too: each array has `maxItems` (ajv checks `uniqueItems` in quadratic time), each string `maxLength` (enums
 * aside), each object that takes undeclared keys `maxProperties`. Walks `#/definitions` and every schema an
 * operation names, through properties, items, additionalProperties and the alternatives; a definition reached
 * from several places is reported once, by name.
 */
function boundProblems(doc: Node, schema: Node, where: string, seen: Set<Node>): string[] {
  const named = typeof schema?.$ref === 'string' && schema.$ref.startsWith('#/definitions/');
  const node = resolve(doc, schema);
  if (!node || typeof node !== 'object' || seen.has(node)) return [];
  seen.add(node);
  const at = named ? schema.$ref.slice('#/definitions/'.length) : where;
  const problems: string[] = [];
  if ((node.type === 'array' || node.items) && node.maxItems === undefined) problems.push(`array ${at} has no maxItems`);
  // The validator checks uniqueness in linear time only when the items declare a scalar type themselves; items
  // named by a $ref are compared pairwise, so their arrays stay short.
  if (node.uniqueItems && !SCALAR_TYPES.has(node.items?.type) && !(node.maxItems <= MAX_PAIRWISE_UNIQUE_ITEMS)) {
    problems.push(`array ${at} has uniqueItems over items without a scalar type of their own: at most ${MAX_PAIRWISE_UNIQUE_ITEMS} items`);
  }
  if (node.type === 'string' && !node.enum && !UNVALIDATED_FORMATS.has(node.format) && node.maxLength === undefined) problems.push(`string ${at} has no maxLength`);
  const freeForm =
    node.additionalProperties === true ||
    typeof node.additionalProperties === 'object' ||
    (node.type === 'object' && !node.properties && node.additionalProperties !== false && !node.allOf && !node['x-oneOf']);
  if (freeForm && node.maxProperties === undefined) problems.push(`object ${at} takes any keys but has no maxProperties`);
  for (const [name, property] of Object.entries((node.properties ?? {}) as Node)) problems.push(...boundProblems(doc, property, `${at}.${name}`, seen));
  if (node.items) problems.push(...boundProblems(doc, node.items, `${at}[]`, seen));
  if (typeof node.additionalProperties === 'object') problems.push(...boundProblems(doc, node.additionalProperties, `${at}.*`, seen));
  for (const key of ['x-oneOf', 'allOf']) for (const branch of node[key] ?? []) problems.push(...boundProblems(doc, branch, at, seen));
  return problems;
}

let failures = 0;
const seenIds = new Map<string, string>();
for (const api of API_NAMES) {
  const doc = load(await readFile(join(ROOT, 'generated', api, 'swagger.yaml'), 'utf8')) as Node;
  /** The schemas whose bounds were checked already, so that each problem is reported once. */
  const bounded = new Set<Node>();
  for (const [path, item] of Object.entries(doc.paths as Node)) {
    for (const method of METHODS) {
      const op = item[method] as Node | undefined;
      if (!op) continue;
      const where = `${api} ${method.toUpperCase()} ${path}`;
      const problems: string[] = [];
      if (!op.operationId || !/^[a-z][A-Za-z0-9]*$/.test(op.operationId)) problems.push('operationId must be lowerCamelCase');
      if (seenIds.has(op.operationId)) problems.push(`operationId ${op.operationId} also used by ${seenIds.get(op.operationId)}`);
      seenIds.set(op.operationId, where);
      if (op.tags?.length !== 1) problems.push('needs exactly one tag');
      if (!op.summary) problems.push('needs a summary');
      const statuses = Object.keys(op.responses ?? {});
      if ('default' in (op.responses ?? {})) problems.push('declares a default response; list every status instead');
      // 503: any operation may meet a database that does not answer in time or a server shedding load.
      for (const required of ['400', '500', '503']) if (!statuses.includes(required)) problems.push(`does not declare ${required}`);
      const unavailable = resolve(doc, op.responses?.['503'] ?? {});
      if (statuses.includes('503') && unavailable.headers?.['Retry-After']?.type !== 'integer') problems.push('503 does not declare an integer Retry-After header');
      const secured = (op.security ?? doc.security ?? []).some((s: Node) => Object.keys(s).length > 0);
      if (secured && !statuses.includes('401')) problems.push('is authenticated but does not declare 401');
      // 429: failed authentications are limited on every API, and past a limit any authenticated call is refused.
      if (secured && !statuses.includes('429')) problems.push('is authenticated but does not declare 429');
      const limited = resolve(doc, op.responses?.['429'] ?? {});
      if (statuses.includes('429') && limited.headers?.['Retry-After']?.type !== 'integer') problems.push('429 does not declare an integer Retry-After header');
      for (const [status, raw] of Object.entries(op.responses as Node)) {
        const response = resolve(doc, raw as Node);
        if (status === '204' || !response.schema) continue;
        if (!response.examples || Object.keys(response.examples).length === 0) problems.push(`response ${status} has no example`);
      }
      const params = [...(item.parameters ?? []), ...(op.parameters ?? [])].map((p: Node) => resolve(doc, p));
      for (const param of params) problems.push(...parameterProblems(param));
      for (const param of params.filter((p: Node) => p.in === 'body' && p.schema)) problems.push(...bodyNumberProblems(doc, param.schema, 'body'));
      for (const param of params) problems.push(...boundProblems(doc, param.in === 'body' ? param.schema : param, `parameter ${param.name}`, bounded));
      for (const [status, raw] of Object.entries(op.responses as Node)) {
        const response = resolve(doc, raw as Node);
        if (response.schema) problems.push(...boundProblems(doc, response.schema, `response ${status}`, bounded));
        for (const [name, header] of Object.entries((response.headers ?? {}) as Node)) problems.push(...boundProblems(doc, header, `response ${status} header ${name}`, bounded));
      }
      for (const problem of problems) console.error(`${where}: ${problem}`);
      failures += problems.length;
    }
  }
  const definitionProblems = Object.entries((doc.definitions ?? {}) as Node).flatMap(([name]) => boundProblems(doc, { $ref: `#/definitions/${name}` }, name, bounded));
  for (const problem of definitionProblems) console.error(`${api} definitions: ${problem}`);
  failures += definitionProblems.length;
}
if (failures > 0) {
  console.error(`${failures} spec rule violations`);
  process.exitCode = 1;
} else {
  console.log(`every operation of ${API_NAMES.join(', ')} follows the spec rules (${seenIds.size} operations)`);
}
