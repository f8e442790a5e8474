import { createHash } from 'node:crypto';
import { DEFAULT_LIMITS, readArchive, requireFile, type ArchiveLimits } from '../archives/tar.js';
import { ROOT_USER } from '../auth/conductor-users.js';
import { DEFAULT_PASSWORD_HASHING, hashPassword, type PasswordHashing } from '../auth/passwords.js';
import type { Clock } from '../clock.js';
import { AppError } from '../errors.js';
import { randomToken } from '../ids.js';
import type { ConductorUserRepository } from '../repositories.js';
import { isRecord, parseYamlFile, Problems } from './archive-yaml.js';

/**
 * The conductor's access control. An rbac policy (policy.yaml in an uploaded archive) declares users and rules;
 * while it is attached, every user but root may do only what a rule allows. Without a policy the only user is
 * root, which may always do everything.
 *
 * A request is an action on a resource. Actions are `<area>:read` (GET) and `<area>:write` (every other method);
 * resources are `account:<name>`, `process:<alias or fid>`, `dry-run:<id>`, `validation:<name>`, `user:<name>`
 * and `rbac`. In a rule, `*` matches any run of characters in principals, actions and resources.
 */

export const RBAC_AREAS = ['accounts', 'dry-run', 'processes', 'rbac', 'validations'] as const;
export type RbacArea = (typeof RBAC_AREAS)[number];
export type RbacAction = `${RbacArea}:${'read' | 'write'}`;
export const RBAC_ACTIONS: readonly RbacAction[] = RBAC_AREAS.flatMap((area) => [`${area}:read` as const, `${area}:write` as const]);

export const RESOURCE_KINDS = ['account', 'process', 'dry-run', 'validation', 'user'] as const;
export type ResourceKind = (typeof RESOURCE_KINDS)[number];
/** What a request acts on. */
export type RbacResource = { kind: ResourceKind; name: string } | { kind: 'rbac' };

export const resourceText = (resource: RbacResource): string => (resource.kind === 'rbac' ? 'rbac' : `${resource.kind}:${resource.name}`);

export const POLICY_FILE = 'policy.yaml';
/** Declared user names: usable as a Basic auth username (no ':'), in a path and in a resource `user:<name>`. */
export const USER_NAME = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;
const PRINCIPAL = /^[A-Za-z0-9._@*-]{1,64}$/;
const ACTION = /^[a-z*:-]{1,64}$/;
// `u`: the 200 counts characters, so an emoji is one, as everywhere else.
const RESOURCE = /^[^\s]{1,200}$/u;
const LIMITS = { users: 1000, rules: 1000, patterns: 100 };

export interface RbacRule {
  principals: string[];
  actions: string[];
  resources: string[];
}

export interface RbacPolicy {
  /** Declared users, root excluded. */
  users: string[];
  rules: RbacRule[];
}

export interface AttachedPolicy {
  policy: RbacPolicy;
  /** SHA-256 (hex) of the archive as uploaded. */
  sha256: string;
  attachedAt: number;
}

export interface RbacStatus {
  applied: boolean;
  attachedAt: number | null;
  sha256: string | null;
  /** Declared users, root not counted. */
  users: number;
}

export interface RbacUser {
  name: string;
  hasSecret: boolean;
  secretCreatedAt: number | null;
}

export interface RbacPolicyRepository {
  /**
   * Makes this policy the attached one and the users table match it, in one transaction: users it does not
   * declare lose their row (and so their secret), `keep` (root) excepted; newly declared users get a row
   * without a secret; users declared before keep theirs.
   */
  attach(attached: AttachedPolicy, archive: Buffer, keep: string): Promise<void>;
  /** Removes the policy and every user but `keep`; false when no policy was attached. */
  detach(keep: string): Promise<boolean>;
  current(): Promise<AttachedPolicy | undefined>;
  archive(): Promise<Buffer | undefined>;
}

/**
 * Other names of the thing a request names: an account is addressed by its account ID or its name, a process by
 * its FID or its alias, while policies name accounts by name and processes by alias (by FID without one). The
 * answers hold the names the thing has besides the one given (none when unknown).
 */
export interface ResourceAliases {
  account?(idOrName: string): Promise<string[]>;
  process?(fidOrAlias: string): Promise<string[]>;
}

