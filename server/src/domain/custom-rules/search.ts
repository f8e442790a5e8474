import { parseSearchTerms } from '../search.js';
import type { CustomRuleFilter } from './types.js';

const PREFIXES = { name: 'name', id: 'id', resource_type: 'resourceType', provider: 'provider', severity: 'severity' } as const;

/** The rule list's `query`, e.g. `["resource_type:PROVA.S3","versioning"]`; an unknown prefix is refused. */
export function parseRuleSearch(query: string | undefined): CustomRuleFilter {
  return parseSearchTerms(query, PREFIXES, { example: '["resource_type:PROVA.S3","versioning"]', refuseUnknownPrefix: true });
}
