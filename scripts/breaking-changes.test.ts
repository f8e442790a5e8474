import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import openapiDiff from 'openapi-diff';
import { describe, expect, it, jest } from '@jest/globals';
import { compareSpecs, type Change } from './breaking-changes.js';
import { smallApi } from './fixtures/small-api.js';
import { ROOT } from './pipeline.js';

type Spec = ReturnType<typeof smallApi>;

/** The changes from the small API to a copy changed by `change`. */
async function changesAfter(change: (spec: Spec) => void): Promise<Change[]> {
  const current = smallApi();
  change(current);
  return compareSpecs(smallApi(), current);
}

const brief = (changes: Change[]) => changes.map((c) => `${c.kind} ${c.operation} ${c.description}`);
const breaking = (changes: Change[]) => brief(changes.filter((c) => c.kind === 'breaking'));

const schemas = (spec: Spec) => spec.components.schemas;
const listParameters = (spec: Spec) => spec.paths['/environments'].get.parameters;

describe('breaking changes', () => {
  it('finds none between a spec and itself, nor when only descriptions and examples change', async () => {
    expect(await changesAfter(() => {})).toEqual([]);
    expect(
      await changesAfter((spec) => {
        spec.info.description = 'Reworded.';
        spec.paths['/environments'].get.summary = 'List every environment';
        schemas(spec).EnvironmentInput.example = { name: 'staging' };
        schemas(spec).EnvironmentInput.properties.name.description = 'Reworded.';
      }),
    ).toEqual([]);
  });

  it.each<[string, (spec: Spec) => void, string[]]>([
    [
      'removed operation',
      (spec) => delete spec.paths['/environments/{environment_id}'].delete,
      ['breaking DELETE /environments/{environment_id} operation removed'],
    ],
    [
      'removed path',
      (spec) => delete spec.paths['/environments/{environment_id}'],
      ['breaking DELETE /environments/{environment_id} operation removed', 'breaking GET /environments/{environment_id} operation removed'],
    ],
    [
      'newly required request field',
      (spec) => schemas(spec).EnvironmentInput.required.push('provider'),
      ['breaking POST /environments request body: provider: now required'],
    ],
    [
      'removed request field',
      (spec) => delete schemas(spec).EnvironmentInput.properties.scan_interval,
      ['breaking POST /environments request body: scan_interval: removed'],
    ],
    [
      'narrowed request enum',
      (spec) => (schemas(spec).EnvironmentInput.properties.provider.enum = ['provider_a']),
      ['breaking POST /environments request body: provider: enum no longer has "provider_b"'],
    ],
    [
      'changed request field type',
      (spec) => (schemas(spec).EnvironmentInput.properties.scan_interval = { type: 'string' }),
      ['breaking POST /environments request body: scan_interval: type integer → string'],
    ],
    [
      'changed response field type',
      (spec) => (schemas(spec).Environment.properties.scan_interval.type = 'string'),
      [
        'breaking GET /environments response 200: [].scan_interval: type integer → string',
        'breaking GET /environments/{environment_id} response 200: scan_interval: type integer → string',
        'breaking POST /environments response 201: scan_interval: type integer → string',
      ],
    ],
    [
      'removed response field (one named like the keyword description)',
      (spec) => delete schemas(spec).Environment.properties.description,
      [
        'breaking GET /environments response 200: [].description: removed',
        'breaking GET /environments/{environment_id} response 200: description: removed',
        'breaking POST /environments response 201: description: removed',
      ],
    ],
    [
      'response field made nullable',
      (spec) => (schemas(spec).Environment.properties.name.nullable = true),
      [
        'breaking GET /environments response 200: [].name: now nullable',
        'breaking GET /environments/{environment_id} response 200: name: now nullable',
        'breaking POST /environments response 201: name: now nullable',
      ],
    ],
    [
      'narrowed query parameter enum',
      (spec) => (listParameters(spec)[1].schema.enum = ['name']),
      ['breaking GET /environments query parameter order_by accepts less: enum no longer has "created_at"'],
    ],
    [
      'lower maximum of a shared parameter',
      (spec) => (spec.components.parameters.max_items.schema.maximum = 100),
      ['breaking GET /environments query parameter max_items accepts less: maximum 1000 → 100'],
    ],
    [
      'newly required query parameter',
      (spec) => (listParameters(spec)[1].required = true),
      ['breaking GET /environments query parameter order_by now required'],
    ],
    [
      'removed query parameter',
      (spec) => listParameters(spec).splice(1, 1),
      ['breaking GET /environments query parameter order_by removed (a request sending it is refused)'],
    ],
    [
      'changed path parameter type',
      (spec) => (spec.paths['/environments/{environment_id}'].parameters[0].schema = { type: 'integer' }),
      [
        'breaking DELETE /environments/{environment_id} path parameter environment_id accepts less: type string → integer',
        'breaking GET /environments/{environment_id} path parameter environment_id accepts less: type string → integer',
      ],
    ],
    [
      'removed response status',
      (spec) => delete spec.paths['/environments'].get.responses['400'],
      ['breaking GET /environments status 400 no longer declared'],
    ],
  ])('finds a %s breaking', async (_name, change, expected) => {
    expect(breaking(await changesAfter(change))).toEqual(expected);
  });

  it('names each change by operationId, path and the changed schemas the operation reaches', async () => {
    const [change] = await changesAfter((spec) => schemas(spec).EnvironmentInput.required.push('provider'));
    expect(change!.names).toEqual(['createEnvironment', 'POST /environments', '/environments', 'EnvironmentInput']);
  });

  it('finds additions compatible: an operation, optional fields and parameters, enum values in requests, statuses', async () => {
    const changes = await changesAfter((spec) => {
      spec.paths['/environments/{environment_id}'].patch = { operationId: 'updateEnvironment', responses: { '200': { description: 'Updated' } } };
      schemas(spec).EnvironmentInput.properties.region = { type: 'string', maxLength: 64 };
      schemas(spec).EnvironmentInput.properties.provider.enum.push('provider_c');
      schemas(spec).EnvironmentInput.properties.scan_interval.maximum = 604800;
      schemas(spec).Environment.properties.region = { type: 'string' };
      listParameters(spec).push({ name: 'query', in: 'query', required: false, schema: { type: 'string', maxLength: 100 } });
      spec.paths['/environments'].get.responses['403'] = { $ref: '#/components/responses/NotFound' };
    });
    expect(breaking(changes)).toEqual([]);
    expect(brief(changes)).toEqual(
      expect.arrayContaining([
        'non-breaking PATCH /environments/{environment_id} operation added',
        'non-breaking POST /environments request body: provider: enum now also has "provider_c"; scan_interval: maximum 86400 → 604800; region: added',
        'non-breaking GET /environments response 200: [].region: added',
        'non-breaking GET /environments query parameter query added, optional',
        'non-breaking GET /environments status 403 declared',
      ]),
    );
  });

  it('finds a field added to a closed response schema compatible: clients ignore fields they do not know', async () => {
    const closed = (spec: Spec) => (schemas(spec).Environment.additionalProperties = false);
    const before = smallApi();
    closed(before);
    const after = smallApi();
    closed(after);
    after.components.schemas.Environment.properties.region = { type: 'string' };
    const changes = await compareSpecs(before, after);
    expect(breaking(changes)).toEqual([]);
    expect(brief(changes)).toContain('non-breaking GET /environments/{environment_id} response 200: region: added');
  });

  it('finds a 501 no longer declared compatible: the operation is implemented', async () => {
    const before = smallApi();
    before.paths['/environments/{environment_id}'].delete.responses['501'] = { $ref: '#/components/responses/NotFound' };
    const changes = await compareSpecs(before, smallApi());
    expect(brief(changes)).toEqual(['non-breaking DELETE /environments/{environment_id} status 501 no longer declared: the operation is implemented']);
  });

  it('compares a real spec with itself without running openapi-diff, and finds an operation removed from it', async () => {
    const spec = parse(readFileSync(join(ROOT, 'generated/compliance/openapi.yaml'), 'utf8'));
    // openapi-diff over the whole compliance spec takes seconds: it sees only the operations whose bodies changed.
    const diffSpecs = jest.spyOn(openapiDiff, 'diffSpecs');
    try {
      expect(await compareSpecs(spec, structuredClone(spec))).toEqual([]);
      expect(diffSpecs).not.toHaveBeenCalled();
      const withoutDelete = structuredClone(spec);
      delete withoutDelete.paths['/environments/{environment_id}'].delete;
      expect(breaking(await compareSpecs(spec, withoutDelete))).toEqual(['breaking DELETE /environments/{environment_id} operation removed']);
      // Only the removed operation went to openapi-diff, on its path.
      expect(diffSpecs).toHaveBeenCalledTimes(1);
      const [{ sourceSpec, destinationSpec }] = diffSpecs.mock.calls[0]!;
      const methods = new Set(['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace']);
      const paths = (content: string) =>
        Object.fromEntries(Object.entries(JSON.parse(content).paths).map(([path, item]) => [path, Object.keys(item as object).filter((key) => methods.has(key))]));
      expect(paths(sourceSpec.content)).toEqual({ '/environments/{environment_id}': ['delete'] });
      expect(paths(destinationSpec.content)).toEqual({});
    } finally {
      diffSpecs.mockRestore();
    }
  });
});
