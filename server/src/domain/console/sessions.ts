import { timingSafeEqual } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Clock } from '../clock.js';
import { AppError } from '../errors.js';
import { newId, randomToken } from '../ids.js';
import { characterCount } from '../text.js';
import { hashSecret } from '../auth/secrets.js';
import type { Organization, OrganizationRepository, SessionRepository, SignInFailureRepository, UserRepository } from '../repositories.js';
import type { OrgUser } from '../users/types.js';
import { DEFAULT_PASSWORD_HASHING, hashPassword, prepareDecoy, verifyPassword, type PasswordHashing } from './passwords.js';

export const SESSION_SECONDS = 12 * 3600;
/**
 * Sign-in attempts: failures allowed in the window, before refusing. The tight limit is per client address and
 * email together, so that guesses from elsewhere cannot lock a user out; a much higher ceiling per email across
 * all addresses still slows a guess spread over many addresses, and one per address a sweep over many emails.
 */
export const SIGN_IN_WINDOW_SECONDS = 15 * 60;
export const MAX_FAILURES_PER_ADDRESS_AND_EMAIL = 10;
export const MAX_FAILURES_PER_EMAIL = 100;
export const MAX_FAILURES_PER_ADDRESS = 50;

export interface ConsoleSession {
  user: OrgUser;
  organization: Organization;
  csrfToken: string;
  expiresAt: number;
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
    private readonly failures: SignInFailureRepository,
    private readonly clock: Clock,
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

  /** Signs in; a successful sign-in ends the session of `previousToken` (the cookie the browser still held). */
  async signIn(email: string, password: string, address: string, previousToken?: string): Promise<SignedIn> {
    const now = this.clock.nowSeconds();
    const since = now - SIGN_IN_WINDOW_SECONDS;
    const normalized = email.toLowerCase();
    const limits = [
      { key: `pair:${address} ${normalized}`, max: MAX_FAILURES_PER_ADDRESS_AND_EMAIL },
      { key: `email:${normalized}`, max: MAX_FAILURES_PER_EMAIL },
      { key: `address:${address}`, max: MAX_FAILURES_PER_ADDRESS },
    ];
    // The attempt counts as a failure from the start, so that concurrent guesses count each other: of any number
    // sent at once, at most the limit get their password checked.
    const attemptId = newId();
    await this.failures.record(limits.map(({ key }) => key), now, attemptId);
    const counts = await Promise.all(limits.map(({ key }) => this.failures.count(key, since)));
    const exceeded = counts.filter((counted, i) => counted.count > limits[i]!.max);
    if (exceeded.length > 0) {
      // A refused attempt is not a failure of its own: waiting out the window is enough to try again.
      await this.failures.forgive(attemptId);
      const oldest = Math.min(...exceeded.map((counted) => counted.oldest));
      throw new AppError('rate_limited', 'Too many failed sign-in attempts; try again later', {
        retryAfter: Math.max(1, oldest + SIGN_IN_WINDOW_SECONDS - now),
      });
    }
    const user = await this.users.findByEmail(email);
    const valid = await verifyPassword(password, user?.status === 'ACTIVE' ? user.passwordHash : null, this.hashing);
    if (!valid || !user) throw new AppError('unauthenticated', 'Invalid email or password');
    await this.failures.forgive(attemptId);
    const organization = (await this.organizations.get(user.orgId))!;
    const token = randomToken(32);
    const session = { user, organization, csrfToken: randomToken(32), expiresAt: now + SESSION_SECONDS };
    await this.sessions.insert({ tokenHash: hashSecret(token), userId: user.id, orgId: user.orgId, csrfToken: session.csrfToken, createdAt: now, expiresAt: session.expiresAt });
    if (previousToken) await this.sessions.delete(hashSecret(previousToken));
    return { ...session, token };
  }

  /** The live session of a cookie token, if any. */
  async session(token: string): Promise<ConsoleSession | undefined> {
    const stored = await this.sessions.get(hashSecret(token));
    if (!stored || stored.expiresAt <= this.clock.nowSeconds()) return undefined;
    const [user, organization] = await Promise.all([this.users.get(stored.orgId, stored.userId), this.organizations.get(stored.orgId)]);
    if (!user || user.status !== 'ACTIVE' || !organization) return undefined;
    return { user, organization, csrfToken: stored.csrfToken, expiresAt: stored.expiresAt };
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
