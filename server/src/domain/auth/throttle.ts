import { hash } from 'node:crypto';
import ipaddr from 'ipaddr.js';
import type { Clock } from '../clock.js';
import { AppError } from '../errors.js';
import { newId } from '../ids.js';
import type { AuthFailureCounts, AuthFailureRepository } from '../repositories.js';
import { RecentlyRead, type RecentlyReadOptions } from './recently-read.js';

/**
 * How many failed authentications are allowed in a window before further attempts are refused unchecked. Three
 * limits, each for a kind of guessing:
 *  - per client address and identity together: one address guessing one account's secret. Tight, and keyed by the
 *    address too, so that guesses from elsewhere never lock out the account's owner;
 *  - per identity, across addresses: one account's secret guessed from many addresses. It counts against an address
 *    only once that address has failed with that identity in the window, so the right secret from an address that
 *    has not failed always gets through, while each further address gets one guess once the ceiling is reached;
 *  - per client address, whatever identity, on every API: one address sweeping over many accounts.
 */
export interface AuthenticationLimits {
  /** Failures older than this many seconds no longer count. */
  windowSeconds: number;
  perAddressAndIdentity: number;
  perIdentity: number;
  perAddress: number;
}

/** The limits of the product unless configured (AUTH_FAILURE_WINDOW_SECONDS, AUTH_MAX_FAILURES_…). */
export const DEFAULT_AUTHENTICATION_LIMITS: Readonly<AuthenticationLimits> = Object.freeze({
  windowSeconds: 15 * 60,
  perAddressAndIdentity: 10,
  perIdentity: 100,
  perAddress: 50,
});

/** Where a credential is checked: each API has its own identities (client ids, conductor users, console emails). */
export type AuthenticationRealm = 'compliance' | 'conductor' | 'console';

export interface AuthenticationAttempt {
  realm: AuthenticationRealm;
  /** Whom the caller claims to be; none for a credential that names nobody (a session cookie). */
  identity?: string;
  /** The client's address, as the HTTP layer determined it (TRUST_PROXY decides whom it believes). */
  address: string;
  /**
   * A digest of the credential presented, when the caller has one: attempts of the same credential from the same
   * address made while one of them is being checked share that check (see `authenticate`).
   */
  credential?: string;
}

/** How one attempt's credential is checked; each answers the principal, or undefined when the credential is wrong. */
export interface CredentialChecks<P> {
  /**
   * A check that needs no counting: a secret this process verified already (its digest compared in memory), or a
   * session token looked up. Run only once the limits let the attempt through; when it answers nothing, `verify`
   * decides, and without `verify` the attempt fails uncounted.
   */
  remembered?: () => P | undefined | Promise<P | undefined>;
  /**
   * The full check (the database, a slow hash). The attempt is recorded as a failure before it runs, so that guesses
   * sent at once count each other: of any number sent together, at most the limit are checked. A success forgives it.
   */
  verify?: () => Promise<P | undefined>;
}

/**
 * How long an attempt's keys, read below every limit, are taken to be so without reading them again: the bound on
 * how late a limit reached through another server process takes effect here for a secret verified already.
 */
export const BELOW_LIMITS_MEMORY_MS = 1000;

/** Rows older than the window are deleted at most this often by each process, after a failure. */
const PRUNE_EVERY_SECONDS = 60;
/** An identity longer than this is counted under its digest: a key per failure need not hold kilobytes. */
const MAX_IDENTITY_IN_KEY = 128;

const IPV4 = /^[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}$/;

/**
 * The address limits count: an IPv4 address as it is (an IPv4-mapped IPv6 address as its IPv4 address); an IPv6
 * address as its /64, since one subscriber is commonly given a whole /64 and could otherwise change address at will.
 */
export function countedAddress(address: string): string {
  if (IPV4.test(address)) return address;
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const prefix = (parsed as ipaddr.IPv6).parts.slice(0, 4).map((part) => part.toString(16));
  return `${prefix.join(':')}::/64`;
}

interface LimitKeys {
  address: string;
  identity: string | undefined;
  pair: string | undefined;
}

function keysOf(attempt: AuthenticationAttempt): LimitKeys {
  const address = `address ${countedAddress(attempt.address)}`;
  if (attempt.identity === undefined) return { address, identity: undefined, pair: undefined };
  const who = attempt.identity.length <= MAX_IDENTITY_IN_KEY ? attempt.identity : `sha256:${hash('sha256', attempt.identity, 'hex')}`;
  const identity = `${attempt.realm} ${who}`;
  return { address, identity, pair: `${identity} from ${countedAddress(attempt.address)}` };
}

const keyList = (keys: LimitKeys): string[] => [keys.address, ...(keys.pair ? [keys.pair] : []), ...(keys.identity ? [keys.identity] : [])];

/**
 * Failed authentications on every API, counted in the database (every server process sharing it sees the same
 * counts) under the limits of AuthenticationLimits. An attempt past a limit is refused with `rate_limited` before
 * its credential is checked, so a guesser learns nothing from it; it is not counted itself, so waiting out the
 * window is enough to try again. A success forgives only its own attempt, never other addresses' failures.
 *
 * Reading the counts before every request cost a fifth of the throughput of a cached read (a request of a caller
 * verified already); so keys read below every limit are taken to be so for BELOW_LIMITS_MEMORY_MS, and forgotten
 * as soon as any attempt fails here. That lets nothing be guessed: a secret not verified already is always checked
 * on the recorded path, which counts from the database, and a guesser's own failures here make the next attempt
 * read again. What it allows is a secret verified already, from an address another process limited less than a
 * second ago, to pass here in that second.
 */
