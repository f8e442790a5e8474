import openapiDiff from 'openapi-diff';

/**
 * The differences between two OpenAPI 3 documents of one API, each classified as breaking for a client or not.
 *
 * openapi-diff finds removed and added operations and statuses, and compares request and response bodies by the
 * values their JSON schemas accept (json-schema-diff): a request body accepting less breaks a client that sends
 * what it used to, a response that may hold what it could not before breaks a client that reads it. It ignores
 * `enum`, `format`, `pattern` and `nullable`, never names the field concerned, and leaves path, query and header
 * parameters alone; `schemaChanges` walks both versions of each changed schema for those, field by field.
 *
 * A field added to a response is not breaking, even in a schema closed with `additionalProperties: false`: clients
 * ignore fields they do not know.
 *
 * openapi-diff compares every body against every schema of the document, seconds for the compliance spec even when
 * nothing changed; so operations whose definition (with every schema and parameter it refers to, descriptions and
 * examples aside) is the same on both sides are taken out before it runs.
 */

type Node = Record<string, any>;

export type ChangeKind = 'breaking' | 'non-breaking' | 'unclassified';

export interface Change {
  kind: ChangeKind;
  /** openapi-diff's code (`method.remove`, `request.body.scope.remove`, ...), or `parameter.*`, `request.body.*`. */
  code: string;
  /** `METHOD /path`, or the location in the document when the change belongs to no operation. */
  operation: string;
  operationId: string | undefined;
  /** What changed, in words. */
  description: string;
  /** The names a changelog may use for this change: the operationId, the path, and changed schemas it reaches. */
  names: string[];
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** Keys that document rather than define: changing them changes no client's behaviour. */
const PROSE = new Set(['description', 'summary', 'example', 'examples', 'x-example', 'externalDocs']);

/** The node without its prose, at any depth, keys sorted; names of properties (which may be `description`) are kept. */
function withoutProse(node: unknown, inPropertyNames = false): unknown {
  if (Array.isArray(node)) return node.map((item) => withoutProse(item));
  if (node === null || typeof node !== 'object') return node;
  const kept: Node = {};
  for (const key of Object.keys(node).sort()) {
    if (!inPropertyNames && PROSE.has(key)) continue;
    kept[key] = withoutProse((node as Node)[key], !inPropertyNames && key === 'properties');
  }
  return kept;
}

function resolvePointer(doc: Node, ref: string): unknown {
  if (!ref.startsWith('#/')) return undefined;
  return ref
    .slice(2)
    .split('/')
    .reduce<unknown>((node, key) => (node as Node | undefined)?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
}

/** The node a `$ref` points to (followed until it is no `$ref`), or the node itself. */
function deref(doc: Node, node: Node | undefined, hops = 0): Node | undefined {
  if (typeof node?.$ref !== 'string' || hops > 20) return node;
  return deref(doc, resolvePointer(doc, node.$ref) as Node | undefined, hops + 1);
}

/** Every `$ref` reachable from `node`, followed through the document. */
function referencesFrom(doc: Node, node: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(node)) for (const item of node) referencesFrom(doc, item, found);
  else if (node !== null && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') {
        if (!found.has(value)) {
          found.add(value);
          referencesFrom(doc, resolvePointer(doc, value), found);
        }
      } else referencesFrom(doc, value, found);
    }
  }
  return found;
}

interface IndexedOperation {
  path: string;
  method: (typeof METHODS)[number];
  operation: Node;
  pathItem: Node;
  references: Set<string>;
  /** The operation as a client depends on it: definition and referenced components, prose aside. */
  fingerprint: string;
  /** The same for its request body and responses alone, all that openapi-diff looks at. */
  bodiesFingerprint: string;
}

/** `node` and the components it refers to, prose aside, as one string to compare. */
function fingerprintOf(doc: Node, node: unknown, references = referencesFrom(doc, node)): string {
  const referenced = [...references].sort().map((ref) => [ref, withoutProse(resolvePointer(doc, ref))]);
  return JSON.stringify([withoutProse(node), referenced]);
}

/** Paths match whatever their parameters are called, as openapi-diff matches them. */
const normalizePath = (path: string) => path.replace(/\{[^}]*\}/g, '{}');
const operationKey = (method: string, path: string) => `${method} ${normalizePath(path)}`;
const label = (method: string, path: string) => `${method.toUpperCase()} ${path}`;

