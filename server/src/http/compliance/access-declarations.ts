import { ACCESS_LEVELS, type AccessLevel } from '../../domain/access/grants.js';
import { HTTP_METHODS } from '../apis.js';

/*
 * The `x-access` declaration of each compliance operation, read from the generated spec: the access level the
 * operation needs (see "Access control" in the spec) and where the request names what it reads or changes.
 *
 *   x-access: public                      no credentials, no data of an organization (GET /swagger)
 *   x-access:
 *     level: edit                         results | read | edit | contribute | manage
 *     listing: true                       the answer lists only what the level is granted over
 *     environments:                       the level is needed over each: <subject>: <in>.<name>, or environment: "*"
 *       - notification: path.notification_id
 *       - environment: body.environments
 *     hands_out:                          grants the caller must hold itself
 *       policy: body.policy               a new group: its policy over its environments
 *       environments: body.environment_ids
 *       groups: body.group_ids            what existing groups grant
 *       users: body.user_ids              what the users' groups grant now (the users may leave them)
 *
 * Subjects of `environments`: `environment` (ids, `*` for all), `scan` (its environment), `notification` (what it
 * watches) and `rule_test_output` (the tested scan's environment). An operation without `environments` concerns the organization only. A declaration that names a
 * parameter or body field the operation does not have is a problem, like a missing one: the server refuses to
 * start on either.
 */

/** Where a value of the request is: a path or query parameter, or a top-level field of the JSON body. */
export interface Place {
  in: 'path' | 'query' | 'body';
  name: string;
}

export const SUBJECTS = ['environment', 'scan', 'notification', 'rule_test_output'] as const;
export type Subject = (typeof SUBJECTS)[number];

/** One entry of `environments`: ids of `subject` at `at`, or every environment. */
export interface Source {
  subject: Subject;
  at: Place | 'all';
}

/** Where the request names the grants it hands out. */
export interface HandsOut {
  /** A new group's policy, over the environment ids (or `*`) at `environments`. */
  group?: { policy: Place; environments: Place };
  /** Ids of existing groups. */
  groups?: Place;
  /** Ids of users, whose groups they may leave. */
  users?: Place;
}

export type AccessDeclaration =
  | { public: true }
  | {
      public: false;
      level: AccessLevel;
      listing: boolean;
      sources: Source[];
      handsOut: HandsOut;
    };

