import type { Clock } from '../clock.js';
import { ALL } from '../cloud/providers.js';
import { AppError } from '../errors.js';
import { newId } from '../ids.js';
import { DEFAULT_QUOTAS, upTo } from '../quotas.js';
import { RecentlyRead, type RecentlyReadOptions } from '../auth/recently-read.js';
import { Grants, UNRESTRICTED, type GroupGrant } from './grants.js';
import type { OrgUser } from '../users/types.js';
import type { GroupRepository, InviteRepository, Page, PageRequest, SortDirection, UserRepository } from '../repositories.js';
import { pageOfCovered } from './covered-pages.js';
import { consoleAccess, type ConsoleAccess } from '../console/access.js';
import type { InvitationService } from './invitations.js';
import {
  GROUP_POLICIES,
  INVITE_LIFETIME_SECONDS,
  type CreateGroupInput,
  type CreateInviteInput,
  type Group,
  type GroupPolicy,
  type Invite,
  type InviteWithStatus,
  type UserWithGroups,
  inviteStatus,
} from './types.js';

export interface AccessServiceDeps {
  groups: GroupRepository;
  invites: InviteRepository;
  users: UserRepository;
  clock: Clock;
  /** How long an API client's grants are reused (see RecentlyRead). */
  grantsCache: RecentlyReadOptions;
  /** Groups one organization may have (MAX_GROUPS_PER_ORG); DEFAULT_QUOTAS.groups unless set. */
  groupQuota?: number;
  /** Emails new invites; unset, invites are only recorded. */
  invitations?: InvitationService;
}

/** Where the request that creates an invite came from: its link points there unless the server has a public URL. */
export interface InviteOrigin {
  /** `scheme://host[:port]` the request was sent to. */
  origin: string;
  requestId: string | null;
}

/**
 * Who belongs to the organization and what they may reach: groups, invites and users' group memberships.
 * Every compliance request asks what its API client's groups grant; the answer is reused for a moment, and a
 * group created here is seen on the next request (elsewhere within `grantsCache.maxAgeMs`).
 */
export class AccessService {
  private readonly grants: RecentlyRead<Grants>;
  private readonly consoleAccesses: RecentlyRead<ConsoleAccess>;

  constructor(private readonly deps: AccessServiceDeps) {
    this.grants = new RecentlyRead(deps.grantsCache);
    this.consoleAccesses = new RecentlyRead(deps.grantsCache);
  }

  /**
   * What a user may do in the console, from their groups; reused for a moment like an API client's grants, and read
   * again at once after a group change in this process. The owner's needs no read.
   */
  consoleAccessOf(user: OrgUser): Promise<ConsoleAccess> {
    if (user.owner) return Promise.resolve(consoleAccess(user, []));
    return this.consoleAccesses.read(user.id, async () => consoleAccess(user, await this.deps.groups.namedGrantsOfUser(user.id)));
  }

  /** A page of the organization's groups; with `covered`, only those over environments it covers (pageOfCovered). */
  listGroups(orgId: string, page: PageRequest, direction: SortDirection, covered: 'all' | readonly string[] = 'all'): Promise<Page<Group>> {
    return pageOfCovered((part) => this.deps.groups.list(orgId, part, direction), page, covered);
  }

  async createGroup(orgId: string, input: CreateGroupInput): Promise<Group> {
    const name = input.name.trim();
    if (name.length === 0) throw AppError.invalid('name', 'must not be blank');
    const policy = checkPolicy(input.policy);
    const ids = input.environment_ids ?? [];
    if (new Set(ids).size !== ids.length) throw AppError.invalid('environment_ids', 'lists an environment twice');
    const allEnvironments = ids.includes(ALL);
    if (allEnvironments && ids.length > 1) throw AppError.invalid('environment_ids', "'*' stands for all environments and must be the only entry");
    const environments = allEnvironments ? new Map<string, string>() : await this.deps.groups.environmentNames(orgId, ids);
    const unknown = allEnvironments ? undefined : ids.find((id) => !environments.has(id));
    if (unknown !== undefined) throw new AppError('not_found', `environment_ids: environment ${unknown} not found`);
    const clientIds = input.api_client_ids ?? [];
    if (new Set(clientIds).size !== clientIds.length) throw AppError.invalid('api_client_ids', 'lists an API client twice');
    const clients = await this.deps.groups.apiClientNames(orgId, clientIds);
    const unknownClient = clientIds.find((id) => !clients.has(id));
    if (unknownClient !== undefined) throw new AppError('not_found', `api_client_ids: API client ${unknownClient} not found`);
    const now = this.deps.clock.nowSeconds();
    const group: Group = {
      id: newId(),
      orgId,
      name,
      policy,
      allEnvironments,
      environments: ids.filter((id) => id !== ALL).map((id) => ({ id, name: environments.get(id)! })),
      users: [],
      apiClients: clientIds.map((id) => ({ id, name: clients.get(id)! })),
      createdAt: now,
      updatedAt: now,
    };
    const admit = upTo('groups', this.deps.groupQuota ?? DEFAULT_QUOTAS.groups, 'this organization');
    if (!(await this.deps.groups.insert(group, admit))) throw new AppError('bad_request', `name: a group named '${name}' already exists`);
    this.forgetGrants();
    return group;
  }

  /** What an API client may do: the grants of its groups. */
  grantsOfApiClient(clientId: string): Promise<Grants> {
    return this.grants.read(clientId, async () => {
      const grants = await this.deps.groups.grantsOfApiClient(clientId);
      return grants.length === 0 ? UNRESTRICTED : new Grants(grants);
    });
  }

