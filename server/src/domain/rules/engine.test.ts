import { describe, expect, it } from '@jest/globals';
import { RuleCompileError, compileRule, type ResourceDocument } from './engine.js';

const bucket = (properties: Record<string, unknown>): ResourceDocument => ({
  id: 'arn:prova:s3:::logs',
  type: 'PROVA.S3.Bucket',
  name: 'logs',
  region: null,
  account: '123456789012',
  tags: { env: 'prod' },
  properties,
});

describe('CEL rule engine', () => {
  it('passes and fails resources by their properties', () => {
    const rule = compileRule('resource.properties.encryption.enabled == true && resource.tags.env == "prod"');
    expect(rule.evaluate(bucket({ encryption: { enabled: true } }))).toEqual({ result: 'PASS' });
    expect(rule.evaluate(bucket({ encryption: { enabled: false } }))).toEqual({ result: 'FAIL' });
  });

  it('compares numbers from documents with int literals', () => {
    const rule = compileRule('resource.properties.ports.all(p, p != 22) && resource.properties.retention_days >= 90');
    expect(rule.evaluate(bucket({ ports: [443, 80], retention_days: 365 }))).toEqual({ result: 'PASS' });
    expect(rule.evaluate(bucket({ ports: [22], retention_days: 365 }))).toEqual({ result: 'FAIL' });
  });

  it('reports an error for a resource the rule cannot read, instead of throwing', () => {
    const rule = compileRule('resource.properties.encryption.enabled == true');
    const outcome = rule.evaluate(bucket({}));
    expect(outcome.result).toBe('ERROR');
  });

  it('refuses an expression that does not compile, with the position', () => {
    let error: unknown;
    try {
      compileRule('resource.properties.(');
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(RuleCompileError);
    expect((error as RuleCompileError).column).toBeGreaterThan(1);
    expect((error as Error).message).toMatch(/at line 1, column \d+/);
  });

  it('refuses unknown variables and non-boolean rules', () => {
    expect(() => compileRule('bucket.name == "x"')).toThrow(RuleCompileError);
    expect(() => compileRule('1 + 2')).toThrow(/must yield a bool/);
  });

  it('bounds the work of one evaluation: deep comprehension nesting is refused at compile time', () => {
    expect(() =>
      compileRule('resource.properties.a.all(x, resource.properties.a.all(y, resource.properties.a.all(z, x + y + z > 0)))'),
    ).toThrow(/nest at most 2 deep/);
    expect(() => compileRule(`${'('.repeat(200)}true${')'.repeat(200)}`)).toThrow(RuleCompileError);
  });
});
