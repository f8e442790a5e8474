import { describe, expect, it } from '@jest/globals';
import { ManualClock } from '../clock.js';
import { AppError } from '../errors.js';
import type { AuthFailureCounts, AuthFailureRepository } from '../repositories.js';
import { AuthenticationThrottle, BELOW_LIMITS_MEMORY_MS, countedAddress, type AuthenticationLimits } from './throttle.js';

/** The failures in memory, as the database keeps them: one row per key of each attempt. */
class MemoryFailures implements AuthFailureRepository {
  rows: Array<{ key: string; at: number; attemptId: string }> = [];
  reads = 0;

  async record(keys: readonly string[], at: number, attemptId: string): Promise<void> {
    for (const key of keys) this.rows.push({ key, at, attemptId });
  }

  async forgive(attemptId: string): Promise<void> {
    this.rows = this.rows.filter((row) => row.attemptId !== attemptId);
  }

  async count(keys: readonly string[], since: number): Promise<AuthFailureCounts> {
    this.reads += 1;
    const counts = new Map<string, { count: number; oldest: number }>();
    for (const row of this.rows) {
      if (!keys.includes(row.key) || row.at <= since) continue;
      const counted = counts.get(row.key) ?? { count: 0, oldest: row.at };
      counts.set(row.key, { count: counted.count + 1, oldest: Math.min(counted.oldest, row.at) });
    }
    return counts;
  }

  async prune(before: number): Promise<void> {
    this.rows = this.rows.filter((row) => row.at > before);
  }
}

const LIMITS: AuthenticationLimits = { windowSeconds: 100, perAddressAndIdentity: 3, perIdentity: 10, perAddress: 6 };

function setup() {
  const clock = new ManualClock();
  const failures = new MemoryFailures();
  const throttle = new AuthenticationThrottle(failures, clock, LIMITS);
  const wrong = () => Promise.resolve(undefined);
  const attempt = (address: string, identity = 'root', verify: () => Promise<string | undefined> = wrong) =>
    throttle.authenticate({ realm: 'conductor', identity, address }, { verify }).then(
      (principal) => principal ?? 'wrong',
      (error: unknown) => {
        if (error instanceof AppError && error.code === 'rate_limited') return `refused ${error.retryAfter}`;
        throw error;
      },
    );
  return { clock, failures, attempt };
}