function indexOperations(doc: Node): Map<string, IndexedOperation> {
  const operations = new Map<string, IndexedOperation>();
  for (const [path, pathItem] of Object.entries((doc.paths ?? {}) as Record<string, Node>)) {
    for (const method of METHODS) {
      const operation = pathItem[method] as Node | undefined;
      if (!operation) continue;
      const own = { path, parameters: pathItem.parameters, operation };
      const references = referencesFrom(doc, own);
      operations.set(operationKey(method, path), {
        path,
        method,
        operation,
        pathItem,
        references,
        fingerprint: fingerprintOf(doc, own, references),
        bodiesFingerprint: fingerprintOf(doc, { path, requestBody: operation.requestBody, responses: operation.responses }),
      });
    }
  }
  return operations;
}

/** Components (`#/components/schemas/Environment`, ...) whose definition differs between the two documents. */
function changedComponents(base: Node, current: Node): Set<string> {
  const changed = new Set<string>();
  for (const [section, entries] of Object.entries((base.components ?? {}) as Record<string, Node>)) {
    for (const [name, definition] of Object.entries(entries ?? {})) {
      const after = (current.components as Node | undefined)?.[section]?.[name];
      if (JSON.stringify(withoutProse(definition)) !== JSON.stringify(withoutProse(after))) changed.add(`#/components/${section}/${name}`);
    }
  }
  return changed;
}

const componentName = (ref: string) => ref.slice(ref.lastIndexOf('/') + 1);

/**
 * The document with the given operations taken out, path items left without operations too, and the components no
 * operation left refers to (json-schema-diff carries every schema of the document into each comparison).
 */
function withoutOperations(doc: Node, left: ReadonlySet<string>): Node {
  const paths: Node = {};
  for (const [path, pathItem] of Object.entries((doc.paths ?? {}) as Record<string, Node>)) {
    const kept: Node = { ...pathItem };
    for (const method of METHODS) if (kept[method] && left.has(operationKey(method, path))) delete kept[method];
    if (METHODS.some((method) => kept[method])) paths[path] = kept;
  }
  const referenced = referencesFrom(doc, paths);
  const components = Object.fromEntries(
    Object.entries((doc.components ?? {}) as Record<string, Node>).map(([section, entries]) => [
      section,
      section === 'securitySchemes' ? entries : Object.fromEntries(Object.entries(entries ?? {}).filter(([name]) => referenced.has(`#/components/${section}/${name}`))),
    ]),
  );
  return { ...doc, paths, components };
}

// ---------------------------------------------------------------------------------------------------------------
// Field by field: what a schema accepts, before and after.

/** One difference between two versions of a schema: whether the new one accepts less, more, or both. */
interface Fact {
  text: string;
  narrows: boolean;
  widens: boolean;
  /** A property the old version did not declare: widens, but breaks no response reader. */
  addedProperty?: boolean;
}

const show = (values: unknown[]) => values.map((value) => JSON.stringify(value)).join(', ');
const typeOf = (schema: Node) => (schema.type === undefined ? 'any' : String(schema.type));

/** The keywords of one schema node; `where` is the field's path in the body, empty at the top. */
function keywordFacts(before: Node, after: Node, where: string): Fact[] {
  const at = where ? `${where}: ` : '';
  const facts: Fact[] = [];
  const fact = (text: string, narrows: boolean, widens: boolean) => facts.push({ text: `${at}${text}`, narrows, widens });
  for (const key of ['type', 'format', 'pattern'] as const) {
    if (before[key] === after[key]) continue;
    fact(`${key} ${before[key] ?? 'none'} → ${after[key] ?? 'none'}`, after[key] !== undefined, before[key] !== undefined);
  }
  if (Array.isArray(before.enum) && Array.isArray(after.enum)) {
    const lost = before.enum.filter((value: unknown) => !after.enum.includes(value));
    const gained = after.enum.filter((value: unknown) => !before.enum.includes(value));
    if (lost.length > 0) fact(`enum no longer has ${show(lost)}`, true, false);
    if (gained.length > 0) fact(`enum now also has ${show(gained)}`, false, true);
  } else if (Array.isArray(after.enum)) fact(`now limited to ${show(after.enum)}`, true, false);
  else if (Array.isArray(before.enum)) fact(`no longer limited to ${show(before.enum)}`, false, true);
  if (before.nullable === true && after.nullable !== true) fact('no longer nullable', true, false);
  if (after.nullable === true && before.nullable !== true) fact('now nullable', false, true);
  for (const [key, lower] of [
    ['minimum', true],
    ['minLength', true],
    ['minItems', true],
    ['maximum', false],
    ['maxLength', false],
    ['maxItems', false],
  ] as const) {
    const [old, now] = [before[key] as number | undefined, after[key] as number | undefined];
    if (old === now) continue;
    // A lower bound that rises, or an upper bound that falls (or appears), accepts less.
    const tighter = now !== undefined && (old === undefined || (lower ? now > old : now < old));
    fact(`${key} ${old ?? 'none'} → ${now ?? 'none'}`, tighter, !tighter);
  }
  return facts;
}