/** What one user may do, decided against the policy attached when it was read. */
export interface Permissions {
  readonly user: string;
  /** Whether the user may perform the action on a resource known by any of these names (`process:web-frontend`, …). */
  allows(action: RbacAction, names: readonly string[]): boolean;
}

/** A compiled `*` glob: `*` matches any run of characters (the empty one too), the rest matches itself, anchored. */
export interface Glob {
  test(text: string): boolean;
}

/**
 * Compiles a `*` glob. Matching takes O(text × pattern) time at worst, never backtracking: the literal parts between
 * stars are found left to right, each at its first occurrence after the previous one, which is enough because a
 * `*` can absorb anything an earlier choice would have left.
 */
export function globPattern(pattern: string): Glob {
  const parts = pattern.split('*');
  if (parts.length === 1) return { test: (text) => text === pattern };
  const first = parts[0]!;
  const last = parts[parts.length - 1]!;
  const middle = parts.slice(1, -1).filter((part) => part.length > 0);
  return {
    test(text) {
      if (text.length < first.length + last.length || !text.startsWith(first) || !text.endsWith(last)) return false;
      const end = text.length - last.length;
      let at = first.length;
      for (const part of middle) {
        const found = text.indexOf(part, at);
        if (found < 0 || found + part.length > end) return false;
        at = found + part.length;
      }
      return true;
    },
  };
}

/** Whether a resource pattern can match some resource: `rbac`, `<kind>:<name>`, or a `*` pattern with such a start. */
function resourcePatternProblem(pattern: string): string | undefined {
  const expected = `resources are 'rbac', '<kind>:<name>' with kind ${RESOURCE_KINDS.join(', ')}, or patterns with '*'`;
  if (!RESOURCE.test(pattern)) return `resource '${pattern}' must be 1 to 200 characters without spaces`;
  const star = pattern.indexOf('*');
  if (star < 0) {
    if (pattern === 'rbac') return undefined;
    const colon = pattern.indexOf(':');
    const kind = colon < 0 ? pattern : pattern.slice(0, colon);
    if (colon < 0 || !(RESOURCE_KINDS as readonly string[]).includes(kind) || colon === pattern.length - 1) return `resource '${pattern}' is not valid: ${expected}`;
    return undefined;
  }
  // Before the first `*`, the pattern must agree with the start of some resource.
  const start = pattern.slice(0, star);
  const starts = ['rbac', ...RESOURCE_KINDS.map((kind) => `${kind}:`)];
  const fits = starts.some((s) => s.startsWith(start) || start.startsWith(s));
  return fits ? undefined : `resource '${pattern}' matches no resource: ${expected}`;
}

/**
 * Reads policy.yaml: `users` (declared user names) and `rules` (each `principals`, `actions`, `resources`, lists
 * of names or `*` patterns). Every problem is reported at once, located as `policy.yaml:rules[0].actions[1]`.
 */
