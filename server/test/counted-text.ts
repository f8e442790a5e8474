/**
 * A text that counts how often it is read, for code that takes a string and only reads it through string methods,
 * indexes and `length` (a `*` glob, say): how much work the code does on that text, counted instead of timed.
 * Matching that tries every way to split the text among the stars of a pattern reads it more times than there are
 * atoms in the world; matching in linear time reads it a few times per part of the pattern.
 *
 * Reading it more than `maxReads` times throws, so that code that would backtrack fails at once instead of running
 * for ever. Turning it into a plain string (to hand it to a regular expression, which could backtrack out of sight)
 * is recorded as `converted`.
 */
export interface CountedText {
  /** The stand-in, typed as the string it stands for. */
  readonly text: string;
  reads(): number;
  converted(): boolean;
}

const CONVERSIONS = new Set<PropertyKey>([Symbol.toPrimitive, 'toString', 'valueOf', 'toJSON']);

export function countedText(text: string, maxReads = 100_000): CountedText {
  let reads = 0;
  let converted = false;
  const target = new String(text);
  const proxy = new Proxy(target, {
    get(object, key) {
      reads += 1;
      if (reads > maxReads) throw new Error(`read more than ${maxReads} times: the text is matched by backtracking`);
      if (CONVERSIONS.has(key)) converted = true;
      const value: unknown = Reflect.get(object, key, object);
      return typeof value === 'function' ? value.bind(object) : value;
    },
  });
  return { text: proxy as unknown as string, reads: () => reads, converted: () => converted };
}
