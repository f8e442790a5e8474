import { AppError } from '../errors.js';
import type { EnvironmentFilter } from './types.js';

const PREFIXES = ['provider', 'name', 'id', 'arn', 'status'] as const;

/**
 * The list's `query` parameter: a JSON array of search terms such as `["provider:provider_a","name:prod"]`.
 * Terms with a known prefix filter that field; any other term matches names and ids.
 */
export function parseSearch(query: string | undefined): EnvironmentFilter {
  if (query === undefined || query === '') return {};
  let terms: unknown;
  try {
    terms = JSON.parse(query);
  } catch {
    terms = undefined;
  }
  if (!Array.isArray(terms) || !terms.every((t): t is string => typeof t === 'string')) {
    throw AppError.invalid('query', 'must be a JSON array of strings, e.g. ["provider:provider_a","name:prod"]');
  }
  const filter: EnvironmentFilter = {};
  for (const term of terms) {
    const colon = term.indexOf(':');
    const prefix = term.slice(0, colon) as (typeof PREFIXES)[number];
    const key = colon > 0 && PREFIXES.includes(prefix) ? prefix : 'text';
    const value = key === 'text' ? term : term.slice(colon + 1);
    if (value.length > 0) (filter[key] ??= []).push(value);
  }
  return filter;
}
