import type { Kysely, SelectQueryBuilder, Transaction } from 'kysely';
import type { Database } from '../schema.js';

/** Makes a select inside `lockedTransaction` lock the rows it reads until the transaction ends. */
export type ForUpdate = <DB, TB extends keyof DB, O>(query: SelectQueryBuilder<DB, TB, O>) => SelectQueryBuilder<DB, TB, O>;

const forUpdate: ForUpdate = (query) => query.forUpdate();

/**
 * The one way a repository reads a record it is about to rewrite: in a transaction, with the rows `forUpdate` is
 * applied to locked, so a concurrent read-modify-write of the same record waits for this one to commit and then
 * sees its result. PostgreSQL takes row locks (SELECT … FOR UPDATE); SQLite has none, but every transaction there
 * begins IMMEDIATE, taking the database's write lock before its first read, and its query compiler leaves the
 * clause out (see database.ts).
 *
 * On SQLite the transaction holds the process's only connection: `work` must make every query through `trx`.
 */
export function lockedTransaction<T>(db: Kysely<Database>, work: (trx: Transaction<Database>, forUpdate: ForUpdate) => Promise<T>): Promise<T> {
  return db.transaction().execute((trx) => work(trx, forUpdate));
}