export function parsePolicy(text: string): RbacPolicy {
  const parsed = parseYamlFile(POLICY_FILE, text);
  const problems = new Problems(POLICY_FILE, 'policy.invalid');
  if (!isRecord(parsed)) {
    problems.add('', 'policy.yaml must be a mapping with `users` and `rules`');
    problems.throwIfAny();
  }
  const document = parsed as Record<string, unknown>;
  problems.unknownKeys('', document, ['users', 'rules']);

  const users = problems.strings('users', document.users ?? [], 'users', { nonEmpty: false });
  if (users.length > LIMITS.users) problems.add('users', `a policy declares at most ${LIMITS.users} users`);
  const declared = new Set<string>();
  users.forEach((user, index) => {
    const at = `users[${index}]`;
    if (user === ROOT_USER) problems.add(at, `'${ROOT_USER}' always exists and may not be declared`);
    else if (!USER_NAME.test(user)) problems.add(at, `user '${user}' must be 1 to 64 letters, digits, dots, dashes, underscores or @, starting with a letter or digit`);
    else if (declared.has(user)) problems.add(at, `user '${user}' is declared twice`);
    else declared.add(user);
  });

  const list = document.rules ?? [];
  const rules: RbacRule[] = [];
  if (!Array.isArray(list)) problems.add('rules', '`rules` must be a list of rules');
  else if (list.length > LIMITS.rules) problems.add('rules', `a policy holds at most ${LIMITS.rules} rules`);
  else {
    list.forEach((item, index) => {
      const path = `rules[${index}]`;
      if (!isRecord(item)) return problems.add(path, 'a rule must be a mapping with principals, actions and resources');
      problems.unknownKeys(path, item, ['principals', 'actions', 'resources']);
      const field = (name: 'principals' | 'actions' | 'resources', check: (pattern: string) => string | undefined): string[] => {
        const patterns = problems.strings(`${path}.${name}`, item[name], name, { nonEmpty: true });
        if (patterns.length > LIMITS.patterns) problems.add(`${path}.${name}`, `at most ${LIMITS.patterns} ${name} per rule`);
        patterns.forEach((pattern, at) => {
          const problem = check(pattern);
          if (problem) problems.add(`${path}.${name}[${at}]`, problem);
        });
        return patterns;
      };
      const principals = field('principals', (p) => {
        if (!PRINCIPAL.test(p)) return `principal '${p}' must be a user name or a pattern with '*'`;
        if (!p.includes('*') && p !== ROOT_USER && !declared.has(p)) return `principal '${p}' is not a declared user`;
        return undefined;
      });
      const actions = field('actions', (a) => {
        if (!ACTION.test(a)) return `action '${a}' must be '<area>:read' or '<area>:write' (areas ${RBAC_AREAS.join(', ')}), with '*'`;
        const pattern = globPattern(a);
        if (!RBAC_ACTIONS.some((action) => pattern.test(action))) {
          return `action '${a}' matches no action: actions are '<area>:read' or '<area>:write' with area ${RBAC_AREAS.join(', ')}`;
        }
        return undefined;
      });
      const resources = field('resources', resourcePatternProblem);
      rules.push({ principals, actions, resources });
    });
  }
  problems.throwIfAny();
  return { users, rules };
}

/** A policy ready to answer: its patterns compiled once. */
class CompiledPolicy {
  private readonly rules: Array<{ principals: Glob[]; actions: Glob[]; resources: Glob[] }>;

  constructor(policy: RbacPolicy) {
    const compile = (patterns: string[]) => patterns.map(globPattern);
    this.rules = policy.rules.map((rule) => ({
      principals: compile(rule.principals),
      actions: compile(rule.actions),
      resources: compile(rule.resources),
    }));
  }

  allows(user: string, action: RbacAction, names: readonly string[]): boolean {
    return this.rules.some(
      (rule) =>
        rule.principals.some((p) => p.test(user)) && rule.actions.some((a) => a.test(action)) && rule.resources.some((r) => names.some((name) => r.test(name))),
    );
  }
}

const ROOT_PERMISSIONS = (user: string): Permissions => ({ user, allows: () => true });
const NO_PERMISSIONS = (user: string): Permissions => ({ user, allows: () => false });

const noPolicy = () =>
  new AppError('not_found', 'Resource not found', { details: [{ code: 'rbac.not_attached', message: 'no rbac policy is attached', location: 'rbac' }] });

export interface RbacServiceDeps {
  policies: RbacPolicyRepository;
  users: ConductorUserRepository;
  clock: Clock;
  aliases?: ResourceAliases;
  archiveLimits?: ArchiveLimits;
  /** scrypt's cost for the secrets it issues; unset, the product's (see ConductorUserService). */
  hashing?: Readonly<PasswordHashing>;
}

export class RbacService {
  /** The last policy read, compiled, by its archive's SHA-256: requests re-read the policy but rarely recompile it. */
  private compiled: { sha256: string; policy: CompiledPolicy } | undefined;

  constructor(private readonly deps: RbacServiceDeps) {}

  /** Attaches a policy archive and applies it at once, replacing the attached one. */
  async attach(archive: Buffer): Promise<RbacStatus> {
    const files = await readArchive(archive, this.deps.archiveLimits ?? DEFAULT_LIMITS);
    const policy = parsePolicy(requireFile(files, POLICY_FILE));
    const attached: AttachedPolicy = {
      policy,
      sha256: createHash('sha256').update(archive).digest('hex'),
      attachedAt: this.deps.clock.nowSeconds(),
    };
    await this.deps.policies.attach(attached, archive, ROOT_USER);
    return statusOf(attached);
  }

