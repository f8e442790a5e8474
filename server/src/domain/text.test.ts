import { describe, expect, it } from '@jest/globals';
import { characterCount, firstCharacters, textProblem } from './text.js';

describe('text', () => {
  it('counts an emoji outside the Basic Multilingual Plane as one character', () => {
    expect(characterCount('🚀'.repeat(200))).toBe(200);
    expect(characterCount('prod é')).toBe(6);
    expect(characterCount('')).toBe(0);
  });

  it('cuts to a number of characters without splitting a surrogate pair', () => {
    expect(firstCharacters('ab🚀cd', 3)).toBe('ab🚀');
    expect(firstCharacters('🚀🚀🚀', 2)).toBe('🚀🚀');
    expect(firstCharacters('short', 200)).toBe('short');
  });

  it('refuses a NUL and a lone surrogate, and accepts well-formed text', () => {
    expect(textProblem('a\u0000b')).toMatch(/NUL/);
    expect(textProblem('\ud800')).toMatch(/lone surrogate/);
    expect(textProblem('x\udc00')).toMatch(/lone surrogate/);
    expect(textProblem('\udc00\ud800')).toMatch(/lone surrogate/);
    expect(textProblem('prod 🚀 é\t\n')).toBeUndefined();
  });
});
