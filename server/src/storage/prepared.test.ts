import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import type { Kysely } from 'kysely';
import { migrateToLatest, openDatabase, type DatabaseHandle } from './database.js';
import { prepareQuery } from './prepared.js';
import type { Database } from './schema.js';
import { expect } from '../../test/expect.js';

/**
 * A prepared query answers what the same query built anew answers, for any arguments; and on SQLite its direct
 * read never sees a transaction's rows before they are committed.
 */
describe('prepared queries', () => {
  let dir: string;
  let handle: DatabaseHandle;
  let db: Kysely<Database>;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'prepared-'));
    handle = openDatabase(`sqlite:${join(dir, 'app.db')}`);
    await migrateToLatest(handle);
    db = handle.db;
    for (const [id, name] of [
      ['o1', 'one'],
      ['o2', 'two'],
      ['o3', 'three'],
    ]) {
      await db.insertInto('organizations').values({ id: id!, name: name!, created_at: 1 }).execute();
    }
  });
  afterAll(async () => {
    await handle.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('puts each argument where its placeholder was compiled, whatever the order of use', async () => {
    const build = (p: { name: string; limit: number; offset: number }) =>
      db.selectFrom('organizations').selectAll().where('name', '!=', p.name).orderBy('id').limit(p.limit).offset(p.offset);
    const prepared = prepareQuery(db, build);
    for (const args of [
      { name: 'two', limit: 1, offset: 1 },
      { name: 'one', limit: 5, offset: 0 },
      { name: 'none', limit: 2, offset: 1 },
    ]) {
      expect(await prepared.rows(args)).toEqual(await build(args).execute());
    }
    expect(await prepared.first({ name: 'one', limit: 1, offset: 0 })).toEqual(await build({ name: 'one', limit: 1, offset: 0 }).executeTakeFirst());
    expect(await prepared.first({ name: 'x', limit: 1, offset: 9 })).toBeUndefined();
  });

  it('refuses an argument used other than as a value', async () => {
    const prepared = prepareQuery(db, (p: { limit: number }) => db.selectFrom('organizations').selectAll().limit(p.limit + 1));
    await expect(prepared.rows({ limit: 1 })).rejects.toThrow(/limit not used as a value/);
  });

  it('is compiled once with plugins too: a plugin sees the query compiled once and the result of every run', async () => {
    const seen = { compiled: 0, results: 0 };
    const plugged = db.withPlugin({
      transformQuery: ({ node }) => {
        seen.compiled += 1;
        return node;
      },
      transformResult: async ({ result }) => {
        seen.results += 1;
        return result;
      },
    });
    const byId = prepareQuery(plugged, (p: { id: string }) => plugged.selectFrom('organizations').selectAll().where('id', '=', p.id));
    for (const [id, name] of [
      ['o1', 'one'],
      ['o2', 'two'],
      ['o3', 'three'],
    ]) {
      expect(await byId.first({ id: id! })).toMatchObject({ name });
    }
    expect(seen).toEqual({ compiled: 1, results: 3 });
  });

  it('does not read what a transaction has not committed yet', async () => {
    const byId = prepareQuery(db, (p: { id: string }) => db.selectFrom('organizations').selectAll().where('id', '=', p.id));
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const transaction = db.transaction().execute(async (trx) => {
      await trx.insertInto('organizations').values({ id: 'o4', name: 'four', created_at: 1 }).execute();
      await held;
      throw new Error('rolled back');
    });
    // The read waits for the connection instead of reading inside the open transaction.
    const read = byId.first({ id: 'o4' });
    await new Promise((resolve) => setTimeout(resolve, 20));
    release();
    await expect(transaction).rejects.toThrow('rolled back');
    expect(await read).toBeUndefined();
    expect(await byId.first({ id: 'o1' })).toMatchObject({ name: 'one' });
  });
});