  async status(): Promise<RbacStatus> {
    return statusOf(await this.deps.policies.current());
  }

  async archive(): Promise<Buffer> {
    const archive = await this.deps.policies.archive();
    if (!archive) throw noPolicy();
    return archive;
  }

  /** Detaches the policy: from then on only root exists. */
  async detach(): Promise<RbacStatus> {
    if (!(await this.deps.policies.detach(ROOT_USER))) throw noPolicy();
    return statusOf(undefined);
  }

  /** root first, then the declared users by name, each with whether it has a secret. */
  async users(): Promise<RbacUser[]> {
    const attached = await this.deps.policies.current();
    const rows = new Map((await this.deps.users.list()).map((user) => [user.name, user]));
    const declared = [...(attached?.policy.users ?? [])].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return [ROOT_USER, ...declared].map((name) => {
      const row = rows.get(name);
      const hasSecret = Boolean(row?.secretHash);
      return { name, hasSecret, secretCreatedAt: hasSecret ? (row?.secretCreatedAt ?? null) : null };
    });
  }

  /** A new secret for a declared user, returned once; only its salted scrypt hash is kept, and the old secret stops at once. */
  async resetSecret(name: string): Promise<{ user: string; secret: string }> {
    if (name === ROOT_USER) {
      throw new AppError('bad_request', 'Bad request', {
        details: [
          {
            code: 'rbac.root_secret',
            message: "root's secret comes from the server configuration (CONDUCTOR_ROOT_SECRET or the secret file) and cannot be changed through the API",
            location: 'path.user',
          },
        ],
      });
    }
    const secret = randomToken(32);
    // The user's row exists exactly while the attached policy declares it, so one update both checks and sets.
    const secretHash = await hashPassword(secret, this.deps.hashing ?? DEFAULT_PASSWORD_HASHING);
    if (!(await this.deps.users.setSecret(name, secretHash, this.deps.clock.nowSeconds()))) {
      throw new AppError('not_found', 'Resource not found', {
        details: [{ code: 'not_found', message: `no declared user named '${name}'`, location: 'path.user' }],
      });
    }
    return { user: name, secret };
  }

  /** What the user may do under the policy attached now. root may do everything; without a policy, nobody else may. */
  async permissions(user: string): Promise<Permissions> {
    if (user === ROOT_USER) return ROOT_PERMISSIONS(user);
    const attached = await this.deps.policies.current();
    if (!attached || !attached.policy.users.includes(user)) return NO_PERMISSIONS(user);
    if (this.compiled?.sha256 !== attached.sha256) this.compiled = { sha256: attached.sha256, policy: new CompiledPolicy(attached.policy) };
    const policy = this.compiled.policy;
    return { user, allows: (action, names) => policy.allows(user, action, names) };
  }

  /** Every name the resource is known by: the one given, and for accounts and processes their other names. */
  async namesOf(resource: RbacResource): Promise<string[]> {
    const names = [resourceText(resource)];
    if (resource.kind === 'account' || resource.kind === 'process') {
      const others = (await this.deps.aliases?.[resource.kind]?.(resource.name)) ?? [];
      for (const other of others) names.push(resourceText({ kind: resource.kind, name: other }));
    }
    return names;
  }

  /** Refuses (forbidden) unless the user may perform the action on the resource. */
  async authorize(permissions: Permissions, action: RbacAction, resource: RbacResource): Promise<void> {
    if (permissions.user === ROOT_USER) return;
    if (permissions.allows(action, await this.namesOf(resource))) return;
    throw new AppError('forbidden', 'Forbidden', {
      details: [{ code: 'rbac.denied', message: `user '${permissions.user}' may not ${action} on ${resourceText(resource)}`, location: POLICY_FILE }],
    });
  }
}

function statusOf(attached: AttachedPolicy | undefined): RbacStatus {
  if (!attached) return { applied: false, attachedAt: null, sha256: null, users: 0 };
  return { applied: true, attachedAt: attached.attachedAt, sha256: attached.sha256, users: attached.policy.users.length };
}
