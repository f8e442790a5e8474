import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { parse } from 'yaml';
import { withNullInNullableEnums } from '../server/src/http/apis.js';
import { API_NAMES, ROOT } from './pipeline.js';

/**
 * Every example in the specs must validate against its schema: Prism serves them, Dredd sends them, and readers
 * copy them. Checks request, response and parameter examples and top-level schema examples of each generated
 * OpenAPI 3 document.
 */
type Node = Record<string, unknown>;

const escape = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

function* examplesOf(node: unknown, pointer: string): Generator<{ pointer: string; example: unknown }> {
  if (typeof node !== 'object' || node === null) return;
  const object = node as Node;
  // A media type or parameter object: an example beside a schema.
  if ('schema' in object && typeof object.schema === 'object') {
    if ('example' in object) yield { pointer: `${pointer}/schema`, example: object.example };
    for (const [name, value] of Object.entries((object.examples ?? {}) as Record<string, Node>)) {
      if (value && typeof value === 'object' && 'value' in value) yield { pointer: `${pointer}/schema`, example: value.value };
      else yield { pointer: `${pointer}/schema`, example: value };
      void name;
    }
  }
  for (const [key, value] of Object.entries(object)) {
    if (key === 'example' || key === 'examples') continue;
    yield* examplesOf(value, `${pointer}/${escape(key)}`);
  }
}

function* schemaExamplesOf(doc: Node): Generator<{ pointer: string; example: unknown }> {
  const schemas = ((doc.components as Node | undefined)?.schemas ?? {}) as Record<string, Node>;
  for (const [name, schema] of Object.entries(schemas)) {
    if ('example' in schema) yield { pointer: `/components/schemas/${escape(name)}`, example: schema.example };
  }
}

let failures = 0;
let checked = 0;
for (const api of API_NAMES) {
  const doc = parse(await readFile(join(ROOT, 'generated', api, 'openapi.yaml'), 'utf8')) as Node;
  // As the server's validator reads it: a nullable enum admits null (server/src/http/apis.ts).
  withNullInNullableEnums(doc);
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isSafeInteger(n) });
  ajv.addFormat('int32', { type: 'number', validate: (n: number) => Number.isInteger(n) });
  ajv.addFormat('binary', true);
  ajv.addSchema(doc, api);
  for (const { pointer, example } of [...examplesOf(doc.paths, '/paths'), ...examplesOf(doc.components, '/components'), ...schemaExamplesOf(doc)]) {
    const schema = pointer.split('/').slice(1).reduce<unknown>((n, k) => (n as Node)?.[k.replace(/~1/g, '/').replace(/~0/g, '~')], doc) as Node;
    // Binary bodies carry a placeholder description, not bytes.
    if (schema?.format === 'binary') continue;
    checked += 1;
    const validate = ajv.getSchema(`${api}#${pointer}`) ?? ajv.compile({ $ref: `${api}#${pointer}` });
    if (!validate(example)) {
      failures += 1;
      console.error(`${api} ${pointer}: example does not match its schema: ${ajv.errorsText(validate.errors)}`);
    }
  }
}
if (failures > 0) {
  console.error(`${failures} of ${checked} examples do not match their schemas`);
  process.exitCode = 1;
} else {
  console.log(`all ${checked} examples match their schemas`);
}