export interface ReadDeclarations {
  declarations: Map<string, AccessDeclaration>;
  /** One line per operation without a valid declaration; empty when every operation has one. */
  problems: string[];
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Follows a local `$ref` (`#/components/...`) of the document. */
function resolve(openapi: Json, node: unknown): unknown {
  let current = node;
  for (let depth = 0; isObject(current) && typeof current.$ref === 'string' && depth < 16; depth += 1) {
    const ref = current.$ref as string;
    if (!ref.startsWith('#/')) return undefined;
    current = ref
      .slice(2)
      .split('/')
      .reduce<unknown>((at, key) => (isObject(at) ? at[key.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined), openapi);
  }
  return current;
}

/** The places an operation's request has: its path and query parameters and its JSON body's top-level fields. */
function placesOf(openapi: Json, item: Json, operation: Json): Set<string> {
  const places = new Set<string>();
  const parameters = [...(Array.isArray(item.parameters) ? item.parameters : []), ...(Array.isArray(operation.parameters) ? operation.parameters : [])];
  for (const parameter of parameters.map((p) => resolve(openapi, p))) {
    if (isObject(parameter) && typeof parameter.name === 'string') places.add(`${String(parameter.in)}.${parameter.name}`);
  }
  const body = resolve(openapi, operation.requestBody);
  const content = isObject(body) && isObject(body.content) ? body.content['application/json'] : undefined;
  const schema = resolve(openapi, isObject(content) ? content.schema : undefined);
  if (isObject(schema) && isObject(schema.properties)) for (const field of Object.keys(schema.properties)) places.add(`body.${field}`);
  return places;
}

function parsePlace(value: unknown, places: Set<string>, problems: string[], what: string): Place | undefined {
  const match = typeof value === 'string' ? /^(path|query|body)\.([A-Za-z0-9_]+)$/.exec(value) : null;
  if (!match) {
    problems.push(`${what}: ${JSON.stringify(value)} is not <path|query|body>.<name>`);
    return undefined;
  }
  if (!places.has(value as string)) {
    problems.push(`${what}: the operation has no ${match[1] === 'body' ? 'body field' : `${match[1]} parameter`} ${match[2]}`);
    return undefined;
  }
  return { in: match[1] as Place['in'], name: match[2]! };
}

function parseHandsOut(value: unknown, places: Set<string>, problems: string[]): HandsOut {
  if (value === undefined) return {};
  if (!isObject(value)) {
    problems.push('x-access.hands_out must be an object');
    return {};
  }
  for (const key of Object.keys(value)) {
    if (!['policy', 'environments', 'groups', 'users'].includes(key)) problems.push(`x-access.hands_out.${key} is not a key of hands_out`);
  }
  const place = (key: string) => (value[key] === undefined ? undefined : parsePlace(value[key], places, problems, `x-access.hands_out.${key}`));
  const [policy, environments, groups, users] = ['policy', 'environments', 'groups', 'users'].map(place);
  if ((value.policy === undefined) !== (value.environments === undefined)) problems.push('x-access.hands_out: policy and environments go together');
  return { ...(policy && environments && { group: { policy, environments } }), ...(groups && { groups }), ...(users && { users }) };
}

function parseDeclaration(value: unknown, places: Set<string>, problems: string[]): AccessDeclaration | undefined {
  if (value === 'public') return { public: true };
  if (!isObject(value)) {
    problems.push(value === undefined ? 'no x-access' : `x-access must be 'public' or an object`);
    return undefined;
  }
  const before = problems.length;
  for (const key of Object.keys(value)) {
    if (!['level', 'listing', 'environments', 'hands_out'].includes(key)) problems.push(`x-access.${key} is not a key of x-access`);
  }
  const level = value.level;
  if (!(ACCESS_LEVELS as readonly unknown[]).includes(level)) problems.push(`x-access.level must be one of ${ACCESS_LEVELS.join(', ')}`);
  if (value.listing !== undefined && typeof value.listing !== 'boolean') problems.push('x-access.listing must be true or false');
  const sources: Source[] = [];
  const entries = value.environments ?? [];
  if (!Array.isArray(entries)) problems.push('x-access.environments must be a list');
  else {
    entries.forEach((entry, i) => {
      const what = `x-access.environments[${i}]`;
      const keys = isObject(entry) ? Object.keys(entry) : [];
      const subject = keys[0] as Subject;
      if (keys.length !== 1 || !SUBJECTS.includes(subject)) {
        problems.push(`${what} must be one of ${SUBJECTS.join(', ')}, naming where the ids are`);
        return;
      }
      const at = (entry as Json)[subject];
      if (at === '*') {
        if (subject === 'environment') sources.push({ subject, at: 'all' });
        else problems.push(`${what}: only environment may be "*"`);
        return;
      }
      const place = parsePlace(at, places, problems, what);
      if (place) sources.push({ subject, at: place });
    });
  }
  const handsOut = parseHandsOut(value.hands_out, places, problems);
  if (problems.length > before) return undefined;
  return { public: false, level: level as AccessLevel, listing: value.listing === true, sources, handsOut };
}

/** Every operation's declaration, and what is wrong with those that have none or a broken one. */
export function readAccessDeclarations(openapi: Json): ReadDeclarations {
  const declarations = new Map<string, AccessDeclaration>();
  const problems: string[] = [];
  for (const item of Object.values(isObject(openapi.paths) ? openapi.paths : {})) {
    if (!isObject(item)) continue;
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (!isObject(operation) || typeof operation.operationId !== 'string') continue;
      const found: string[] = [];
      const declaration = parseDeclaration(operation['x-access'], placesOf(openapi, item, operation), found);
      if (declaration) declarations.set(operation.operationId, declaration);
      problems.push(...found.map((problem) => `${operation.operationId}: ${problem}`));
    }
  }
  return { declarations, problems };
}
