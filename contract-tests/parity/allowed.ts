import type { MockApi } from '../prism/mocks.js';
import type { Difference } from './compare.js';

/**
 * Differences between the Prism mock and the real server that are expected, each with the reason. Every other
 * difference in status, content type or structure fails `make contract`, and so does an entry here that no longer
 * matches anything (the difference is gone: the entry goes too). An entry names one operation, what differs and,
 * for a structural difference, the exact path.
 */
export interface AllowedDifference {
  api: MockApi;
  operationId: string;
  what: Difference['what'];
  path?: string;
  reason: string;
}

export const ALLOWED: AllowedDifference[] = [
  {
    api: 'compliance',
    operationId: 'getScan',
    what: 'structure',
    path: '$.resource_type_errors',
    reason:
      'The example is a scan whose role could not list some resource type. The simulated cloud denies listing to a ' +
      'fixed, seeded set of account and type pairs, and the example environment (its account, its three types) is not ' +
      'among them, so the scan the fixtures run lists every type.',
  },
  {
    api: 'compliance',
    operationId: 'listEvents',
    what: 'structure',
    path: '$.next_offset',
    reason:
      'The example is a truncated page of three events of three types. A page of three of the fixture ' +
      "environment's events would hold whichever came first, so it is listed in one page (every type of event, " +
      'compared), which is not truncated; next_offset is compared on listEnvironments and listApiClients instead.',
  },
  {
    api: 'compliance',
    operationId: 'listUsers',
    what: 'structure',
    path: '$.items[].last_name',
    reason:
      "The organization's first user is the console admin the server creates at first start, with a first name and no " +
      'last name; the users who join by accepting an invitation in the web console have no name, and no operation of ' +
      'the three APIs sets one.',
  },
  {
    api: 'compliance',
    operationId: 'getUserById',
    what: 'structure',
    path: '$.last_name',
    reason: 'As for listUsers: the user read is the console admin, the organization’s first user, who has no last name.',
  },
  {
    api: 'compliance',
    operationId: 'testCustomRuleInput',
    what: 'structure',
    path: '$.links',
    reason:
      'The example shows the answer to via_download=true, with links.output; the request compared asks without it ' +
      '(the required scan_id only), and the server sends links only when asked for them.',
  },
];

/** Marks the allowed differences of one operation; returns the entries that matched. */
export function applyAllowList(api: MockApi, operationId: string, differences: Difference[], allowed = ALLOWED): AllowedDifference[] {
  const used: AllowedDifference[] = [];
  for (const difference of differences) {
    if (difference.what === 'error') continue;
    const entry = allowed.find(
      (candidate) =>
        candidate.api === api && candidate.operationId === operationId && candidate.what === difference.what && (candidate.path ?? undefined) === difference.path,
    );
    if (entry) {
      difference.allowed = entry.reason;
      used.push(entry);
    }
  }
  return used;
}