describe('the addresses failures count against', () => {
  it('are IPv4 addresses as they are, IPv4-mapped IPv6 as IPv4, and IPv6 by their /64', () => {
    expect(countedAddress('192.0.2.7')).toBe('192.0.2.7');
    expect(countedAddress('::ffff:192.0.2.7')).toBe('192.0.2.7');
    expect(countedAddress('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64');
    expect(countedAddress('2001:db8:1:2:ffff::1')).toBe('2001:db8:1:2::/64');
    expect(countedAddress('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64');
    expect(countedAddress('')).toBe('');
  });

  it('limit a guesser that changes its IPv6 address within its /64 as one address', async () => {
    const { attempt } = setup();
    for (let i = 1; i <= LIMITS.perAddressAndIdentity; i += 1) expect(await attempt(`2001:db8::${i}`)).toBe('wrong');
    expect(await attempt('2001:db8::ffff')).toMatch(/^refused /);
    expect(await attempt('2001:db8:0:1::1')).toBe('wrong');
  });
});

describe('the authentication throttle', () => {
  it('answers Retry-After as the seconds until the oldest counted failure leaves the window', async () => {
    const { clock, attempt } = setup();
    expect(await attempt('192.0.2.1')).toBe('wrong');
    clock.advanceSeconds(30);
    expect(await attempt('192.0.2.1')).toBe('wrong');
    expect(await attempt('192.0.2.1')).toBe('wrong');
    expect(await attempt('192.0.2.1')).toBe(`refused ${LIMITS.windowSeconds - 30}`);
    clock.advanceSeconds(LIMITS.windowSeconds - 30 - 1);
    expect(await attempt('192.0.2.1')).toBe('refused 1');
    clock.advanceSeconds(1);
    expect(await attempt('192.0.2.1', 'root', () => Promise.resolve('root'))).toBe('root');
  });

  it('counts one row per limit of a failure, forgives a success and a refusal, and counts no credential it could not check', async () => {
    const { failures, attempt } = setup();
    expect(await attempt('192.0.2.1')).toBe('wrong');
    expect(failures.rows.map((row) => row.key).sort()).toEqual(['address 192.0.2.1', 'conductor root', 'conductor root from 192.0.2.1']);
    expect(await attempt('192.0.2.1', 'root', () => Promise.resolve('root'))).toBe('root');
    const outage = new Error('the database went away');
    await expect(attempt('192.0.2.1', 'root', () => Promise.reject(outage))).rejects.toBe(outage);
    expect(failures.rows).toHaveLength(3);
    expect(await attempt('192.0.2.1')).toBe('wrong');
    expect(await attempt('192.0.2.1')).toBe('wrong');
    expect(await attempt('192.0.2.1')).toMatch(/^refused /);
    expect(failures.rows).toHaveLength(3 * LIMITS.perAddressAndIdentity);
  });

  it('keeps an identity of any length to a bounded key', async () => {
    const { failures, attempt } = setup();
    expect(await attempt('192.0.2.1', 'x'.repeat(10_000))).toBe('wrong');
    for (const row of failures.rows) expect(row.key.length).toBeLessThan(120);
  });

  it('deletes failures that left the window, after a failure', async () => {
    const { clock, failures, attempt } = setup();
    expect(await attempt('192.0.2.1')).toBe('wrong');
    clock.advanceSeconds(LIMITS.windowSeconds + 60);
    expect(await attempt('192.0.2.2')).toBe('wrong');
    expect(new Set(failures.rows.map((row) => row.at))).toEqual(new Set([clock.nowSeconds()]));
  });
});

describe('the counts read below every limit', () => {
  it('are not read again for a second, until an attempt fails here; a secret not remembered is always counted from the store', async () => {
    const clock = new ManualClock();
    const failures = new MemoryFailures();
    let ms = 0;
    const throttle = new AuthenticationThrottle(failures, clock, LIMITS, { maxAgeMs: BELOW_LIMITS_MEMORY_MS, maxEntries: 100, now: () => ms });
    const attempt = { realm: 'compliance' as const, identity: 'cl_client', address: '192.0.2.1' };
    const remembered = () => throttle.authenticate(attempt, { remembered: () => 'principal' });
    expect(await remembered()).toBe('principal');
    expect(await remembered()).toBe('principal');
    expect(failures.reads).toBe(1);
    ms += BELOW_LIMITS_MEMORY_MS;
    expect(await remembered()).toBe('principal');
    expect(failures.reads).toBe(2);
    // A wrong secret: read before it is checked, whatever was remembered, and then again before the next attempt.
    expect(await throttle.authenticate(attempt, { verify: async () => undefined })).toBeUndefined();
    expect(failures.reads).toBe(3);
    expect(await remembered()).toBe('principal');
    expect(failures.reads).toBe(4);
  });

  it('let a secret verified already through for at most a second after another process limited its address', async () => {
    const clock = new ManualClock();
    const failures = new MemoryFailures();
    let ms = 0;
    const here = new AuthenticationThrottle(failures, clock, LIMITS, { maxAgeMs: BELOW_LIMITS_MEMORY_MS, maxEntries: 100, now: () => ms });
    const elsewhere = new AuthenticationThrottle(failures, clock, LIMITS);
    const attempt = { realm: 'conductor' as const, identity: 'root', address: '192.0.2.1' };
    const outcome = (throttle: AuthenticationThrottle, checks: { remembered?: () => string; verify?: () => Promise<string | undefined> }) =>
      throttle.authenticate(attempt, checks).then(
        (principal) => principal ?? 'wrong',
        (error: unknown) => (error instanceof AppError && error.code === 'rate_limited' ? 'refused' : Promise.reject(error)),
      );
    expect(await outcome(here, { remembered: () => 'root' })).toBe('root');
    for (let i = 0; i < LIMITS.perAddressAndIdentity; i += 1) expect(await outcome(elsewhere, { verify: async () => undefined })).toBe('wrong');
    // Here, the secret verified already passes until the second is over; a guess is counted from the store at once.
    expect(await outcome(here, { remembered: () => 'root' })).toBe('root');
    ms += BELOW_LIMITS_MEMORY_MS;
    expect(await outcome(here, { remembered: () => 'root' })).toBe('refused');
    ms = 0;
    const fresh = new AuthenticationThrottle(failures, clock, LIMITS, { maxAgeMs: BELOW_LIMITS_MEMORY_MS, maxEntries: 100, now: () => ms });
    clock.advanceSeconds(LIMITS.windowSeconds + 1);
    expect(await outcome(fresh, { remembered: () => 'root' })).toBe('root');
    for (let i = 0; i < LIMITS.perAddressAndIdentity; i += 1) expect(await outcome(elsewhere, { verify: async () => undefined })).toBe('wrong');
    // Within the second, a secret not verified already is checked only on the recorded path: refused there.
    expect(await outcome(fresh, { verify: async () => 'root' })).toBe('refused');
  });
});
