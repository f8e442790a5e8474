import type { NamedRef } from '../../domain/access/types.js';

/** Records referred to by id, as the API shows them: an object from id to name. */
export const namesById = (refs: readonly NamedRef[]): Record<string, string> => Object.fromEntries(refs.map((r) => [r.id, r.name]));
