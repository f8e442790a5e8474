/**
 * The structure of a JSON body, and the differences between two of them.
 *
 * Two answers to the same request are compared by structure, not by value: ids, timestamps, names, counts and enum
 * values naturally differ between the Prism mock (which answers the spec's example) and the real server (which
 * answers its own records). What is compared, at every level of the body:
 *   - the JSON type of each value: string, number (integer or not), boolean, null, object, array;
 *   - the set of keys of each object;
 *   - whether each array is empty; the elements of an array are pooled, so `items[].id` stands for every element;
 *   - for an object the schema declares as a map (`additionalProperties: <schema>` and no `properties`: group id to
 *     name, ...), its keys are data: only whether it is empty, and the structure of its values (`groups{*}`);
 *   - an object the schema declares free-form (`additionalProperties: true` and no `properties`: a policy document,
 *     a resource's properties) is compared as `object`, its contents are data.
 * And what is not a difference:
 *   - `null` against any other type where the schema marks the field `x-nullable`: whether a baseline is set or a
 *     scan has finished is state, and so is everything under such a field (it is not compared when one side is null);
 *   - anything under a path whose own difference is already reported (a key only one side has, an array empty on
 *     one side only): the topmost difference is the one reported.
 */

/** The subset of Swagger 2.0 schemas that decides how a body is walked. */
export interface Schema {
  $ref?: string;
  type?: string;
  format?: string;
  properties?: Record<string, Schema>;
  additionalProperties?: boolean | Schema;
  items?: Schema;
  allOf?: Schema[];
  'x-nullable'?: boolean;
}

/** Resolves `#/...` references of one document. */
export type Resolver = (schema: Schema | undefined) => Schema | undefined;

export function resolverOf(document: unknown): Resolver {
  const resolve: Resolver = (schema) => {
    let current = schema;
    for (let depth = 0; current?.$ref && depth < 32; depth += 1) {
      const pointer = current.$ref.replace(/^#\//, '').split('/').map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
      current = pointer.reduce<any>((node, part) => node?.[part], document) as Schema | undefined;
    }
    if (!current?.allOf) return current;
    // allOf: the properties of every part, and nullable when any part says so.
    const parts = current.allOf.map(resolve).filter((part): part is Schema => part !== undefined);
    return {
      ...current,
      allOf: undefined,
      type: current.type ?? parts.find((part) => part.type)?.type,
      properties: Object.assign({}, ...parts.map((part) => part.properties), current.properties),
      'x-nullable': current['x-nullable'] ?? parts.some((part) => part['x-nullable']),
    };
  };
  return resolve;
}

/** What was seen at one path of a body. */
export interface PathShape {
  kinds: Set<string>;
  /** The schema marks the value nullable. */
  nullable: boolean;
}

/** Path (`$`, `$.items[].id`, `$.groups{*}`) to what was seen there. */
export type Shape = Map<string, PathShape>;

const isMap = (schema: Schema | undefined) =>
  schema !== undefined && !schema.properties && typeof schema.additionalProperties === 'object';
const isFreeForm = (schema: Schema | undefined) =>
  schema !== undefined && !schema.properties && schema.additionalProperties === true;

/** The structure of `value`, walked along `schema` (which may be absent: then every object is compared by keys). */
export function shapeOf(value: unknown, schema: Schema | undefined, resolve: Resolver): Shape {
  const shape: Shape = new Map();
  const note = (path: string, kind: string, nullable: boolean) => {
    const entry = shape.get(path) ?? { kinds: new Set<string>(), nullable: false };
    entry.kinds.add(kind);
    entry.nullable ||= nullable;
    shape.set(path, entry);
  };
  const walk = (node: unknown, rawSchema: Schema | undefined, path: string) => {
    const schema = resolve(rawSchema);
    const nullable = schema?.['x-nullable'] === true;
    if (node === null) return note(path, 'null', nullable);
    if (Array.isArray(node)) {
      note(path, node.length === 0 ? 'array(empty)' : 'array(non-empty)', nullable);
      for (const item of node) walk(item, schema?.items, `${path}[]`);
      return;
    }
    if (typeof node === 'object') {
      if (isFreeForm(schema)) return note(path, 'object', nullable);
      const entries = Object.entries(node as Record<string, unknown>);
      if (isMap(schema)) {
        note(path, entries.length === 0 ? 'map(empty)' : 'map(non-empty)', nullable);
        for (const [, item] of entries) walk(item, schema!.additionalProperties as Schema, `${path}{*}`);
        return;
      }
      note(path, 'object', nullable);
      for (const [key, item] of entries) walk(item, schema?.properties?.[key], `${path}.${key}`);
      return;
    }
    note(path, typeof node === 'bigint' ? 'number' : typeof node, nullable);
  };
  walk(value, schema, '$');
  return shape;
}

/** One structural difference: a path, and what each side had there (`absent` when it had no such path). */
export interface StructureDifference {
  path: string;
  mock: string;
  server: string;
}

/**
 * The kinds at a path, sorted; where elements of an outer array are pooled, an array (or map) that is empty in some
 * elements and not in others is `non-empty`: one element with items shows the structure.
 */
function kindsOf(entry: PathShape, withoutNull = false): string {
  const kinds = [...entry.kinds].filter((kind) => !(withoutNull && kind === 'null'));
  return kinds
    .filter((kind) => !(kind.endsWith('(empty)') && kinds.includes(kind.replace('(empty)', '(non-empty)'))))
    .sort()
    .join(' | ');
}
const describe = (entry: PathShape | undefined) => (entry ? kindsOf(entry) : 'absent');
const isUnder = (path: string, ancestor: string) =>
  path.length > ancestor.length && path.startsWith(ancestor) && ['.', '[', '{'].includes(path[ancestor.length]!);

/** The differences between two shapes, topmost first; see the rules at the top of this file. */
export function compareShapes(mock: Shape, server: Shape): StructureDifference[] {
  const paths = [...new Set([...mock.keys(), ...server.keys()])].sort((a, b) => a.length - b.length || a.localeCompare(b));
  const differences: StructureDifference[] = [];
  /** Paths below which nothing is compared: already reported, or null on one side of a nullable field. */
  const closed: string[] = [];
  for (const path of paths) {
    if (closed.some((ancestor) => isUnder(path, ancestor))) continue;
    const m = mock.get(path);
    const s = server.get(path);
    if (m && s && (m.nullable || s.nullable)) {
      const mockKinds = kindsOf(m, true);
      const serverKinds = kindsOf(s, true);
      if (mockKinds === '' || serverKinds === '') {
        closed.push(path);
        continue;
      }
      if (mockKinds === serverKinds) continue;
    } else if (describe(m) === describe(s)) {
      continue;
    }
    differences.push({ path, mock: describe(m), server: describe(s) });
    closed.push(path);
  }
  return differences;
}
