import { ACCESS_LEVELS, LEVEL_OF_POLICY, type AccessLevel, type NamedGrant } from '../access/grants.js';
import { AppError } from '../errors.js';
import type { OrgUser } from '../users/types.js';

/*
 * What a console user may do with the organization's API clients ("Access" in the console spec). The groups that
 * restrict an API client on the compliance API restrict a user in the console alike: listing API clients is reading
 * the organization's records (the *read* level), and managing them hands out credentials that act for the whole
 * organization (a client in no group) or with its groups' grants, so it needs builtin:MANAGER over all
 * environments: a caller never hands out more than it holds.
 */

/** `manage`: everything; `read`: list and read only; `none`: not even list. */
export type ApiClientsAccess = 'manage' | 'read' | 'none';

export interface ConsoleAccess {
  apiClients: ApiClientsAccess;
  /** Why, in a sentence the console shows as it is. */
  reason: string;
}

/** What one console operation needs. */
export type ApiClientsNeed = 'read' | 'manage';

const rank = (level: AccessLevel): number => ACCESS_LEVELS.indexOf(level);
const levelOf = (group: NamedGrant): number => rank(LEVEL_OF_POLICY[group.policy]);

const MANAGING_NEEDS = 'builtin:MANAGER in a group over all environments (*)';
const READING_NEEDS = 'a policy of the read level or above (builtin:READONLY, builtin:AUDITOR, builtin:EDITOR, builtin:CONTRIBUTOR or builtin:MANAGER) in one of your groups';
/** Groups named in a reason at most; the rest are counted. */
const NAMED_GROUPS = 5;

function coverage(group: NamedGrant): string {
  if (group.allEnvironments) return 'over all environments';
  const count = group.environmentIds.length;
  return count === 0 ? 'over no environment' : `over ${count} environment${count === 1 ? '' : 's'}`;
}

/** "group Auditors (builtin:AUDITOR over all environments) lets", or "groups A (…), B (…) and 3 more let". */
function yourGroups(groups: readonly NamedGrant[], verb: 'let' | 'do not let'): string {
  const named = groups.slice(0, NAMED_GROUPS).map((group) => `${group.name} (${group.policy} ${coverage(group)})`);
  const more = groups.length - named.length;
  const list = more > 0 ? `${named.join(', ')} and ${more} more` : named.length === 1 ? named[0]! : `${named.slice(0, -1).join(', ')} and ${named.at(-1)}`;
  const one = groups.length === 1;
  const verbs = verb === 'let' ? (one ? 'lets' : 'let') : one ? 'does not let' : 'do not let';
  return `Your group${one ? '' : 's'} ${list} ${verbs}`;
}

/**
 * The access of a user whose groups are `groups`. The owner may do everything. A user who joined by an invitation
 * acts only through their groups; a user made otherwise acts for the whole organization while in no group, as an API
 * client in no group does.
 */
export function consoleAccess(user: Pick<OrgUser, 'owner' | 'inviteId'>, groups: readonly NamedGrant[]): ConsoleAccess {
  if (user.owner) return { apiClients: 'manage', reason: 'You own this organization, so you may manage its API clients.' };
  if (groups.length === 0) {
    if (user.inviteId) {
      return {
        apiClients: 'none',
        reason: 'You joined by an invitation and belong to no group now, so you may not see or manage the API clients: ask a manager of the organization to add you to a group.',
      };
    }
    return { apiClients: 'manage', reason: 'You belong to no group, so you act for the whole organization and may manage its API clients.' };
  }
  if (groups.some((group) => group.allEnvironments && levelOf(group) >= rank('manage'))) {
    return { apiClients: 'manage', reason: `${yourGroups(groups, 'let')} you manage the API clients.` };
  }
  if (groups.some((group) => levelOf(group) >= rank('read'))) {
    return { apiClients: 'read', reason: `${yourGroups(groups, 'let')} you see the API clients but not change them: managing them needs ${MANAGING_NEEDS}.` };
  }
  return {
    apiClients: 'none',
    reason: `${yourGroups(groups, 'do not let')} you see the API clients: seeing them needs ${READING_NEEDS}, and managing them ${MANAGING_NEEDS}.`,
  };
}

/** 403 AuthorizationError, saying why, unless the access covers what the operation needs. */
export function requireApiClientsAccess(access: ConsoleAccess, need: ApiClientsNeed, operationId: string): void {
  if (access.apiClients === 'manage' || (need === 'read' && access.apiClients === 'read')) return;
  throw new AppError('forbidden', `${operationId} is not allowed. ${access.reason}`);
}
