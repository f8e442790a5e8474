import { timingSafeEqual } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Clock } from '../clock.js';
import { AppError } from '../errors.js';
import { newId, randomToken } from '../ids.js';
import { characterCount } from '../text.js';
import { DEFAULT_PASSWORD_HASHING, hashPassword, prepareDecoy, verifyPassword, type PasswordHashing } from '../auth/passwords.js';
import { hashSecret } from '../auth/secrets.js';
import type { AuthenticationThrottle } from '../auth/throttle.js';
import type { Organization, OrganizationRepository, SessionRepository, UserRepository } from '../repositories.js';
import type { OrgUser } from '../users/types.js';
import type { ConsoleAccess } from './access.js';

export const SESSION_SECONDS = 12 * 3600;

export interface ConsoleSession {
  user: OrgUser;
  organization: Organization;
  csrfToken: string;
  expiresAt: number;
  /** What the user may do in the console, as their groups decide, read with the session. */
  access: ConsoleAccess;
}

export interface SignedIn extends ConsoleSession {
  /** Goes to the browser in an HttpOnly cookie; only its hash is stored. */
  token: string;
}

/** Console sign-in, sessions and CSRF tokens, and the organization users who sign in. */
export class ConsoleAuthService {
  constructor(
    private readonly users: UserRepository,
    private readonly organizations: OrganizationRepository,
    private readonly sessions: SessionRepository,
    /** Failed sign-ins count with failed authentications on the other APIs, under the same limits. */
    private readonly throttle: AuthenticationThrottle,
    private readonly clock: Clock,
    /** What a user may do in the console (AccessService.consoleAccessOf: their groups, reused for a moment). */
    private readonly accessOf: (user: OrgUser) => Promise<ConsoleAccess>,
    private readonly hashing: Readonly<PasswordHashing> = DEFAULT_PASSWORD_HASHING,
  ) {
    prepareDecoy(hashing);
  }

  /** Creates a user who can sign in at once (the first admin, operators, tests). */
  async createUser(orgId: string, email: string, password: string, details: { owner?: boolean; firstName?: string; lastName?: string } = {}): Promise<OrgUser> {
    if (characterCount(password) < 12) throw AppError.invalid('password', 'must be at least 12 characters');
    if (await this.users.findByEmail(email)) throw new AppError('conflict', `a user with email ${email} exists`);
    const now = this.clock.nowSeconds();
    const user: OrgUser = {
      id: newId(),
      orgId,
      email: email.toLowerCase(),
      firstName: details.firstName ?? null,
      lastName: details.lastName ?? null,
      passwordHash: await hashPassword(password, this.hashing),
      owner: details.owner ?? false,
      status: 'ACTIVE',
      createdAt: now,
      updatedAt: now,
    };
    if (!(await this.users.insert(user))) throw new AppError('conflict', `a user with email ${email} exists`);
    return user;
  }

  /**
   * Makes sure the organization has its first admin (product.md §7). With no password configured, one is
   * generated and written once to an owner-only file. Returns that file's path when a password was generated.
   */
  async ensureAdmin(orgId: string, email: string, password: string | undefined, passwordFile: string): Promise<string | undefined> {
    if (await this.users.findByEmail(email)) return undefined;
    // Another process starting on the same database may create the admin first; its admin is as good.
    const createAdmin = (secret: string) =>
      this.createUser(orgId, email, secret, { owner: true, firstName: 'Admin' }).then(
        () => undefined,
        (error: unknown) => {
          if (!(error instanceof AppError && error.code === 'conflict')) throw error;
        },
      );
    if (password !== undefined) {
      await createAdmin(password);
      return undefined;
    }
    // A password written by an earlier start (over another database) is reused rather than replaced.
    const written = await readFile(passwordFile, 'utf8').then((text) => text.trim(), () => undefined);
    if (written) {
      await createAdmin(written);
      return undefined;
    }
    const generated = randomToken(18);
    await mkdir(dirname(passwordFile), { recursive: true, mode: 0o700 });
    await writeFile(passwordFile, `${generated}\n`, { mode: 0o600, flag: 'wx' });
    await createAdmin(generated);
    return passwordFile;
  }

  /**
   * Signs in from `address`; a successful sign-in ends the session of `previousToken` (the cookie the browser still
   * held). Past a limit of failed attempts it throws `rate_limited` without checking the password.
   */
  async signIn(email: string, password: string, address: string, previousToken?: string): Promise<SignedIn> {
    const user = await this.throttle.authenticate(
      { realm: 'console', identity: email.toLowerCase(), address },
      {
        verify: async () => {
          const found = await this.users.findByEmail(email);
          const valid = await verifyPassword(password, found?.status === 'ACTIVE' ? found.passwordHash : null, this.hashing);
          return valid && found ? found : undefined;
        },
      },
    );
    if (!user) throw new AppError('unauthenticated', 'Invalid email or password');
    return this.startSession(user, (await this.organizations.get(user.orgId))!, previousToken);
  }

  /**
   * A new session of a user who proved who they are (a sign-in, an accepted invitation); the session of
   * `previousToken` (the cookie the browser still held) ends.
   */
  async startSession(user: OrgUser, organization: Organization, previousToken?: string): Promise<SignedIn> {
    const now = this.clock.nowSeconds();
    const token = randomToken(32);
    const session: ConsoleSession = { user, organization, csrfToken: randomToken(32), expiresAt: now + SESSION_SECONDS, access: await this.accessOf(user) };
    await this.sessions.insert({ tokenHash: hashSecret(token), userId: user.id, orgId: user.orgId, csrfToken: session.csrfToken, createdAt: now, expiresAt: session.expiresAt });
    if (previousToken) await this.sessions.delete(hashSecret(previousToken));
    return { ...session, token };
  }

  /**
   * The live session of a cookie token sent from `address`, if any. An address past its own limit of failed
   * authentications is refused (`rate_limited`) before the token is looked up. A token that names no live session
   * is not counted as a failure: it is 256 random bits, nothing to guess, and browsers keep sending expired ones.
   */
  async session(token: string, address: string): Promise<ConsoleSession | undefined> {
    return this.throttle.authenticate({ realm: 'console', address }, { remembered: () => this.liveSession(token) });
  }

  private async liveSession(token: string): Promise<ConsoleSession | undefined> {
    const stored = await this.sessions.get(hashSecret(token));
    if (!stored || stored.expiresAt <= this.clock.nowSeconds()) return undefined;
    const [user, organization] = await Promise.all([this.users.get(stored.orgId, stored.userId), this.organizations.get(stored.orgId)]);
    if (!user || user.status !== 'ACTIVE' || !organization) return undefined;
    return { user, organization, csrfToken: stored.csrfToken, expiresAt: stored.expiresAt, access: await this.accessOf(user) };
  }

  async signOut(token: string): Promise<void> {
    await this.sessions.delete(hashSecret(token));
  }
}

/** Compares a presented CSRF token with the session's in constant time. */
export function csrfMatches(presented: string | undefined, expected: string): boolean {
  if (presented === undefined) return false;
  const a = Buffer.from(presented);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
