import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe } from '@jest/globals';
import { migrateToLatest, openDatabase, type DatabaseHandle } from '../src/storage/database.js';
import { adminQuery } from './postgres.js';

/**
 * Component tests run against every database the product supports: SQLite always, PostgreSQL whenever
 * TEST_DATABASE_URL names one (CI sets it). Each test gets a fresh, migrated database: an in-memory SQLite, or
 * a PostgreSQL schema of its own that is dropped afterwards.
 */
interface Target {
  name: 'sqlite' | 'postgres';
  url: string;
}

const postgresUrl = process.env.TEST_DATABASE_URL;
export const DATABASE_TARGETS: Target[] = [
  { name: 'sqlite', url: 'sqlite::memory:' },
  ...(postgresUrl ? [{ name: 'postgres' as const, url: postgresUrl }] : []),
];

if (!postgresUrl && !process.env.CI) {
  console.warn('TEST_DATABASE_URL is not set: component tests run on SQLite only');
}
if (!postgresUrl && process.env.CI) {
  throw new Error('TEST_DATABASE_URL must name a PostgreSQL database in CI');
}

export interface TestDatabase {
  target: Target;
  handle: DatabaseHandle;
}


export async function openTestDatabase(target: Target): Promise<TestDatabase & { dispose(): Promise<void> }> {
  if (target.name === 'sqlite') {
    const handle = openDatabase(target.url);
    await migrateToLatest(handle);
    return { target, handle, dispose: () => handle.close() };
  }
  const schema = `test_${randomBytes(6).toString('hex')}`;
  await adminQuery(target.url, `create schema ${schema}`);
  const handle = openDatabase(target.url, { schema });
  await migrateToLatest(handle);
  return {
    target,
    handle,
    dispose: async () => {
      await handle.close();
      await adminQuery(target.url, `drop schema ${schema} cascade`);
    },
  };
}

/**
 * `describe` once per database target, with a fresh database for every test, or (`scope: 'suite'`) one database
 * for the whole suite, for API tests that isolate their tests by organization instead.
 */
export function describeEachDatabase(title: string, body: (db: () => TestDatabase) => void, scope: 'test' | 'suite' = 'test'): void {
  const [before, after] = scope === 'test' ? [beforeEach, afterEach] : [beforeAll, afterAll];
  for (const target of DATABASE_TARGETS) {
    describe(`${title} [${target.name}]`, () => {
      let current: (TestDatabase & { dispose(): Promise<void> }) | undefined;
      before(async () => {
        current = await openTestDatabase(target);
      });
      after(async () => {
        await current?.dispose();
        current = undefined;
      });
      body(() => {
        if (!current) throw new Error('no test database open');
        return current;
      });
    });
  }
}