const COMBINATORS = ['allOf', 'anyOf', 'oneOf'] as const;

/** Every fact about two versions of a schema, following properties, items and combinators (paired by position). */
function schemaFacts(sides: Sides, beforeNode: Node | undefined, afterNode: Node | undefined, where: string, seen = new Set<string>()): Fact[] {
  const pair = `${beforeNode?.$ref ?? ''}|${afterNode?.$ref ?? ''}|${where}`;
  if (seen.has(pair) || where.split('.').length > 12) return [];
  seen.add(pair);
  const before = deref(sides.base, beforeNode) ?? {};
  const after = deref(sides.current, afterNode) ?? {};
  const facts = keywordFacts(before, after, where);
  const field = (name: string) => (where ? `${where}.${name}` : name);

  const beforeRequired = new Set<string>(before.required ?? []);
  const afterRequired = new Set<string>(after.required ?? []);
  for (const name of afterRequired) if (!beforeRequired.has(name)) facts.push({ text: `${field(name)}: now required`, narrows: true, widens: false });
  for (const name of beforeRequired) {
    if (!afterRequired.has(name)) facts.push({ text: `${field(name)}: no longer required`, narrows: false, widens: true });
  }
  const beforeProperties: Node = before.properties ?? {};
  const afterProperties: Node = after.properties ?? {};
  for (const name of Object.keys(beforeProperties)) {
    if (name in afterProperties) facts.push(...schemaFacts(sides, beforeProperties[name], afterProperties[name], field(name), seen));
    // A request may no longer send it (when the object is closed); a response reader no longer finds it.
    else facts.push({ text: `${field(name)}: removed`, narrows: after.additionalProperties === false, widens: true });
  }
  for (const name of Object.keys(afterProperties)) {
    if (name in beforeProperties) continue;
    facts.push({ text: `${field(name)}: added`, narrows: false, widens: before.additionalProperties === false, addedProperty: true });
  }
  const at = where ? `${where}: ` : '';
  if (before.additionalProperties !== false && after.additionalProperties === false && Object.keys(afterProperties).length > 0) {
    facts.push({ text: `${at}no longer accepts undeclared fields`, narrows: true, widens: false });
  }
  if (before.items !== undefined || after.items !== undefined) facts.push(...schemaFacts(sides, before.items, after.items, `${where}[]`, seen));
  for (const combinator of COMBINATORS) {
    const [old, now] = [(before[combinator] ?? []) as Node[], (after[combinator] ?? []) as Node[]];
    if (old.length !== now.length) facts.push({ text: `${at}${combinator} of ${old.length} → ${now.length} schemas`, narrows: true, widens: true });
    else old.forEach((schema, i) => facts.push(...schemaFacts(sides, schema, now[i], `${where}${where ? ' ' : ''}(${combinator} ${i + 1})`, seen)));
  }
  return facts;
}

// ---------------------------------------------------------------------------------------------------------------

interface Sides {
  base: Node;
  current: Node;
  baseOperations: Map<string, IndexedOperation>;
  currentOperations: Map<string, IndexedOperation>;
  changedComponents: Set<string>;
}