export class AuthenticationThrottle {
  private prunedAt = Number.NEGATIVE_INFINITY;
  private readonly belowLimits: RecentlyRead<true>;
  /** The checks under way, by address, identity and credential: at most one per connection in flight. */
  private readonly inFlight = new Map<string, Promise<unknown>>();

  constructor(
    private readonly failures: AuthFailureRepository,
    private readonly clock: Clock,
    readonly limits: Readonly<AuthenticationLimits> = DEFAULT_AUTHENTICATION_LIMITS,
    memory: RecentlyReadOptions = { maxAgeMs: BELOW_LIMITS_MEMORY_MS, maxEntries: 10_000, now: () => performance.now() },
  ) {
    this.belowLimits = new RecentlyRead(memory);
  }

  /** The attempt's principal, or undefined when its credential is wrong; throws `rate_limited` past a limit. */
  async authenticate<P>(attempt: AuthenticationAttempt, checks: CredentialChecks<P>): Promise<P | undefined> {
    const now = this.clock.nowSeconds();
    const since = now - this.limits.windowSeconds;
    const keys = keysOf(attempt);
    const memoKey = keyList(keys).join('\n');
    if (this.belowLimits.get(memoKey) === undefined) {
      const ticket = this.belowLimits.begin();
      // Past a limit nothing is written: a guesser hammering on costs a read per attempt.
      this.refuseIfLimited(await this.failures.count(keyList(keys), since), keys, 0, now);
      this.belowLimits.store(ticket, memoKey, true);
    }
    const answered = checks.remembered?.();
    // Most requests are of a secret remembered in memory: no promise to wait for then.
    const remembered = answered instanceof Promise ? await answered : answered;
    if (remembered !== undefined) return remembered;
    if (!checks.verify) return undefined;
    // Every checked attempt counts as a failure until it passes, so that guesses sent at once cannot all be checked
    // under one count. A client sending its right secret on many requests at once, before this process remembers
    // it, would reach a limit that way: the same credential from the same address is checked once, and every
    // attempt of it meanwhile gets that check's answer.
    if (attempt.credential === undefined) return this.checked(keys, checks.verify, now, since);
    const shared = `${memoKey}\n${attempt.credential}`;
    const running = this.inFlight.get(shared) as Promise<P | undefined> | undefined;
    if (running) return running;
    const checking = this.checked(keys, checks.verify, now, since);
    this.inFlight.set(shared, checking);
    try {
      return await checking;
    } finally {
      this.inFlight.delete(shared);
    }
  }

  /** Records the attempt as a failure, checks it unless that reached a limit, and forgives it if it passed. */
  private async checked<P>(keys: LimitKeys, verify: () => Promise<P | undefined>, now: number, since: number): Promise<P | undefined> {
    const attemptId = newId();
    // A database that reads but cannot write (its disk is full) cannot count this attempt: it is checked all the
    // same, under the counts read above, so that callers keep reading while writes wait for room.
    const recorded = await this.failures.record(keyList(keys), now, attemptId).then(
      () => true,
      () => false,
    );
    if (recorded) {
      try {
        this.refuseIfLimited(await this.failures.count(keyList(keys), since), keys, 1, now);
      } catch (refused) {
        this.belowLimits.forgetAll();
        await this.failures.forgive(attemptId);
        throw refused;
      }
    }
    let principal: P | undefined;
    try {
      principal = await verify();
    } catch (error) {
      // The credential could not be checked (the database went away): that is no failure of the caller's.
      if (recorded) await this.failures.forgive(attemptId).catch(() => undefined);
      throw error;
    }
    if (principal !== undefined) {
      if (recorded) await this.failures.forgive(attemptId);
      return principal;
    }
    // The counts this failure raised are read again before anything else is let through.
    this.belowLimits.forgetAll();
    if (recorded) await this.prune(now);
    return undefined;
  }

  /**
   * Throws `rate_limited` when a limit covers the attempt. `own` is 1 when the counts include the attempt itself:
   * the limits compare the failures before it.
   */
  private refuseIfLimited(counts: AuthFailureCounts, keys: LimitKeys, own: 0 | 1, now: number): void {
    const { windowSeconds, perAddressAndIdentity, perIdentity, perAddress } = this.limits;
    const before = (key: string | undefined) => (key === undefined ? 0 : (counts.get(key)?.count ?? 0) - own);
    const reached: string[] = [];
    if (before(keys.address) >= perAddress) reached.push(keys.address);
    if (keys.pair !== undefined && before(keys.pair) >= perAddressAndIdentity) reached.push(keys.pair);
    // The ceiling per identity stops only addresses that failed with it themselves.
    if (keys.identity !== undefined && before(keys.identity) >= perIdentity && before(keys.pair) >= 1) reached.push(keys.identity);
    if (reached.length === 0) return;
    // Every limit reached must have room again: each does once its oldest failure leaves the window, not before.
    const clears = Math.max(...reached.map((key) => counts.get(key)!.oldest + windowSeconds));
    const retryAfter = Math.min(windowSeconds, Math.max(1, clears - now));
    throw new AppError('rate_limited', `Too many failed authentication attempts; try again in ${retryAfter} seconds`, { retryAfter });
  }

  /** Deletes failures that count against nothing any more; housekeeping, so a failure to prune is left to the next. */
  private async prune(now: number): Promise<void> {
    if (now - this.prunedAt < PRUNE_EVERY_SECONDS) return;
    this.prunedAt = now;
    await this.failures.prune(now - this.limits.windowSeconds).catch(() => {
      this.prunedAt = Number.NEGATIVE_INFINITY;
    });
  }
}
