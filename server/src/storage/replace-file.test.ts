import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { sql } from 'kysely';
import { describe, expect, it } from '@jest/globals';
import { migrateToLatest, openDatabase } from './database.js';
import { prepareQuery } from './prepared.js';
import { buildSqliteFile } from './sqlite-build.js';

/**
 * `replaceFile` (database.ts), as the stateful mock loads its scenarios: another file moved into place of the open
 * database, read from then on by the same handle, its query builder and its prepared queries.
 */
describe('replacing the file of an open SQLite database', () => {
  it('reads the new file through the same handle and prepared queries, with nothing of the old one left', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'replace-file-'));
    const path = join(dir, 'app.db');
    const handle = openDatabase(`sqlite:${path}`);
    try {
      await migrateToLatest(handle);
      await sql`INSERT INTO organizations (id, name, created_at) VALUES ('org-old', 'old', 1)`.execute(handle.db);
      const names = prepareQuery(handle.db, (p: { id: string }) => handle.db.selectFrom('organizations').select('name').where('id', '=', p.id));
      expect(await names.rows({ id: 'org-old' })).toEqual([{ name: 'old' }]);

      // Another database of the same schema, filled apart (as the mock fills its scenarios), the old one's last
      // write still in its log.
      const other = join(dir, 'other.db');
      const copy = new SqliteDatabase(path, { readonly: true });
      await copy.backup(other);
      copy.close();
      await buildSqliteFile(other, { statements: ["DELETE FROM organizations", "INSERT INTO organizations (id, name, created_at) VALUES ('org-new', 'new', 2)"] });
      await sql`INSERT INTO organizations (id, name, created_at) VALUES ('org-late', 'late', 3)`.execute(handle.db);

      await handle.db.connection().execute(() => handle.replaceFile!(other));
      expect(await names.rows({ id: 'org-new' })).toEqual([{ name: 'new' }]);
      expect(await names.rows({ id: 'org-old' })).toEqual([]);
      expect(await handle.db.selectFrom('organizations').select('id').execute()).toEqual([{ id: 'org-new' }]);
      // Writable, in a transaction as every write is.
      await handle.db.transaction().execute((trx) => sql`INSERT INTO organizations (id, name, created_at) VALUES ('org-after', 'after', 4)`.execute(trx));
      expect(await names.rows({ id: 'org-after' })).toEqual([{ name: 'after' }]);
      expect(existsSync(other)).toBe(false);
      // The old file is removed in the background.
      for (const deadline = Date.now() + 10_000; (await readdir(dir)).some((name) => name.includes('.replaced-')); ) {
        if (Date.now() > deadline) throw new Error(`the old file is left: ${(await readdir(dir)).join(', ')}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    } finally {
      await handle.close();
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('keeps the file it has when the new one cannot be moved into place', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'replace-file-'));
    const handle = openDatabase(`sqlite:${join(dir, 'app.db')}`);
    try {
      await migrateToLatest(handle);
      await sql`INSERT INTO organizations (id, name, created_at) VALUES ('org-kept', 'kept', 1)`.execute(handle.db);
      await expect(handle.db.connection().execute(() => handle.replaceFile!(join(dir, 'missing.db')))).rejects.toThrow(/ENOENT/);
      expect(await handle.db.selectFrom('organizations').select('id').execute()).toEqual([{ id: 'org-kept' }]);
    } finally {
      await handle.close();
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
