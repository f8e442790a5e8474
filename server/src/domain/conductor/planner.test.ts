import { describe, expect, it } from '@jest/globals';
import type { ResourceDocument } from '../rules/engine.js';
import { differences, initialResources, planKill, planReconcile, recompose, sameValue, toPlannedOperations, type Observed } from './planner.js';
import type { ProcessResource } from './types.js';

const FID = '7b0e4c52-3f8a-4d8e-9c61-1f2a3b4c5d6e';
const doc = (id: string, properties: Record<string, unknown>, tags: Record<string, string> = {}): ResourceDocument => ({
  id,
  type: 'PROVA.S3.Bucket',
  name: id,
  region: null,
  account: '123456789012',
  tags,
  properties,
});
const bucket = (name: string, properties: Record<string, unknown> = {}) => ({ name, type: 'PROVA.S3.Bucket', region: null, tags: {}, properties });
const present = (resource: ProcessResource, id: string): ProcessResource => ({ ...resource, resourceId: id, status: 'present' });

describe('the planner', () => {
  it('compares only what the desired state names, whatever the key order', () => {
    expect(sameValue({ a: [1, { b: 2, c: 3 }] }, { a: [1, { c: 3, b: 2 }] })).toBe(true);
    expect(sameValue([1, 2], [2, 1])).toBe(false);
    const actual = doc('b', { versioning: 'Enabled', encryption: { enabled: true, algorithm: 'kms' }, extra: 1 }, { env: 'prod', other: 'x' });
    expect(differences({ properties: { encryption: { algorithm: 'kms', enabled: true } }, tags: { env: 'prod' } }, actual)).toEqual({});
    expect(differences({ properties: { versioning: 'Suspended', missing: 2 }, tags: { env: 'dev' } }, actual)).toEqual({
      versioning: { from: 'Enabled', to: 'Suspended' },
      missing: { from: null, to: 2 },
      'tags.env': { from: 'prod', to: 'dev' },
    });
  });

  it('creates what is missing, updates what differs, leaves what matches, and deletes what was retired, last', () => {
    const [a, b, c, d] = initialResources(FID, { resources: [bucket('a', { v: 1 }), bucket('b', { v: 1 }), bucket('c', { v: 1 }), bucket('d')], imports: [] }, false);
    const resources = [{ ...present(a!, 'id-a'), retired: true }, present(b!, 'id-b'), c!, present(d!, 'id-d')];
    const observed: Observed = new Map([
      [a!.id, doc('id-a', {})],
      [b!.id, doc('id-b', { v: 2 })],
      [d!.id, undefined],
    ]);
    expect(planReconcile(resources, observed).map((s) => [s.operation, s.resource.name])).toEqual([
      ['update', 'b'],
      ['create', 'c'],
      ['create', 'd'],
      ['delete', 'a'],
    ]);
    expect(planKill(resources, observed).map((s) => [s.operation, s.resource.name])).toEqual([
      ['delete', 'a'],
      ['delete', 'b'],
      ['none', 'c'],
      ['none', 'd'],
    ]);
  });

  it('recomposes: same name, type and region keep their resource; new names are added; dropped ones retired; adopted ones stay', () => {
    const initial = initialResources(FID, { resources: [bucket('keep'), bucket('drop'), { ...bucket('moved'), type: 'PROVA.SQS.Queue', region: 'us-east-1' }], imports: [{ name: 'legacy', type: 'PROVA.S3.Bucket', id: 'arn:legacy' }] }, true);
    const current = initial.map((r, i) => present(r, `id-${i}`));
    const { all, added, changed } = recompose(FID, current, {
      resources: [bucket('new'), bucket('keep', { v: 2 }), { ...bucket('moved'), type: 'PROVA.SQS.Queue', region: 'us-west-2' }],
      imports: [{ name: 'ignored', type: 'PROVA.S3.Bucket', id: 'arn:ignored' }],
    });
    expect(added.map((r) => r.name)).toEqual(['new', 'moved']);
    expect(all.map((r) => [r.name, r.retired, r.resourceId])).toEqual([
      ['new', false, null],
      ['keep', false, 'id-0'],
      ['moved', false, null],
      ['legacy', false, 'id-3'],
      ['drop', true, 'id-1'],
      ['moved', true, 'id-2'],
    ]);
    expect(changed.find((r) => r.name === 'keep')!.properties).toEqual({ v: 2 });
    // The cloud holds what the current resources describe.
    const observed: Observed = new Map(current.map((r) => [r.id, doc(r.resourceId!, r.properties)]));
    expect(toPlannedOperations(planReconcile(all, observed)).map((p) => [p.operation, p.resourceName])).toEqual([
      ['create', 'new'],
      ['update', 'keep'],
      ['create', 'moved'],
      ['import', 'legacy'],
      ['delete', 'drop'],
      ['delete', 'moved'],
    ]);
  });
});