function changeFor(sides: Sides, kind: ChangeKind, code: string, method: string, path: string, description: string): Change {
  const key = operationKey(method, path);
  const before = sides.baseOperations.get(key);
  const after = sides.currentOperations.get(key);
  const operationId: string | undefined = after?.operation.operationId ?? before?.operation.operationId;
  const components = new Set([...(before?.references ?? []), ...(after?.references ?? [])].filter((ref) => sides.changedComponents.has(ref)).map(componentName));
  const names = [...(operationId ? [operationId] : []), label(method, path), path, ...[...components].sort()];
  return { kind, code, operation: label(method, path), operationId, description, names };
}

/** The operation's parameters by `in` and name (the path item's, overridden by the operation's), resolved. */
function parametersOf(doc: Node, indexed: IndexedOperation): Map<string, Node> {
  const parameters = new Map<string, Node>();
  for (const list of [indexed.pathItem.parameters, indexed.operation.parameters]) {
    for (const entry of (list ?? []) as Node[]) {
      const parameter = deref(doc, entry);
      if (!parameter) continue;
      const name = parameter.in === 'header' ? String(parameter.name).toLowerCase() : parameter.name;
      parameters.set(`${parameter.in} parameter ${name}`, parameter);
    }
  }
  return parameters;
}

/** Path, query and header parameters: removed, newly required, accepting less, or added. */
function parameterChanges(sides: Sides, before: IndexedOperation, after: IndexedOperation): Change[] {
  const beforeParameters = parametersOf(sides.base, before);
  const afterParameters = parametersOf(sides.current, after);
  const changes: Change[] = [];
  const change = (kind: ChangeKind, code: string, description: string) => changes.push(changeFor(sides, kind, code, after.method, after.path, description));
  for (const [name, old] of beforeParameters) {
    const now = afterParameters.get(name);
    if (!now) {
      change('breaking', 'parameter.remove', `${name} removed (a request sending it is refused)`);
      continue;
    }
    if (now.required === true && old.required !== true) change('breaking', 'parameter.required', `${name} now required`);
    const facts = schemaFacts(sides, old.schema, now.schema, '');
    const narrowed = facts.filter((fact) => fact.narrows);
    if (narrowed.length > 0) change('breaking', 'parameter.narrowed', `${name} accepts less: ${narrowed.map((fact) => fact.text).join('; ')}`);
    else if (facts.length > 0) change('non-breaking', 'parameter.widened', `${name} accepts more: ${facts.map((fact) => fact.text).join('; ')}`);
  }
  for (const [name, added] of afterParameters) {
    if (beforeParameters.has(name)) continue;
    if (added.required === true) change('breaking', 'parameter.required', `${name} added, required`);
    else change('non-breaking', 'parameter.add', `${name} added, optional`);
  }
  return changes;
}

/** A body of one operation: its request (`status` undefined) or the response of one status. */
interface BodyFacts {
  status: string | undefined;
  facts: Fact[];
}

const schemasByMediaType = (doc: Node, body: Node | undefined): Record<string, Node | undefined> =>
  Object.fromEntries(Object.entries((deref(doc, body)?.content ?? {}) as Record<string, Node>).map(([mediaType, media]) => [mediaType, media?.schema]));

/** The facts of the request body and of each response both versions declare, for the media types both declare. */
function bodyFacts(sides: Sides, before: IndexedOperation, after: IndexedOperation): BodyFacts[] {
  const pairs: Array<[string | undefined, Node | undefined, Node | undefined]> = [[undefined, before.operation.requestBody, after.operation.requestBody]];
  for (const [status, response] of Object.entries((after.operation.responses ?? {}) as Record<string, Node>)) {
    const old = before.operation.responses?.[status];
    if (old) pairs.push([status, old, response]);
  }
  return pairs.map(([status, old, now]) => {
    const oldSchemas = schemasByMediaType(sides.base, old);
    const newSchemas = schemasByMediaType(sides.current, now);
    const facts = Object.keys(newSchemas)
      .filter((mediaType) => mediaType in oldSchemas)
      .flatMap((mediaType) => schemaFacts(sides, oldSchemas[mediaType], newSchemas[mediaType], ''));
    if (status === undefined && deref(sides.current, now)?.required === true && deref(sides.base, old)?.required !== true) {
      facts.push({ text: 'the body is now required', narrows: true, widens: false });
    }
    return { status, facts: [...new Map(facts.map((fact) => [fact.text, fact])).values()] };
  });
}

