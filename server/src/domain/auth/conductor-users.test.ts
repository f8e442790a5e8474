import { mkdtemp, readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from '@jest/globals';
import { describeEachDatabase } from '../../../test/databases.js';
import { KyselyConductorUserRepository } from '../../storage/repositories/conductor-users.js';
import { ManualClock } from '../clock.js';
import { ConductorUserService } from './conductor-users.js';

describeEachDatabase('conductor root secret', (db) => {
  const setup = async () => {
    const service = new ConductorUserService(new KyselyConductorUserRepository(db().handle.db), new ManualClock());
    const file = join(await mkdtemp(join(tmpdir(), 'root-secret-')), 'nested', 'conductor-root-secret');
    return { service, file };
  };

  it('uses the configured secret, and a new configured secret replaces the old one at once', async () => {
    const { service, file } = await setup();
    await service.ensureRoot({ configured: 'first-secret-0123456789', file });
    expect(await service.authenticate('root', 'first-secret-0123456789')).toEqual({ user: 'root' });
    await service.ensureRoot({ configured: 'second-secret-0123456789', file });
    expect(await service.authenticate('root', 'first-secret-0123456789')).toBeUndefined();
    expect(await service.authenticate('root', 'second-secret-0123456789')).toEqual({ user: 'root' });
  });

  it('without configuration, generates a secret once into an owner-only file and keeps it across restarts', async () => {
    const { service, file } = await setup();
    expect(await service.ensureRoot({ configured: undefined, file })).toBe(file);
    const secret = (await readFile(file, 'utf8')).trim();
    expect(secret.length).toBeGreaterThanOrEqual(43);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(await service.authenticate('root', secret)).toEqual({ user: 'root' });

    expect(await service.ensureRoot({ configured: undefined, file })).toBeUndefined();
    expect((await readFile(file, 'utf8')).trim()).toBe(secret);
  });

  it('refuses unknown users and wrong secrets alike', async () => {
    const { service, file } = await setup();
    await service.ensureRoot({ configured: 'first-secret-0123456789', file });
    expect(await service.authenticate('root', 'nope')).toBeUndefined();
    expect(await service.authenticate('alice', 'first-secret-0123456789')).toBeUndefined();
  });
});
