import { describe, it } from '@jest/globals';
import type { Page } from '../../domain/repositories.js';
import type { TypeComplianceItem, TypeFailure } from '../../domain/scans/service.js';
import { expect } from '../../../test/expect.js';
import { typeCompliancePageJson } from './type-compliance-json.js';

/** The page's body as the spec shapes it, built as objects: what the written text must be the JSON of, byte for byte. */
function pageBody(page: Page<TypeComplianceItem>, offset: number) {
  return {
    count: page.items.length,
    is_truncated: page.hasMore,
    items: page.items.map((item) => ({
      resource_type: item.resourceType,
      total: item.total,
      compliant: item.compliant,
      noncompliant_count: item.noncompliantCount,
      noncompliant: item.noncompliant.map((resource) => ({
        resource_id: resource.resourceId,
        failed_rules: resource.failures.flatMap((f) => f.families.map((family) => ({ family, rule: f.ruleId, messages: [f.message] }))),
      })),
    })),
    ...(page.hasMore ? { next_offset: offset + page.items.length } : {}),
  };
}

const BOTH = ['CIS', 'NIST'];
const ONE = ['NIST'];
const failure = (ruleId: string, message: string, families: readonly string[]): TypeFailure => ({ ruleId, message, families });

const item = (resourceType: string, noncompliant: TypeComplianceItem['noncompliant']): TypeComplianceItem => ({
  resourceType,
  total: 7,
  compliant: 7 - noncompliant.length,
  noncompliantCount: noncompliant.length,
  noncompliant,
});

const pages: Array<[string, Page<TypeComplianceItem>, number]> = [
    ['an empty page', { items: [], hasMore: false }, 0],
    ['a type without failing resources', { items: [item('PROVA.S3.Bucket', [])], hasMore: false }, 0],
    [
      'failures that repeat across resources, each rule once per family',
      {
        items: [
          item('PROVA.S3.Bucket', [
            { resourceId: 'arn:prova:s3:::a', failures: [failure('rule-a', 'No encryption', BOTH), failure('rule-b', 'Public', ONE)] },
            { resourceId: 'arn:prova:s3:::b', failures: [failure('rule-a', 'No encryption', BOTH)] },
            { resourceId: 'arn:prova:s3:::c', failures: [failure('rule-a', 'Other message', BOTH), failure('rule-b', 'Public', ONE)] },
          ]),
          item('PROVA.EC2.Instance', [{ resourceId: 'i-1', failures: [failure('rule-b', 'Public', ONE)] }]),
        ],
        hasMore: true,
      },
      20,
    ],
    [
      // Written once per page by rule and message, a failure must not be written again with another rule's families.
      'the same rule and message under other families',
      {
        items: [
          item('T', [
            { resourceId: 'r1', failures: [failure('rule-a', 'm', BOTH)] },
            { resourceId: 'r2', failures: [failure('rule-a', 'm', ONE)] },
            { resourceId: 'r3', failures: [failure('rule-a', 'm', BOTH)] },
          ]),
        ],
        hasMore: false,
      },
      0,
    ],
    [
      'a rule serving none of the families asked for, first, between and last',
      {
        items: [
          item('T', [
            { resourceId: 'r1', failures: [failure('rule-x', 'm', []), failure('rule-a', 'm', BOTH), failure('rule-y', 'm', []), failure('rule-b', 'n', ONE), failure('rule-z', 'm', [])] },
            { resourceId: 'r2', failures: [failure('rule-x', 'm', [])] },
          ]),
        ],
        hasMore: false,
      },
      0,
    ],
    [
      'text JSON escapes: quotes, backslashes, control characters, line separators, non-ASCII and lone surrogates',
      {
        items: [
          item('Custom::"Type"\\', [
            {
              resourceId: 'id \u0000 \n \t "é" ☃ 𝄞 \u2028 \ud800',
              failures: [failure('rule-"q"', 'field "a\\b" is \u0001 missing: é ☃ 𝄞 \udfff', BOTH)],
            },
          ]),
        ],
        hasMore: true,
      },
      0,
    ],
];

describe('the JSON text of a page of compliance by resource type', () => {
  it.each(pages)('writes %s byte for byte as JSON.stringify writes the body', (_name, page, offset) => {
    const text = typeCompliancePageJson(page, offset);
    expect(text.bytes.toString('utf8')).toBe(JSON.stringify(pageBody(page, offset)));
    expect(text.bytes.equals(Buffer.from(JSON.stringify(pageBody(page, offset)), 'utf8'))).toBe(true);
  });
});
