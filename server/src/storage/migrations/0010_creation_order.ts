import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../database.js';

/**
 * Tables whose lists are ordered by a creation time kept in whole seconds. Rows created in the same second used to
 * fall back on their random UUIDs, so two scans started in one second listed in either order and "the latest
 * scan" could be the older one. `created_seq` numbers rows in the order they were inserted and breaks those ties.
 *
 * A database-assigned number, not ids that sort by time: several server processes share one PostgreSQL database,
 * and only the database orders their inserts; ids already handed out stay valid; and the order does not depend on
 * the hosts' clocks agreeing.
 */
export const CREATION_ORDERED_TABLES = ['environments', 'scans', 'events', 'users', 'notifications', 'invites', 'conductor_processes'] as const;

export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  const postgres = dialect === 'postgres';
  for (const table of CREATION_ORDERED_TABLES) {
    if (postgres) {
      // bigserial numbers the existing rows too, and every later insert from any server process.
      await sql`alter table ${sql.table(table)} add column created_seq bigserial not null`.execute(db);
    } else {
      // SQLite assigns every row a rowid larger than any in the table, so it is the insertion order; a trigger
      // copies it, as SQLite cannot add an auto-incrementing column to an existing table.
      await sql`alter table ${sql.table(table)} add column created_seq integer`.execute(db);
      await sql`update ${sql.table(table)} set created_seq = rowid`.execute(db);
      await sql.raw(
        `create trigger ${table}_created_seq after insert on ${table} for each row when new.created_seq is null ` +
          `begin update ${table} set created_seq = new.rowid where rowid = new.rowid; end`,
      ).execute(db);
    }
    await db.schema.createIndex(`${table}_created_seq`).on(table).column('created_seq').execute();
  }
}

export async function down(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  const postgres = dialect === 'postgres';
  for (const table of CREATION_ORDERED_TABLES) {
    await db.schema.dropIndex(`${table}_created_seq`).execute();
    if (!postgres) await sql.raw(`drop trigger ${table}_created_seq`).execute(db);
    await db.schema.alterTable(table).dropColumn('created_seq').execute();
  }
}