/** What breaks whom: a request body that accepts less, a response that may hold more (added fields aside). */
const breaksClients = (status: string | undefined, fact: Fact) => (status === undefined ? fact.narrows : fact.widens && !fact.addedProperty);
const bodyName = (status: string | undefined) => (status === undefined ? 'request body' : `response ${status}`);
const texts = (facts: Fact[]) => facts.map((fact) => fact.text).join('; ');

/** openapi-diff's code in words; `status` is the response status the change is about, if any. */
function describeCode(code: string, status: string | undefined): string {
  switch (code) {
    case 'path.remove':
    case 'method.remove':
      return 'operation removed';
    case 'path.add':
    case 'method.add':
      return 'operation added';
    case 'request.body.scope.remove':
      return 'request body accepts less than before';
    case 'request.body.scope.add':
      return 'request body accepts more than before';
    case 'response.body.scope.add':
      return `${bodyName(status)} may hold what it could not before`;
    case 'response.body.scope.remove':
      return `${bodyName(status)} holds less than before`;
    case 'response.status-code.remove':
      return `status ${status} no longer declared`;
    case 'response.status-code.add':
      return `status ${status} declared`;
    default:
      // Response headers: response.required.header.remove and the like.
      return `${bodyName(status)}: ${code.replace(/^response\./, '').replace(/\./g, ' ')}`;
  }
}

interface Located {
  path: string | undefined;
  method: string | undefined;
  /** The part of the location below the operation, e.g. `responses.200.content.application/json.schema`. */
  rest: string;
}

/** Splits an openapi-diff location (`paths./environments/{id}.get.responses.200...`) at the path and method. */
function locate(location: string, knownPaths: readonly string[]): Located {
  if (!location.startsWith('paths.')) return { path: undefined, method: undefined, rest: location };
  const afterPaths = location.slice('paths.'.length);
  const path = knownPaths
    .filter((candidate) => afterPaths === candidate || afterPaths.startsWith(`${candidate}.`))
    .sort((a, b) => b.length - a.length)[0];
  if (path === undefined) return { path: undefined, method: undefined, rest: location };
  const [method, ...rest] = afterPaths.slice(path.length + 1).split('.');
  return { path, method: method || undefined, rest: rest.join('.') };
}

interface DiffResult {
  type: string;
  code: string;
  sourceSpecEntityDetails: Array<{ location: string }>;
  destinationSpecEntityDetails: Array<{ location: string }>;
}

/**
 * openapi-diff's findings as changes. A body's change is told with the facts found field by field, when there are
 * any; a response that only gained fields is not breaking.
 */
function fromOpenapiDiff(
  sides: Sides,
  pruned: { base: Node; current: Node },
  result: DiffResult,
  factsOf: (key: string, status: string | undefined) => Fact[] | undefined,
): Array<{ change: Change; body?: string }> {
  let kind = result.type as ChangeKind;
  const location = (result.sourceSpecEntityDetails[0] ?? result.destinationSpecEntityDetails[0])?.location ?? '';
  const knownPaths = [...Object.keys(sides.base.paths ?? {}), ...Object.keys(sides.current.paths ?? {})];
  const { path, method, rest } = locate(location, knownPaths);
  const status = /^responses\.([^.]+)/.exec(rest)?.[1];
  let description = describeCode(result.code, status);
  if (path === undefined) return [{ change: { kind, code: result.code, operation: location, operationId: undefined, description, names: [location] } }];
  if (result.code === 'path.remove' || result.code === 'path.add') {
    // A whole path item (of the operations left to compare) came or went: one change per operation, so each is named.
    const item = (result.code === 'path.remove' ? pruned.base : pruned.current).paths[path] as Node;
    return METHODS.filter((m) => item[m]).map((m) => ({ change: changeFor(sides, kind, result.code, m, path, description) }));
  }
  if (result.code === 'response.status-code.remove' && status === '501') {
    // specs/README.md: a declared 501 marks an operation not implemented yet; dropping it means it now is.
    return [{ change: changeFor(sides, 'non-breaking', result.code, method ?? '', path, 'status 501 no longer declared: the operation is implemented') }];
  }
  if (!result.code.includes('.body.scope.')) return [{ change: changeFor(sides, kind, result.code, method ?? '', path, description) }];
  const facts = factsOf(operationKey(method ?? '', path), status) ?? [];
  const breaking = facts.filter((fact) => breaksClients(status, fact));
  const others = facts.filter((fact) => !breaksClients(status, fact));
  if (kind === 'breaking' && breaking.length > 0) description = `${bodyName(status)}: ${texts(breaking)}`;
  else if (kind === 'breaking' && status !== undefined && facts.length > 0 && facts.every((fact) => fact.addedProperty || !fact.widens)) {
    kind = 'non-breaking';
    description = `${bodyName(status)}: ${texts(facts)}`;
  } else if (kind !== 'breaking' && others.length > 0) description = `${bodyName(status)}: ${texts(others)}`;
  const change = changeFor(sides, kind, result.code, method ?? '', path, description);
  return [{ change, body: `${change.operation} ${bodyName(status)}` }];
}

