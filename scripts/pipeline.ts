import { execFile } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import openapiTS, { astToString } from 'openapi-typescript';
import converter from 'swagger2openapi';
import { parse, stringify } from 'yaml';
import { ROOT } from './root.js';

/**
 * The generation pipeline, one API at a time:
 *   specs/<api>/swagger.yaml (split sources) --redocly bundle--> generated/<api>/swagger.yaml (Swagger 2.0)
 *   --swagger2openapi--> generated/<api>/openapi.yaml (OpenAPI 3) --openapi-typescript--> generated/<api>/schema.d.ts
 */
export const API_NAMES = ['compliance', 'conductor', 'console'] as const;
export type ApiName = (typeof API_NAMES)[number];

export { ROOT };
export const GENERATED_FILES = ['swagger.yaml', 'openapi.yaml', 'schema.d.ts'] as const;

const run = promisify(execFile);
const HEADER = (api: ApiName) =>
  `# Generated from specs/${api}/ by \`make generate\`. Do not edit: change the spec and regenerate.\n`;

async function bundle(api: ApiName, outFile: string): Promise<void> {
  await run(join(ROOT, 'node_modules/.bin/redocly'), ['bundle', `${api}@v0`, '--config', join(ROOT, 'redocly.yaml'), '-o', outFile], {
    cwd: ROOT,
  });
}

type Operations = Record<string, Record<string, { parameters?: Array<{ in?: string; required?: boolean }>; requestBody?: { required?: boolean } }>>;

async function toOpenApi3(swagger: unknown): Promise<Record<string, unknown>> {
  const { openapi } = await converter.convertObj(swagger as object, { patch: true, warnOnly: false, resolve: false });
  keepOptionalBodies(swagger as { paths: Operations }, openapi as { paths: Operations });
  allowReservedInQueries(openapi as { paths: Operations });
  return openapi as Record<string, unknown>;
}

/**
 * Query strings arrive as clients write them: `urlencode` in Python, `URLSearchParams` and HTML forms send `+` for a
 * space, and curl with a literal URL sends `/`, `:`, `@`, `[`… unencoded. OpenAPI 3's default (`allowReserved:
 * false`) makes the validator refuse any reserved character left unencoded, `+` included, before the value is even
 * looked at, and Swagger 2.0 cannot say otherwise. So every query parameter gets `allowReserved: true`: the server
 * decodes the query string as application/x-www-form-urlencoded (Express's query parser) and the declared
 * patterns, enums and bounds judge the decoded values.
 */
function allowReservedInQueries(openapi: { paths: Operations; components?: { parameters?: Record<string, unknown> } }): void {
  // Shared parameters (`$ref: '#/components/parameters/…'`), those of a path item, and those of each operation.
  const parameters: unknown[] = Object.values(openapi.components?.parameters ?? {});
  for (const item of Object.values(openapi.paths) as Array<Record<string, unknown>>) {
    for (const value of [item, ...Object.values(item)]) {
      const list = (value as { parameters?: unknown } | null)?.parameters;
      if (Array.isArray(list)) parameters.push(...list);
    }
  }
  for (const parameter of parameters as Array<Record<string, unknown>>) {
    if (parameter.in === 'query') parameter.allowReserved = true;
  }
}

/**
 * swagger2openapi drops `required: false` from a body (false is OpenAPI 3's default), but the request validator
 * accepts a request without Content-Type only when the body says `required: false`: keep it.
 */
function keepOptionalBodies(swagger: { paths: Operations }, openapi: { paths: Operations }): void {
  for (const [path, item] of Object.entries(swagger.paths)) {
    for (const [method, op] of Object.entries(item)) {
      const body = op?.parameters?.find((p) => p.in === 'body');
      const requestBody = openapi.paths[path]?.[method]?.requestBody;
      if (body && body.required !== true && requestBody) requestBody.required = false;
    }
  }
}

async function toTypes(api: ApiName, openapi: Record<string, unknown>): Promise<string> {
  // Passing the parsed document keeps openapi-typescript from reading redocly.yaml, which names the Swagger 2.0 roots.
  // A default makes a field optional to send, not present in every body, hence defaultNonNullable: false.
  const ast = await openapiTS(openapi as unknown as Parameters<typeof openapiTS>[0], { alphabetize: true, rootTypes: false, defaultNonNullable: false });
  return `/**\n * Generated from specs/${api}/ by \`make generate\`. Do not edit: change the spec and regenerate.\n */\n\n${astToString(ast)}`;
}

/** Writes the three generated files of every API below `outRoot` (normally `generated/`). */
export async function generateAll(outRoot: string): Promise<string[]> {
  const written: string[] = [];
  for (const api of API_NAMES) {
    const dir = join(outRoot, api);
    await mkdir(dir, { recursive: true });
    const swaggerFile = join(dir, 'swagger.yaml');
    await bundle(api, swaggerFile);
    const swaggerYaml = HEADER(api) + (await readFile(swaggerFile, 'utf8'));
    await writeFile(swaggerFile, swaggerYaml);

    const openapi = await toOpenApi3(parse(swaggerYaml));
    await writeFile(join(dir, 'openapi.yaml'), HEADER(api) + stringify(openapi, { lineWidth: 0 }));
    await writeFile(join(dir, 'schema.d.ts'), await toTypes(api, openapi));
    written.push(...GENERATED_FILES.map((f) => join(dir, f)));
  }
  return written;
}
