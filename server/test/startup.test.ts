import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, it, jest } from '@jest/globals';
import { bootstrap } from '../src/bootstrap.js';
import { loadConfig } from '../src/config.js';
import { ManualClock } from '../src/domain/clock.js';
import { DEFAULT_ORGANIZATION } from '../src/domain/organizations/service.js';
import type { Services } from '../src/services.js';
import { openDatabase, type DatabaseHandle } from '../src/storage/database.js';
import { DATABASE_TARGETS } from './databases.js';
import { expect } from './expect.js';
import { adminQuery } from './postgres.js';

/** Processes that start at the same moment on one fresh database: the start-up main.ts runs, several times at once. */
const STARTS = 4;

/** A fresh database every start shares: a schema of the PostgreSQL database, or a new SQLite file. */
async function freshDatabase(target: (typeof DATABASE_TARGETS)[number]): Promise<{ url: string; open(): DatabaseHandle; dispose(): Promise<void> }> {
  if (target.name === 'postgres') {
    const schema = `test_${randomBytes(6).toString('hex')}`;
    await adminQuery(target.url, `create schema ${schema}`);
    return { url: target.url, open: () => openDatabase(target.url, { schema }), dispose: () => adminQuery(target.url, `drop schema ${schema} cascade`) };
  }
  const dir = await mkdtemp(join(tmpdir(), 'startup-db-'));
  const url = `sqlite:${join(dir, 'app.db')}`;
  return { url, open: () => openDatabase(url), dispose: () => rm(dir, { recursive: true, force: true }) };
}

describe.each(DATABASE_TARGETS)('start-up of several servers on one fresh $name database', (target) => {
  beforeAll(() => {
    // Each start announces the secrets and demo credentials it generated.
    jest.spyOn(console, 'log').mockImplementation(() => undefined);
  });

  const startAll = async (env: Record<string, string>) => {
    const database = await freshDatabase(target);
    const files = await mkdtemp(join(tmpdir(), 'startup-'));
    const config = loadConfig({
      DATABASE_URL: database.url,
      CONDUCTOR_ROOT_SECRET_FILE: join(files, 'conductor-root-secret'),
      CONSOLE_ADMIN_PASSWORD_FILE: join(files, 'console-admin-password'),
      ...env,
    });
    // Each handle is a connection of its own, as each server process has.
    const handles: DatabaseHandle[] = Array.from({ length: STARTS }, () => database.open());
    try {
      const started = await Promise.allSettled(handles.map((handle) => bootstrap(config, new ManualClock(), handle)));
      return { started, handles, dispose: database.dispose };
    } catch (error) {
      await Promise.all(handles.map((h) => h.close()));
      await database.dispose();
      throw error;
    }
  };

  const count = async (handle: DatabaseHandle, table: 'organizations' | 'users' | 'conductor_users' | 'api_clients' | 'environments' | 'conductor_accounts' | 'conductor_processes') => {
    const row = await handle.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    return Number(row.n);
  };

  it(`${STARTS} servers started at once all come up and leave one default organization, admin and root`, async () => {
    const { started, handles, dispose } = await startAll({ CONDUCTOR_ROOT_SECRET: 'a-root-secret-long-enough-for-tests', CONSOLE_ADMIN_PASSWORD: 'an admin password' });
    try {
      for (const [i, outcome] of started.entries()) expect(outcome.status, `start ${i}: ${String((outcome as PromiseRejectedResult).reason)}`).toBe('fulfilled');
      const db = handles[0]!;
      expect(await count(db, 'organizations')).toBe(1);
      expect(await count(db, 'users')).toBe(1);
      expect(await count(db, 'conductor_users')).toBe(1);
    } finally {
      await Promise.all(handles.map((h) => h.close()));
      await dispose();
    }
  });

  it(`${STARTS} servers started at once with demo data and generated secrets seed the demo once`, async () => {
    const { started, handles, dispose } = await startAll({ DEMO_DATA: 'true', SIM_DRIFT_RATE: '0.02' });
    try {
      for (const [i, outcome] of started.entries()) expect(outcome.status, `start ${i}: ${String((outcome as PromiseRejectedResult).reason)}`).toBe('fulfilled');
      const db = handles[0]!;
      expect(await count(db, 'organizations')).toBe(1);
      expect(await count(db, 'users')).toBe(1);
      expect(await count(db, 'conductor_users')).toBe(1);
      expect(await count(db, 'api_clients')).toBe(1);
      expect(await count(db, 'environments')).toBe(3);
      expect(await count(db, 'conductor_accounts')).toBe(1);
      expect(await count(db, 'conductor_processes')).toBe(1);
      // Every server sees the same organization.
      const orgIds = await Promise.all(
        started.map((outcome) => (outcome as PromiseFulfilledResult<Services>).value.organizations.ensure(DEFAULT_ORGANIZATION).then((org) => org.id)),
      );
      expect(new Set(orgIds).size).toBe(1);
    } finally {
      await Promise.all(handles.map((h) => h.close()));
      await dispose();
    }
  }, 120_000);
});
