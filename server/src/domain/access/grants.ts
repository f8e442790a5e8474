import { AppError } from '../errors.js';
import type { GroupPolicy } from './types.js';

/**
 * What a group's policy lets its members do, as ordered levels: each level includes everything below it
 * (see "Access control" in the compliance spec).
 */
export const ACCESS_LEVELS = ['results', 'read', 'edit', 'contribute', 'manage'] as const;
export type AccessLevel = (typeof ACCESS_LEVELS)[number];

export const LEVEL_OF_POLICY: Record<GroupPolicy, AccessLevel> = {
  'builtin:ORGANIZATION_REPORT_VIEWER': 'results',
  'builtin:IAC_SCANNER': 'results',
  'builtin:READONLY': 'read',
  'builtin:AUDITOR': 'read',
  'builtin:EDITOR': 'edit',
  'builtin:CONTRIBUTOR': 'contribute',
  'builtin:MANAGER': 'manage',
};

const rank = (level: AccessLevel): number => ACCESS_LEVELS.indexOf(level);

/** One group's grant, as the store returns it for a member. */
export interface GroupGrant {
  policy: GroupPolicy;
  allEnvironments: boolean;
  environmentIds: readonly string[];
}

/** A group's grant with the group's id and name, for saying which group grants what. */
export interface NamedGrant extends GroupGrant {
  id: string;
  name: string;
}

/**
 * What one request reaches: the environments it reads or changes, and the grants it hands out (the policy of a
 * group it creates over that group's environments; the groups users join or leave). Ids that name nothing of the
 * caller's organization are not part of it: the operation answers those as it answers unknown ids.
 */
export interface Reach {
  /** Every environment, including those created later (`*`, or a new environment). */
  allEnvironments: boolean;
  environmentIds: ReadonlySet<string>;
  handsOut: readonly GroupGrant[];
}

/**
 * The access of one caller, from the groups it belongs to. A caller in no group is unrestricted: an API client
 * that was never put in a group acts for its whole organization.
 */
export class Grants {
  /** Highest level granted over every environment (`*` groups); -1 when none. */
  private readonly everywhere: number;
  /** Highest level granted per environment by groups that name it. */
  private readonly perEnvironment = new Map<string, number>();
  /** Highest level of any group, whatever it covers. */
  private readonly highest: number;
  /** The policy behind `highest`, for messages. */
  private readonly strongestPolicy: GroupPolicy | undefined;

  constructor(readonly grants: readonly GroupGrant[]) {
    let everywhere = -1;
    let highest = -1;
    let strongest: GroupPolicy | undefined;
    for (const grant of grants) {
      const level = rank(LEVEL_OF_POLICY[grant.policy]);
      if (level > highest) [highest, strongest] = [level, grant.policy];
      if (grant.allEnvironments) everywhere = Math.max(everywhere, level);
      for (const id of grant.environmentIds) this.perEnvironment.set(id, Math.max(this.perEnvironment.get(id) ?? -1, level));
    }
    this.everywhere = everywhere;
    this.highest = highest;
    this.strongestPolicy = strongest;
  }

  get restricted(): boolean {
    return this.grants.length > 0;
  }

  /** Whether `level` is granted over the environment. */
  allowsOver(level: AccessLevel, environmentId: string): boolean {
    if (!this.restricted) return true;
    return Math.max(this.everywhere, this.perEnvironment.get(environmentId) ?? -1) >= rank(level);
  }

  /** Whether `level` is granted over every environment, including those created later. */
  allowsEverywhere(level: AccessLevel): boolean {
    return !this.restricted || this.everywhere >= rank(level);
  }

  /** Whether any group grants `level`, over whatever it covers. */
  allowsSomewhere(level: AccessLevel): boolean {
    return !this.restricted || this.highest >= rank(level);
  }

  /**
   * The environments `level` is granted over: 'all', or the ids (possibly none). Lists are filtered by it, so
   * paging stays consistent.
   */
  environmentsAllowing(level: AccessLevel): 'all' | string[] {
    if (this.allowsEverywhere(level)) return 'all';
    return [...this.perEnvironment].filter(([, granted]) => granted >= rank(level)).map(([id]) => id);
  }

  /** 403 AuthorizationError unless some group grants `level`. */
  requireSomewhere(level: AccessLevel, operation: string): void {
    if (!this.allowsSomewhere(level)) throw this.denied(operation);
  }

  /** 403 AuthorizationError unless `level` is granted over every environment. */
  requireEverywhere(level: AccessLevel, operation: string): void {
    if (this.allowsEverywhere(level)) return;
    throw this.allowsSomewhere(level)
      ? new AppError('forbidden', `${operation} needs ${level} access over all environments ('*'); the caller's groups grant it over some only`)
      : this.denied(operation);
  }

  /**
   * 403 unless `level` is granted over the environment: EnvironmentAccessDenied when another environment would do,
   * AuthorizationError when no group grants that level at all.
   */
  requireOver(level: AccessLevel, environmentId: string, operation: string): void {
    if (this.allowsOver(level, environmentId)) return;
    if (!this.allowsSomewhere(level)) throw this.denied(operation);
    throw new AppError('environment_access_denied', `environment ${environmentId}: the caller's groups do not grant ${level} access over it`);
  }

  /**
   * The one check of a request (see "Access control" in the compliance spec): 403 unless some group grants `level`,
   * the level is granted over every environment the request reaches (over all of them when it reaches `*`), and the
   * caller holds every grant the request hands out.
   */
  authorize(level: AccessLevel, reach: Reach, operation: string): void {
    if (!this.restricted) return;
    this.requireSomewhere(level, operation);
    if (reach.allEnvironments) this.requireEverywhere(level, operation);
    for (const id of reach.environmentIds) this.requireOver(level, id, operation);
    for (const grant of reach.handsOut) this.requireHolds(grant, operation);
  }

  /**
   * 403 unless the caller's groups grant at least the grant's policy wherever the grant covers: a caller never hands
   * out more than it holds, neither a stronger policy nor more environments.
   */
  requireHolds(grant: GroupGrant, operation: string): void {
    if (!this.restricted) return;
    const level = LEVEL_OF_POLICY[grant.policy];
    const needed = rank(level);
    if (this.highest < needed) {
      throw new AppError('forbidden', `${operation} hands out ${grant.policy}; the caller's strongest policy is ${this.strongestPolicy}`);
    }
    if (grant.allEnvironments && this.everywhere < needed) {
      throw new AppError('forbidden', `${operation} hands out ${grant.policy} over all environments ('*'); the caller's groups do not grant ${level} access over all of them`);
    }
    for (const id of grant.environmentIds) {
      if (!this.allowsOver(level, id)) {
        throw new AppError('environment_access_denied', `environment ${id}: ${operation} hands out ${grant.policy} over it; the caller's groups do not grant ${level} access over it`);
      }
    }
  }

  private denied(operation: string): AppError {
    const policy = this.strongestPolicy ?? 'no policy';
    return new AppError('forbidden', `policy ${policy} does not allow ${operation}`);
  }
}

/** The unrestricted caller: in no group. */
export const UNRESTRICTED = new Grants([]);
