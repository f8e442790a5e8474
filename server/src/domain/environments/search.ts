import { parseSearchTerms } from '../search.js';
import type { EnvironmentFilter } from './types.js';

const PREFIXES = { provider: 'provider', name: 'name', id: 'id', arn: 'arn', status: 'status' } as const;

/** The environment list's `query`: known prefixes filter their field; any other term matches names and ids. */
export function parseSearch(query: string | undefined): EnvironmentFilter {
  return parseSearchTerms(query, PREFIXES, { example: '["provider:provider_a","name:prod"]', refuseUnknownPrefix: false });
}
