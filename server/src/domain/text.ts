/**
 * Text as users and the databases see it. JavaScript strings are UTF-16: an emoji outside the Basic Multilingual
 * Plane is two code units, and a string may hold half of such a pair (a lone surrogate) that no UTF-8 store can
 * keep. PostgreSQL refuses NUL in text and jsonb outright, while SQLite keeps it; both are refused before any store
 * sees them, so the answer does not depend on the database.
 */

/** Characters (Unicode code points) in `value`: what a length limit counts, the way PostgreSQL's varchar(n) does. */
export function characterCount(value: string): number {
  let count = 0;
  for (const _ of value) count += 1;
  return count;
}

/** The first `limit` characters of `value`, never cutting a surrogate pair in half. */
export function firstCharacters(value: string, limit: number): string {
  let end = 0;
  let count = 0;
  for (const character of value) {
    if (count === limit) break;
    end += character.length;
    count += 1;
  }
  return value.slice(0, end);
}

// With the `u` flag a lone surrogate is a code point of its own (category Cs); a well-formed pair is one character.
const LONE_SURROGATE = /\p{Cs}/u;

/** Why `value` cannot be stored as text, or undefined when it can. */
export function textProblem(value: string): string | undefined {
  if (value.includes('\u0000')) return 'must not contain the NUL character (U+0000)';
  if (LONE_SURROGATE.test(value)) return 'must be valid Unicode text (it holds a lone surrogate)';
  return undefined;
}
