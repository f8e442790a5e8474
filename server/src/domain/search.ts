import { AppError } from './errors.js';

/**
 * The `query` parameter of list operations: a JSON array of search terms such as `["provider:provider_a","prod"]`.
 * A term `word:value` filters the field its prefix names; any other term is free text. `prefixes` maps each
 * accepted prefix to the filter field it fills.
 */
export function parseSearchTerms<Field extends string>(
  query: string | undefined,
  prefixes: Readonly<Record<string, Field>>,
  options: { example: string; refuseUnknownPrefix: boolean },
): Partial<Record<Field | 'text', string[]>> {
  if (query === undefined || query === '') return {};
  let terms: unknown;
  try {
    terms = JSON.parse(query);
  } catch {
    terms = undefined;
  }
  if (!Array.isArray(terms) || !terms.every((t): t is string => typeof t === 'string')) {
    throw AppError.invalid('query', `must be a JSON array of strings, e.g. ${options.example}`);
  }
  const filter: Partial<Record<Field | 'text', string[]>> = {};
  for (const term of terms) {
    const prefixed = /^([a-z_]+):(.*)$/s.exec(term);
    const field = prefixed ? prefixes[prefixed[1]!] : undefined;
    // A misspelt prefix refused is better than a filter that silently matches nothing, where the list allows it.
    if (prefixed && !field && options.refuseUnknownPrefix) {
      throw AppError.invalid('query', `unknown prefix '${prefixed[1]}:'; use ${Object.keys(prefixes).map((p) => `${p}:`).join(', ')}`);
    }
    const key: Field | 'text' = field ?? 'text';
    const value = field ? prefixed![2]! : term;
    if (value.length > 0) (filter[key] ??= []).push(value);
  }
  return filter;
}
