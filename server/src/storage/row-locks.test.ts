import { it } from '@jest/globals';
import { describeEachDatabase } from '../../test/databases.js';
import { expect } from '../../test/expect.js';

/**
 * A repository locks the rows it reads to rewrite them the same way on either dialect: PostgreSQL takes the row locks;
 * SQLite, which has none and refuses the clauses, runs the select without them, its transactions holding the write
 * lock from their start (database.ts).
 */
describeEachDatabase('rows read to be rewritten', (db) => {
  it('are locked on PostgreSQL, and read without a lock clause on SQLite, where the transaction holds the write lock', async () => {
    const { handle } = db();
    await handle.db.insertInto('organizations').values({ id: 'org-1', name: 'one', created_at: 1 }).execute();
    const locking = handle.db.selectFrom('organizations').select('id').where('id', '=', 'org-1');
    for (const query of [locking.forUpdate(), locking.forNoKeyUpdate(), locking.forShare(), locking.forUpdate().skipLocked(), locking.forUpdate().noWait()]) {
      const { sql } = query.compile();
      if (handle.dialect === 'postgres') expect(sql).toMatch(/ for (update|no key update|share)( skip locked| nowait)?$/);
      else expect(sql).toBe('select "id" from "organizations" where "id" = ?');
      expect(await handle.db.transaction().execute((trx) => trx.executeQuery(query))).toMatchObject({ rows: [{ id: 'org-1' }] });
    }
  });
});
