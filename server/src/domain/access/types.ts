import type { OrgUser } from '../users/types.js';

/** The built-in policies a group can grant, from least to most privileged (see the Group schema). */
export const GROUP_POLICIES = [
  'builtin:READONLY',
  'builtin:AUDITOR',
  'builtin:EDITOR',
  'builtin:CONTRIBUTOR',
  'builtin:MANAGER',
  'builtin:ORGANIZATION_REPORT_VIEWER',
  'builtin:IAC_SCANNER',
] as const;
export type GroupPolicy = (typeof GROUP_POLICIES)[number];

/** A record referred to by id, with the name it is shown under. */
export interface NamedRef {
  id: string;
  name: string;
}

/** A group grants its policy over its environments to its users and API clients. */
export interface Group {
  id: string;
  orgId: string;
  name: string;
  policy: GroupPolicy;
  /** Every environment of the organization, including those created later; `environments` is then empty. */
  allEnvironments: boolean;
  environments: NamedRef[];
  users: NamedRef[];
  apiClients: NamedRef[];
  createdAt: number;
  updatedAt: number;
}

export type InviteStatus = 'PENDING' | 'ACCEPTED' | 'EXPIRED';

/** Invites expire 7 days after creation unless made not to expire. */
export const INVITE_LIFETIME_SECONDS = 7 * 24 * 3600;

export interface Invite {
  id: string;
  orgId: string;
  /** Lower case. */
  email: string;
  groups: NamedRef[];
  expiresAt: number | null;
  acceptedAt: number | null;
  createdAt: number;
  updatedAt: number;
  /** Why the server gave up emailing it; it expired then. Null while it was not given up. */
  deliveryError: string | null;
}

/** An invite's state follows from the clock: pending until accepted or until it expires. */
export function inviteStatus(invite: Invite, now: number): InviteStatus {
  if (invite.acceptedAt !== null) return 'ACCEPTED';
  if (invite.expiresAt !== null && invite.expiresAt <= now) return 'EXPIRED';
  return 'PENDING';
}

/** An invite as shown: with its state at the time it is read. */
export interface InviteWithStatus extends Invite {
  status: InviteStatus;
}

export interface UserWithGroups {
  user: OrgUser;
  groups: NamedRef[];
}

/** How a user is named in lists of members: their name, or their email when they have not given one. */
export function displayName(user: Pick<OrgUser, 'firstName' | 'lastName' | 'email'>): string {
  const name = [user.firstName, user.lastName].filter((part) => part !== null && part.trim() !== '').join(' ');
  return name || user.email;
}

export interface CreateGroupInput {
  name: string;
  policy: string;
  environment_ids?: string[];
  api_client_ids?: string[];
}

export interface CreateInviteInput {
  email: string;
  group_ids: string[];
  expires?: boolean;
}
