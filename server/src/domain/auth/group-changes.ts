import type { GroupRepository } from '../../storage/repositories/types.js';

/** The group store's methods that only read; every other one may change what a group grants. */
const READS = new Set<string>(['list', 'names', 'environmentNames', 'apiClientNames', 'grantsOfApiClient', 'groupsOfUsers']);

/**
 * The group store, calling `changed` once each call that may have written has settled (committed or failed), so
 * that grants cached for API clients are read again on the next request. Methods are told apart by name rather
 * than listed one by one, so a write method added to the store later invalidates without anyone remembering to.
 */
export function reportingGroupChanges(groups: GroupRepository, changed: () => void): GroupRepository {
  return new Proxy(groups, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function' || typeof property !== 'string' || READS.has(property)) {
        return typeof value === 'function' ? value.bind(target) : value;
      }
      return async (...args: unknown[]) => {
        try {
          return await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        } finally {
          changed();
        }
      };
    },
  });
}
