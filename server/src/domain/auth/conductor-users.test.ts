import { mkdtemp, readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from '@jest/globals';
import { describeEachDatabase } from '../../../test/databases.js';
import { TEST_PASSWORD_HASHING } from '../../../test/passwords.js';
import { KyselyAuthFailureRepository } from '../../storage/repositories/auth-failures.js';
import { KyselyConductorUserRepository } from '../../storage/repositories/conductor-users.js';
import { ManualClock } from '../clock.js';
import { CONDUCTOR_SECRET_MEMORY_MS, ConductorUserService } from './conductor-users.js';
import { hashSecret } from './secrets.js';
import { AuthenticationThrottle } from './throttle.js';

const ADDRESS = '127.0.0.1';

describeEachDatabase('conductor root secret', (db) => {
  const setup = async (options: { now?: () => number } = {}) => {
    const clock = new ManualClock();
    const users = new KyselyConductorUserRepository(db().handle.db);
    // Every secret checked in full is first recorded as a possible failure: the count of those is the checks made.
    let checks = 0;
    const failures = new (class extends KyselyAuthFailureRepository {
      override record(keys: readonly string[], at: number, attemptId: string): Promise<void> {
        checks += 1;
        return super.record(keys, at, attemptId);
      }
    })(db().handle.db);
    const throttle = new AuthenticationThrottle(failures, clock);
    const service = new ConductorUserService(users, clock, { throttle, hashing: TEST_PASSWORD_HASHING, ...options });
    const file = join(await mkdtemp(join(tmpdir(), 'root-secret-')), 'nested', 'conductor-root-secret');
    return { service, users, file, checks: () => checks };
  };

  it('uses the configured secret, and a new configured secret replaces the old one at once', async () => {
    const { service, file } = await setup();
    await service.ensureRoot({ configured: 'first-secret-0123456789', file });
    expect(await service.authenticate('root', 'first-secret-0123456789', ADDRESS)).toEqual({ user: 'root' });
    await service.ensureRoot({ configured: 'second-secret-0123456789', file });
    expect(await service.authenticate('root', 'first-secret-0123456789', ADDRESS)).toBeUndefined();
    expect(await service.authenticate('root', 'second-secret-0123456789', ADDRESS)).toEqual({ user: 'root' });
  });

  it('without configuration, generates a secret once into an owner-only file and keeps it across restarts', async () => {
    const { service, file } = await setup();
    expect(await service.ensureRoot({ configured: undefined, file })).toBe(file);
    const secret = (await readFile(file, 'utf8')).trim();
    expect(secret.length).toBeGreaterThanOrEqual(43);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(await service.authenticate('root', secret, ADDRESS)).toEqual({ user: 'root' });

    expect(await service.ensureRoot({ configured: undefined, file })).toBeUndefined();
    expect((await readFile(file, 'utf8')).trim()).toBe(secret);
  });

  it('refuses unknown users and wrong secrets alike', async () => {
    const { service, file } = await setup();
    await service.ensureRoot({ configured: 'first-secret-0123456789', file });
    expect(await service.authenticate('root', 'nope', ADDRESS)).toBeUndefined();
    expect(await service.authenticate('alice', 'first-secret-0123456789', ADDRESS)).toBeUndefined();
  });

  it('stores only a salted scrypt hash: the same secret stored twice gives two different hashes', async () => {
    const { service, users, file } = await setup();
    await service.ensureRoot({ configured: 'first-secret-0123456789', file });
    const first = (await users.get('root'))!.secretHash!;
    await service.ensureRoot({ configured: 'other-secret-0123456789', file });
    await service.ensureRoot({ configured: 'first-secret-0123456789', file });
    const second = (await users.get('root'))!.secretHash!;
    const { N, r, p } = TEST_PASSWORD_HASHING;
    for (const stored of [first, second]) {
      expect(stored).toMatch(new RegExp(`^scrypt\\$${N}\\$${r}\\$${p}\\$`));
      expect(stored).not.toContain('first-secret');
    }
    expect(second).not.toBe(first);
  });

  it('a configured secret already stored with scrypt is left as it is at the next start', async () => {
    const { service, users, file } = await setup();
    await service.ensureRoot({ configured: 'first-secret-0123456789', file });
    const stored = (await users.get('root'))!.secretHash;
    await service.ensureRoot({ configured: 'first-secret-0123456789', file });
    expect((await users.get('root'))!.secretHash).toBe(stored);
  });

  it('a SHA-256 hash stored before scrypt still lets its secret in, and is replaced by a scrypt hash on that success', async () => {
    const { service, users } = await setup();
    await users.upsert({ name: 'root', secretHash: hashSecret('secret-of-the-old-kind-0123'), secretCreatedAt: 1, createdAt: 1 });
    expect(await service.authenticate('root', 'not-the-secret', ADDRESS)).toBeUndefined();
    expect((await users.get('root'))!.secretHash).toBe(hashSecret('secret-of-the-old-kind-0123'));
    expect(await service.authenticate('root', 'secret-of-the-old-kind-0123', ADDRESS)).toEqual({ user: 'root' });
    const rehashed = (await users.get('root'))!;
    expect(rehashed.secretHash).toMatch(/^scrypt\$/);
    expect(rehashed.secretCreatedAt).toBe(1);
    expect(await service.authenticate('root', 'secret-of-the-old-kind-0123', ADDRESS)).toEqual({ user: 'root' });
    expect(await service.authenticate('root', 'not-the-secret', ADDRESS)).toBeUndefined();
  });

  it('a configured secret stored as SHA-256 before is stored anew with scrypt at start-up', async () => {
    const { service, users, file } = await setup();
    await users.upsert({ name: 'root', secretHash: hashSecret('configured-secret-0123456789'), secretCreatedAt: 1, createdAt: 1 });
    await service.ensureRoot({ configured: 'configured-secret-0123456789', file });
    expect((await users.get('root'))!.secretHash).toMatch(/^scrypt\$/);
    expect(await service.authenticate('root', 'configured-secret-0123456789', ADDRESS)).toEqual({ user: 'root' });
  });

  it('a secret that passed is accepted again without a full check while the stored hash is unchanged, for a bounded time', async () => {
    let ms = 0;
    const { service, users, file, checks } = await setup({ now: () => ms });
    await service.ensureRoot({ configured: 'first-secret-0123456789', file });
    expect(await service.authenticate('root', 'first-secret-0123456789', ADDRESS)).toEqual({ user: 'root' });
    expect(checks()).toBe(1);
    expect(await service.authenticate('root', 'first-secret-0123456789', ADDRESS)).toEqual({ user: 'root' });
    expect(checks()).toBe(1);
    // A wrong secret is always checked in full.
    expect(await service.authenticate('root', 'first-secret-0123456789x', ADDRESS)).toBeUndefined();
    expect(checks()).toBe(2);
    // Another hash stored (as another process issuing a secret would): the remembered secret is checked against it.
    const stored = (await users.get('root'))!.secretHash!;
    const [, n, r, p, salt] = stored.split('$');
    const matchingNothing = `scrypt$${n}$${r}$${p}$${salt}$${Buffer.alloc(32).toString('base64')}`;
    expect(await users.replaceSecretHash('root', stored, matchingNothing)).toBe(true);
    expect(await service.authenticate('root', 'first-secret-0123456789', ADDRESS)).toBeUndefined();
    expect(checks()).toBe(3);
    // The hash it passed against back: remembered again, until the memory's bound has passed.
    expect(await users.replaceSecretHash('root', matchingNothing, stored)).toBe(true);
    expect(await service.authenticate('root', 'first-secret-0123456789', ADDRESS)).toEqual({ user: 'root' });
    expect(checks()).toBe(3);
    ms += CONDUCTOR_SECRET_MEMORY_MS;
    expect(await service.authenticate('root', 'first-secret-0123456789', ADDRESS)).toEqual({ user: 'root' });
    expect(checks()).toBe(4);
  });
});
