import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Clock } from '../clock.js';
import { randomToken } from '../ids.js';
import type { ConductorUserRepository } from '../repositories.js';
import { DEFAULT_PASSWORD_HASHING, hashPassword, prepareDecoy, verifyPassword, type PasswordHashing } from './passwords.js';
import { RecentlyRead } from './recently-read.js';
import { secretMatches } from './secrets.js';
import type { AuthenticationThrottle } from './throttle.js';

export const ROOT_USER = 'root';

export interface ConductorPrincipal {
  user: string;
}

export interface RootSecretSource {
  /** From CONDUCTOR_ROOT_SECRET: wins over anything stored. */
  configured: string | undefined;
  /** Where a generated secret is written once, readable only by its owner. */
  file: string;
}

/**
 * How long a verified secret is remembered: a request presenting it again is accepted without the slow hash, as
 * long as the user's stored hash is still the one it was verified against. Each expiry costs one slow hash per user.
 */
export const CONDUCTOR_SECRET_MEMORY_MS = 10 * 60_000;

export interface ConductorUserOptions {
  /** Counts failed authentications and refuses attempts past its limits. */
  throttle: AuthenticationThrottle;
  /** scrypt's cost for secrets hashed from now on; unset, the product's. Tests lower it. */
  hashing?: Readonly<PasswordHashing>;
  /** A monotonic clock in milliseconds for the ages of remembered secrets (default `performance.now`). */
  now?: () => number;
}

/** A secret that passed: a keyed digest of it (never the secret), and the stored hash it passed against. */
interface VerifiedSecret {
  digest: Buffer;
  storedHash: string;
}

/** A SHA-256 hash (hex) as secrets were stored before they were stored with scrypt. */
const UNSALTED_SHA256 = /^[0-9a-f]{64}$/;

/**
 * Users of the conductor API. `root` always exists; the others come from the attached rbac policy.
 *
 * Secrets are stored as salted scrypt hashes (passwords.ts), since root's may be chosen by an operator rather than
 * generated. A hash stored before that (unsalted SHA-256) still works: the secret is checked against it, and on
 * success hashed with scrypt and stored in its place, if nothing replaced it meanwhile. Checking a secret with
 * scrypt takes about a tenth of a second, so a secret that passed is remembered in memory, as an HMAC under a key
 * of this process (the secret itself is never kept), for CONDUCTOR_SECRET_MEMORY_MS: a request presenting it
 * again still reads the user, and is accepted without the slow hash while the stored hash is the one it passed
 * against. A new secret (another process's included) changes the stored hash, so the old one stops at once.
 */
export class ConductorUserService {
  private readonly throttle: AuthenticationThrottle;
  private readonly hashing: Readonly<PasswordHashing>;
  private readonly verified: RecentlyRead<VerifiedSecret>;
  private readonly digestKey = randomBytes(32);

  constructor(
    private readonly users: ConductorUserRepository,
    private readonly clock: Clock,
    options: ConductorUserOptions,
  ) {
    this.throttle = options.throttle;
    this.hashing = options.hashing ?? DEFAULT_PASSWORD_HASHING;
    this.verified = new RecentlyRead({ maxAgeMs: CONDUCTOR_SECRET_MEMORY_MS, maxEntries: 10_000, now: options.now ?? (() => performance.now()) });
    prepareDecoy(this.hashing);
  }

  /** The principal for a user and its secret, sent from `address`; undefined when wrong, `rate_limited` past a limit. */
  async authenticate(name: string, secret: string, address: string): Promise<ConductorPrincipal | undefined> {
    const presented = createHmac('sha256', this.digestKey).update(secret).digest();
    return this.throttle.authenticate(
      { realm: 'conductor', identity: name, address, credential: presented.toString('base64') },
      {
        remembered: async () => {
          const known = this.verified.get(name);
          if (!known) return undefined;
          const user = await this.users.get(name);
          if (user?.secretHash !== known.storedHash) return undefined;
          return timingSafeEqual(presented, known.digest) ? { user: name } : undefined;
        },
        verify: async () => {
          const ticket = this.verified.begin();
          const user = await this.users.get(name);
          const stored = user?.secretHash ?? null;
          const scheme = await this.check(secret, stored);
          if (!scheme || !user || stored === null) return undefined;
          const current = scheme === 'sha256' ? await this.rehash(name, stored, secret) : stored;
          this.verified.store(ticket, name, { digest: presented, storedHash: current });
          return { user: user.name };
        },
      },
    );
  }

  /**
   * Gives root its secret at start-up: the configured one if any; otherwise the one stored before; otherwise a
   * new one, written once to an owner-only file (never overwritten) and reported by path, not by value.
   * Returns the file path when a secret was generated.
   */
  async ensureRoot(source: RootSecretSource): Promise<string | undefined> {
    const now = this.clock.nowSeconds();
    const existing = await this.users.get(ROOT_USER);
    const save = async (secret: string) =>
      this.users.upsert({ name: ROOT_USER, secretHash: await hashPassword(secret, this.hashing), secretCreatedAt: now, createdAt: existing?.createdAt ?? now });

    if (source.configured !== undefined) {
      // The configured secret, stored already with scrypt, stays as it is; stored the old way, it is hashed anew.
      const stored = existing?.secretHash ?? null;
      if (stored === null || (await this.check(source.configured, stored)) !== 'scrypt') await save(source.configured);
      return undefined;
    }
    if (existing?.secretHash) return undefined;
    const fromFile = await readFile(source.file, 'utf8').then((s) => s.trim(), () => undefined);
    if (fromFile) {
      await save(fromFile);
      return undefined;
    }
    const secret = randomToken(32);
    await mkdir(dirname(source.file), { recursive: true, mode: 0o700 });
    await writeFile(source.file, `${secret}\n`, { mode: 0o600, flag: 'wx' });
    await save(secret);
    return source.file;
  }

  /** Which way `secret` matches `stored`, if it does; without a stored hash it is checked against a decoy alike. */
  private async check(secret: string, stored: string | null): Promise<'scrypt' | 'sha256' | undefined> {
    if (stored !== null && UNSALTED_SHA256.test(stored)) return secretMatches(secret, stored) ? 'sha256' : undefined;
    return (await verifyPassword(secret, stored, this.hashing)) ? 'scrypt' : undefined;
  }

  /** Stores a scrypt hash in place of the SHA-256 one the secret just passed; answers the hash stored now. */
  private async rehash(name: string, stored: string, secret: string): Promise<string> {
    const rehashed = await hashPassword(secret, this.hashing);
    return (await this.users.replaceSecretHash(name, stored, rehashed)) ? rehashed : stored;
  }
}

