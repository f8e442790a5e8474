import { AppError } from '../errors.js';
import type { CustomRuleFilter } from './types.js';

const PREFIXES = { name: 'name', id: 'id', resource_type: 'resourceType', provider: 'provider', severity: 'severity' } as const;
type Prefix = keyof typeof PREFIXES;

/**
 * The list's `query` parameter: a JSON array of search terms such as `["resource_type:PROVA.S3","versioning"]`.
 * `word:` at the start of a term is a prefix, and a prefix the list does not know is refused rather than searched
 * for as text, so that a misspelt filter does not silently match nothing.
 */
export function parseRuleSearch(query: string | undefined): CustomRuleFilter {
  if (query === undefined || query === '') return {};
  let terms: unknown;
  try {
    terms = JSON.parse(query);
  } catch {
    terms = undefined;
  }
  if (!Array.isArray(terms) || !terms.every((t): t is string => typeof t === 'string')) {
    throw AppError.invalid('query', 'must be a JSON array of strings, e.g. ["resource_type:PROVA.S3","versioning"]');
  }
  const filter: CustomRuleFilter = {};
  for (const term of terms) {
    const prefixed = /^([a-z_]+):(.*)$/s.exec(term);
    if (prefixed && !(prefixed[1]! in PREFIXES)) {
      throw AppError.invalid('query', `unknown prefix '${prefixed[1]}:'; use ${Object.keys(PREFIXES).map((p) => `${p}:`).join(', ')}`);
    }
    const key = prefixed ? PREFIXES[prefixed[1] as Prefix] : 'text';
    const value = prefixed ? prefixed[2]! : term;
    if (value.length > 0) (filter[key] ??= []).push(value);
  }
  return filter;
}
