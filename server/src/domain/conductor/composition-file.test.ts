import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { PROJECT_ROOT } from '../../paths.js';
import { parseComposition, providerProblems } from './composition-file.js';

describe('composition.yaml', () => {
  it('reads the example composition', () => {
    const parsed = parseComposition(readFileSync(join(PROJECT_ROOT, 'examples/conductor/composition/composition.yaml'), 'utf8'));
    expect(parsed.problems).toEqual([]);
    expect(parsed.composition!.resources.map((r) => [r.name, r.type, r.region])).toEqual([
      ['web-assets', 'PROVA.S3.Bucket', null],
      ['web-sg', 'PROVA.EC2.SecurityGroup', 'us-east-1'],
      ['web-jobs', 'PROVA.SQS.Queue', 'us-east-1'],
    ]);
    expect(parsed.composition!.imports).toEqual([{ name: 'legacy-logs', type: 'PROVA.S3.Bucket', id: 'arn:prova:s3:::legacy-logs' }]);
    expect(providerProblems(parsed.composition!, 'provider_a', true)).toEqual([]);
    expect(providerProblems(parsed.composition!, 'provider_b', true)).toHaveLength(4);
  });

  it('reports every problem with its place in the file', () => {
    const parsed = parseComposition(
      ['resources:', '  - name: a', '    type: PROVA.S3.Bucket', '    tags: { n: 1 }', '  - name: a', '    type: bucket', '    properties: []', 'imports:', '  - { name: b, type: PROVA.S3.Bucket }', 'extra: 1'].join('\n'),
    );
    expect(parsed.problems.map((p) => p.location)).toEqual([
      'composition.yaml:extra',
      'composition.yaml:resources[0].tags.n',
      'composition.yaml:resources[1].name',
      'composition.yaml:resources[1].type',
      'composition.yaml:resources[1].properties',
      'composition.yaml:imports[0].id',
    ]);
    expect(parseComposition('resources: [').problems[0]!.code).toBe('yaml.syntax');
    expect(parseComposition('- a').problems[0]!.location).toBe('composition.yaml');
    expect(parseComposition('imports: []').problems[0]!.location).toBe('composition.yaml:resources');
  });
});