  /** Those of `ids` that are environments of the organization. */
  async existingEnvironments(orgId: string, ids: readonly string[]): Promise<string[]> {
    return [...(await this.deps.groups.environmentNames(orgId, ids)).keys()];
  }

  /** What the groups grant, for those of `ids` that are groups of the organization. */
  grantsOfGroups(orgId: string, ids: readonly string[]): Promise<GroupGrant[]> {
    return this.deps.groups.grantsOfGroups(orgId, ids);
  }

  /** What the groups grant that those of `userIds` who are users of the organization belong to now. */
  async grantsOfUsersGroups(orgId: string, userIds: readonly string[]): Promise<GroupGrant[]> {
    const users = await this.deps.users.getMany(orgId, userIds);
    const groups = await this.deps.groups.groupsOfUsers(users.map((user) => user.id));
    const groupIds = new Set([...groups.values()].flat().map((group) => group.id));
    return this.grantsOfGroups(orgId, [...groupIds]);
  }

  /** After the data changed underneath this service (a database restore): grants are read again. */
  forgetGrants(): void {
    this.grants.forgetAll();
    this.consoleAccesses.forgetAll();
  }

  /** Each user ends up in exactly the groups given; unknown ids change nothing. */
  async assignGroups(orgId: string, userIds: readonly string[], groupIds: readonly string[]): Promise<void> {
    const users = new Set((await this.deps.users.getMany(orgId, userIds)).map((u) => u.id));
    const unknownUser = userIds.find((id) => !users.has(id));
    if (unknownUser !== undefined) throw new AppError('not_found', `user_ids: user ${unknownUser} not found`);
    await this.groupNames(orgId, groupIds);
    await this.deps.groups.replaceMemberships(userIds, groupIds);
    // What the users may do in the console changes with their groups, from their next request.
    this.consoleAccesses.forgetAll();
  }

  async listInvites(orgId: string, email: string | undefined, page: PageRequest, direction: SortDirection): Promise<Page<InviteWithStatus>> {
    const invites = await this.deps.invites.list(orgId, email === undefined ? {} : { email: email.toLowerCase() }, page, direction);
    return { items: invites.items.map((invite) => this.withStatus(invite)), hasMore: invites.hasMore };
  }

  async getInvite(orgId: string, id: string): Promise<InviteWithStatus> {
    const invite = await this.deps.invites.get(orgId, id);
    if (!invite) throw AppError.notFound('invite', id);
    return this.withStatus(invite);
  }

  /**
   * Records the invite and, when the server can send email, the job that emails it a link into the console (both or
   * neither); its link points to the server's public URL, or else to `from`'s origin.
   */
  async createInvite(orgId: string, input: CreateInviteInput, from?: InviteOrigin): Promise<InviteWithStatus> {
    const email = input.email.trim().toLowerCase();
    const groups = await this.groupNames(orgId, input.group_ids);
    const user = await this.deps.users.findByEmail(email);
    if (user && user.orgId === orgId) throw new AppError('already_member', `email: ${email} already belongs to user ${user.id}`);
    const now = this.deps.clock.nowSeconds();
    const invite: Invite = {
      id: newId(),
      orgId,
      email,
      groups: input.group_ids.map((id) => ({ id, name: groups.get(id)! })),
      expiresAt: input.expires === false ? null : now + INVITE_LIFETIME_SECONDS,
      acceptedAt: null,
      createdAt: now,
      updatedAt: now,
      deliveryError: null,
    };
    const delivery = from && this.deps.invitations?.deliveryJob(invite, from.origin, from.requestId);
    if (!(await this.deps.invites.insert(invite, now, delivery))) throw new AppError('already_invited', `email: ${email} already has a PENDING invite`);
    if (delivery) this.deps.invitations!.wake();
    return this.withStatus(invite);
  }

  private withStatus(invite: Invite): InviteWithStatus {
    return { ...invite, status: inviteStatus(invite, this.deps.clock.nowSeconds()) };
  }

  async listUsers(orgId: string, email: string | undefined, page: PageRequest, direction: SortDirection): Promise<Page<UserWithGroups>> {
    const users = await this.deps.users.list(orgId, email === undefined ? {} : { email }, page, direction);
    return { items: await this.withGroups(users.items), hasMore: users.hasMore };
  }

  async getUser(orgId: string, id: string): Promise<UserWithGroups> {
    const user = await this.deps.users.get(orgId, id);
    if (!user) throw AppError.notFound('user', id);
    return (await this.withGroups([user]))[0]!;
  }

  private async withGroups(users: readonly OrgUser[]): Promise<UserWithGroups[]> {
    const groups = await this.deps.groups.groupsOfUsers(users.map((u) => u.id));
    return users.map((user) => ({ user, groups: groups.get(user.id) ?? [] }));
  }

  /** The names of the groups, all of which must be groups of the organization. */
  private async groupNames(orgId: string, ids: readonly string[]): Promise<Map<string, string>> {
    const names = await this.deps.groups.names(orgId, ids);
    const unknown = ids.find((id) => !names.has(id));
    if (unknown !== undefined) throw new AppError('not_found', `group_ids: group ${unknown} not found`);
    return names;
  }
}

function checkPolicy(value: string): GroupPolicy {
  if ((GROUP_POLICIES as readonly string[]).includes(value)) return value as GroupPolicy;
  throw AppError.invalid('policy', `must be one of ${GROUP_POLICIES.join(', ')}`);
}
