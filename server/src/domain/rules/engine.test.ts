import { describe, expect, it, jest } from '@jest/globals';
import { RE2JS } from 're2js';
import { RuleCompileError, compileRule, type ResourceDocument } from './engine.js';

const HOSTILE_TEXT = `${'a'.repeat(31)}b`;

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

  describe('regular expressions', () => {
    it('runs a pattern that backtracks catastrophically in JavaScript with RE2, in linear time', () => {
      // Which engine saw the texts: RE2 (re2js, linear in the text) or a JavaScript RegExp, which backtracks.
      const re2 = jest.spyOn(RE2JS.prototype, 'test');
      const javascript = jest.spyOn(RegExp.prototype, 'exec');
      try {
        const rule = compileRule(`"${HOSTILE_TEXT}".matches("(a+)+$") || resource.name.matches("^(a|aa)+$")`);
        expect(rule.evaluate(bucket({}))).toEqual({ result: 'FAIL' });
        expect(rule.evaluate({ ...bucket({}), name: `${'a'.repeat(40)}!` })).toEqual({ result: 'FAIL' });
        expect(rule.evaluate({ ...bucket({}), name: 'a'.repeat(40) })).toEqual({ result: 'PASS' });
        // The texts of 30 characters or more that each engine matched: all by RE2, none by a RegExp.
        const long = (calls: unknown[][]) => calls.map(([text]) => String(text)).filter((text) => text.length >= 30);
        expect(long(re2.mock.calls)).toEqual([HOSTILE_TEXT, HOSTILE_TEXT, `${'a'.repeat(40)}!`, HOSTILE_TEXT, 'a'.repeat(40)]);
        expect(long(javascript.mock.calls)).toEqual([]);
      } finally {
        re2.mockRestore();
        javascript.mockRestore();
      }
    });

    it('has RE2 semantics: a match anywhere unless anchored, and RE2 flags', () => {
      const matches = (text: string, pattern: string) =>
        compileRule(`resource.name.matches(${JSON.stringify(pattern)})`).evaluate({ ...bucket({}), name: text });
      expect(matches('my-logs-bucket', 'logs')).toEqual({ result: 'PASS' });
      expect(matches('my-logs-bucket', '^logs')).toEqual({ result: 'FAIL' });
      expect(matches('my-logs-bucket', '^my-.*-bucket$')).toEqual({ result: 'PASS' });
      expect(matches('LOGS', '(?i)logs')).toEqual({ result: 'PASS' });
      expect(matches('logs\nbucket', 'logs.bucket')).toEqual({ result: 'FAIL' });
      expect(matches('logs\nbucket', '(?s)logs.bucket')).toEqual({ result: 'PASS' });
    });

    it('applies RE2 to patterns computed at evaluation time and inside comprehensions', () => {
      const rule = compileRule('["(?i)LOGS", "^x"].exists(p, resource.name.matches(p))');
      expect(rule.evaluate(bucket({}))).toEqual({ result: 'PASS' });
      const dynamic = compileRule('resource.properties.names.all(n, n.matches(resource.properties.pattern))');
      expect(dynamic.evaluate(bucket({ names: [HOSTILE_TEXT], pattern: '(a+)+$' }))).toEqual({ result: 'FAIL' });
    });

    it.each([
      ['a backreference', '(a)\\\\1'],
      ['a lookahead', '(?=a)'],
    ])('refuses %s in a constant pattern at compile time, at the position of the pattern', (_, pattern) => {
      let error: unknown;
      try {
        compileRule(`resource.name.matches("${pattern}")`);
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(RuleCompileError);
      expect((error as RuleCompileError).message).toMatch(/^invalid regular expression .*\(at line 1, column 23\)$/);
    });

    it('reports a computed pattern that is not RE2 as the ERROR of the evaluation', () => {
      const rule = compileRule('resource.name.matches(resource.properties.pattern)');
      const outcome = rule.evaluate(bucket({ pattern: '(a)\\1' }));
      expect(outcome).toEqual({ result: 'ERROR', message: expect.stringMatching(/^invalid regular expression "\(a\)\\\\1": .*escape/) });
      expect(rule.evaluate(bucket({ pattern: '(?=a)' }))).toMatchObject({ result: 'ERROR', message: expect.stringMatching(/invalid regular expression/) });
    });

    it('names the function as the rule wrote it in type errors', () => {
      expect(() => compileRule('resource.properties.ports.all(p, p.matches("1"))')).not.toThrow();
      const outcome = compileRule('resource.properties.ports.all(p, p.matches("1"))').evaluate(bucket({ ports: [1] }));
      expect(outcome).toMatchObject({ result: 'ERROR', message: expect.stringMatching(/\.matches\(/) });
      expect(() => compileRule('1.matches("1")')).toThrow(/int\.matches\(string\)/);
    });
  });

  describe('evaluation budget', () => {
    /** A clock that stands still: only the cost budget can stop an evaluation, however busy the machine. */
    const still = () => 0;

    it('stops an evaluation that scans more than its budget, as an ERROR over budget', () => {
      const rule = compileRule('resource.properties.names.all(n, n.matches("a"))', { cost: 1000, milliseconds: 1000 }, still);
      expect(rule.evaluate(bucket({ names: ['a'.repeat(100)] }))).toEqual({ result: 'PASS' });
      expect(rule.evaluate(bucket({ names: Array(50).fill('a'.repeat(100)) }))).toEqual({
        result: 'ERROR',
        message: 'the rule exceeded its evaluation budget of 1000 units',
        overBudget: true,
      });
    });

    it('meters the strings that join and split build', () => {
      const budget = { cost: 10_000, milliseconds: 1000 };
      const overBudget = { result: 'ERROR', message: 'the rule exceeded its evaluation budget of 10000 units', overBudget: true };
      const joined = compileRule('resource.properties.names.map(n, resource.properties.names.join(",")).join(",").size() > 0', budget, still);
      expect(joined.evaluate(bucket({ names: ['a', 'b'] }))).toEqual({ result: 'PASS' });
      expect(joined.evaluate(bucket({ names: Array(200).fill('abcdefghij') }))).toEqual(overBudget);
      const split = compileRule('resource.name.split("").size() > 0', budget, still);
      expect(split.evaluate({ ...bucket({}), name: 'x'.repeat(20_000) })).toEqual(overBudget);
      expect(compileRule('"a,b,c".split(",", 2) == ["a", "b,c"] && ["a", "b"].join() == "ab"').evaluate(bucket({}))).toEqual({
        result: 'PASS',
      });
    });

    it('stops an evaluation at the first metered step past its time budget, read from the clock it is given', () => {
      // The clock reads 1000 ms when the evaluation starts (the deadline is then 1250), and moves on at every read.
      const readings = [1_000, 1_100, 1_200, 1_250, 1_251, 1_300];
      let reads = 0;
      const clock = () => readings[Math.min(reads++, readings.length - 1)]!;
      const names = Array(10).fill('a');
      // `map` (unlike `all`, which goes on past an element's error) ends at the first error.
      const rule = compileRule('resource.properties.names.map(n, n.matches("a")).size() > 0', { cost: Number.MAX_SAFE_INTEGER, milliseconds: 250 }, clock);
      expect(rule.evaluate(bucket({ names }))).toEqual({ result: 'ERROR', message: 'the rule exceeded its evaluation time budget of 250 ms', overBudget: true });
      // Read at the start and at each charge (two per match): 1250 is not past the deadline, 1251 is, and stops it
      // in the second match, before anything else runs.
      expect(reads).toBe(5);

      // A clock that stands still: every name is matched, however long that takes.
      let still = 0;
      const unhurried = compileRule('resource.properties.names.map(n, n.matches("a")).size() > 0', { cost: Number.MAX_SAFE_INTEGER, milliseconds: 250 }, () => {
        still += 1;
        return 1_000;
      });
      expect(unhurried.evaluate(bucket({ names }))).toEqual({ result: 'PASS' });
      expect(still).toBe(1 + 2 * names.length);
    });

    it('stops an evaluation that runs past its deadline on the real clock', () => {
      const rule = compileRule('resource.properties.names.all(n, !n.matches("(x+x+)+y"))', { cost: Number.MAX_SAFE_INTEGER, milliseconds: 1 });
      const outcome = rule.evaluate(bucket({ names: Array(256).fill('x'.repeat(200_000)) }));
      expect(outcome).toEqual({ result: 'ERROR', message: 'the rule exceeded its evaluation time budget of 1 ms', overBudget: true });
    });

    it('refuses nested cel.bind, whose values can double at every level', () => {
      expect(compileRule('cel.bind(a, resource.name + resource.name, a.size() > 0)').evaluate(bucket({}))).toEqual({ result: 'PASS' });
      const doubling = ['a', 'b', 'c'].reduceRight((body, name, i) => `cel.bind(${name}, ${i === 0 ? 'resource.name' : ['a', 'b'][i - 1]} + ${i === 0 ? 'resource.name' : ['a', 'b'][i - 1]}, ${body})`, 'c.size() > 0');
      expect(() => compileRule(doubling)).toThrow(/nest at most 2 deep/);
    });
  });
});