/** Every difference that matters to a client between `base` and `current` (OpenAPI 3 documents, parsed). */
export async function compareSpecs(base: Node, current: Node): Promise<Change[]> {
  const sides: Sides = {
    base,
    current,
    baseOperations: indexOperations(base),
    currentOperations: indexOperations(current),
    changedComponents: changedComponents(base, current),
  };
  /** Operations on both sides whose bodies and statuses are the same: openapi-diff need not see them. */
  const sameBodies = new Set<string>();
  const changes: Change[] = [];
  const facts = new Map<string, BodyFacts[]>();
  for (const [key, before] of sides.baseOperations) {
    const after = sides.currentOperations.get(key);
    if (!after) continue;
    if (after.bodiesFingerprint === before.bodiesFingerprint) sameBodies.add(key);
    if (after.fingerprint === before.fingerprint) continue;
    changes.push(...parameterChanges(sides, before, after));
    facts.set(key, bodyFacts(sides, before, after));
  }
  const factsOf = (key: string, status: string | undefined) => facts.get(key)?.find((body) => body.status === status)?.facts;

  const pruned = { base: withoutOperations(base, sameBodies), current: withoutOperations(current, sameBodies) };
  /** Bodies (`POST /environments request body`) whose breaking change openapi-diff has already told. */
  const told = new Set<string>();
  if (Object.keys(pruned.base.paths).length > 0 || Object.keys(pruned.current.paths).length > 0) {
    const outcome = await openapiDiff.diffSpecs({
      sourceSpec: { content: JSON.stringify(pruned.base), location: 'base', format: 'openapi3' },
      destinationSpec: { content: JSON.stringify(pruned.current), location: 'current', format: 'openapi3' },
    });
    const results = [...(outcome.breakingDifferencesFound ? outcome.breakingDifferences : []), ...outcome.nonBreakingDifferences, ...outcome.unclassifiedDifferences];
    const found = results.flatMap((result) => fromOpenapiDiff(sides, pruned, result, factsOf));
    for (const { change, body } of found) if (body !== undefined && change.kind === 'breaking') told.add(body);
    // A retyped field both widens and narrows a body; its breaking side says all there is to say.
    changes.push(...found.filter(({ change, body }) => change.kind === 'breaking' || body === undefined || !told.has(body)).map(({ change }) => change));
  }
  // What json-schema-diff does not see (enum, format, pattern, nullable), where openapi-diff found nothing breaking.
  for (const [key, bodies] of facts) {
    const after = sides.currentOperations.get(key)!;
    for (const { status, facts: found } of bodies) {
      const breaking = found.filter((fact) => breaksClients(status, fact));
      if (breaking.length === 0 || told.has(`${label(after.method, after.path)} ${bodyName(status)}`)) continue;
      const code = status === undefined ? 'request.body.narrowed' : 'response.body.widened';
      changes.push(changeFor(sides, 'breaking', code, after.method, after.path, `${bodyName(status)}: ${texts(breaking)}`));
    }
  }
  const order: Record<ChangeKind, number> = { breaking: 0, 'non-breaking': 1, unclassified: 2 };
  return changes.sort((a, b) => order[a.kind] - order[b.kind] || a.operation.localeCompare(b.operation) || a.code.localeCompare(b.code));
}
