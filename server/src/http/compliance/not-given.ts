/** Maps each key K of T to its type without `null`. */
export type NullAsAbsent<T, K extends keyof T> = Omit<T, K> & { [P in K]?: Exclude<T[P], null> };

/**
 * `body` without the fields of `keys` that are `null`. Clients of the public service send `null` for a list they
 * did not set, and the spec declares it as "not given": the domain sees such a field as absent, as if not sent.
 */
export function nullAsAbsent<T extends object, K extends keyof T>(body: T, keys: readonly K[]): NullAsAbsent<T, K> {
  const copy: Partial<T> = { ...body };
  for (const key of keys) if (copy[key] === null) delete copy[key];
  return copy as NullAsAbsent<T, K>;
}
