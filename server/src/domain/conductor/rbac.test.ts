import { describe, it } from '@jest/globals';
import { countedText } from '../../../test/counted-text.js';
import { expect } from '../../../test/expect.js';
import { globPattern } from './rbac.js';

/** The glob as an anchored backtracking regular expression: a faithful oracle on short inputs only. */
const regexOracle = (pattern: string): RegExp =>
  new RegExp(`^${pattern.split('*').map((part) => part.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&')).join('.*')}$`, 's');

describe('rbac globs', () => {
  it.each([
    ['*', '', true],
    ['*', 'anything:at-all', true],
    ['process:web-*', 'process:web-', true],
    ['process:web-*', 'process:web-frontend', true],
    ['process:web-*', 'process:billing', false],
    ['*:read', 'processes:read', true],
    ['*:read', 'processes:write', false],
    ['a*b', 'ab', true],
    ['a*b', 'a\nb', true],
    ['a*b', 'axxbc', false],
    ['a*a', 'a', false],
    ['ab*bc', 'abc', false],
    ['*a*a*', 'aa', true],
    ['*a*a*', 'a', false],
    ['a**b', 'ab', true],
    ['a*b*c', 'acb', false],
    ['a.b', 'axb', false],
    ['a.b', 'a.b', true],
    ['a+', 'aa', false],
    ['[x]?(y)', '[x]?(y)', true],
    ['user:alice', 'user:alice', true],
    ['user:alice', 'user:alice2', false],
  ])('%j matches %j: %s', (pattern, text, expected) => {
    expect(globPattern(pattern).test(text)).toBe(expected);
  });

  it('agrees with the anchored regular expression on every short pattern and text', () => {
    /** Every string over the alphabet of at most `max` characters. */
    const upTo = (alphabet: string, max: number): string[] => {
      const all = [''];
      for (let start = 0, length = 1; length <= max; length += 1) {
        const end = all.length;
        for (let i = start; i < end; i += 1) for (const c of alphabet) all.push(all[i] + c);
        start = end;
      }
      return all;
    };
    const patterns = upTo('ab*.', 4);
    const texts = upTo('ab.', 5);
    for (const pattern of patterns) {
      const glob = globPattern(pattern);
      const oracle = regexOracle(pattern);
      for (const text of texts) {
        if (glob.test(text) !== oracle.test(text)) throw new Error(`${JSON.stringify(pattern)} on ${JSON.stringify(text)}: expected ${oracle.test(text)}`);
      }
    }
  });

  it('matches a pattern of 30 stars against a 200-character name reading the name a few times per star, never backtracking', () => {
    const pattern = `process:${'a*'.repeat(30)}b`;
    const parts = pattern.split('*').length;
    for (const [name, matches] of [
      [`process:${'a'.repeat(192)}`, false],
      [`process:${'a'.repeat(191)}b`, true],
      [`process:${'a'.repeat(29)}b`, false],
    ] as const) {
      // A backtracking matcher tries every way to share the a's among the 30 stars: some 10^35 for the first name.
      const counted = countedText(name);
      expect(globPattern(pattern).test(counted.text), name).toBe(matches);
      expect(counted.reads(), name).toBeLessThanOrEqual(2 * parts + 4);
      expect(counted.converted(), name).toBe(false);
    }
  });
});
