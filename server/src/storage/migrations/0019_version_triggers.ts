import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../database.js';

/**
 * The versions of migration 0014 moved by the database itself, so that every write moves them — the server's, and
 * SQL from psql or sqlite3, a migration's backfill, a restored backup alike:
 * - a row of `environments` inserted or updated gets a new `version`;
 * - the organization's `environment_list_versions` row gets a new version whenever one of its environments is
 *   inserted, updated or deleted;
 * - a scan inserted or updated (its status, its summary) moves its environment's version, since an environment's
 *   answer shows its latest scan's state and summary.
 * Versions stay random (0014 says why). On SQLite an AFTER trigger writes the row again (a BEFORE trigger cannot
 * change the row being written); it does not fire itself again, SQLite's recursive triggers being off.
 */
/** A version for SQLite: a random whole number from 1 to 2^48 - 1, as the server drew them before. */
const RANDOM_VERSION_SQLITE = '(abs(random() % 281474976710655) + 1)';

/** SQLite: a new list version for the organization `org` (an expression of the trigger's row). */
const listVersionSqlite = (org: string) =>
  `insert into environment_list_versions (org_id, version) values (${org}, ${RANDOM_VERSION_SQLITE})
     on conflict (org_id) do update set version = excluded.version;`;

export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  if (dialect === 'postgres') {
    await sql`
      create function environment_row_version() returns trigger language plpgsql as $$
      begin
        new.version := floor(random() * 281474976710655)::bigint + 1;
        return new;
      end $$`.execute(db);
    await sql`
      create function environment_list_version() returns trigger language plpgsql as $$
      declare
        org text := case when tg_op = 'DELETE' then old.org_id else new.org_id end;
      begin
        insert into environment_list_versions (org_id, version) values (org, floor(random() * 281474976710655)::bigint + 1)
          on conflict (org_id) do update set version = excluded.version;
        return null;
      end $$`.execute(db);
    await sql`
      create function scan_environment_version() returns trigger language plpgsql as $$
      begin
        update environments set version = version where id = new.environment_id;
        return null;
      end $$`.execute(db);
    await sql`create trigger environments_row_version before insert or update on environments
      for each row execute function environment_row_version()`.execute(db);
    await sql`create trigger environments_list_version after insert or update or delete on environments
      for each row execute function environment_list_version()`.execute(db);
    await sql`create trigger scans_environment_version after insert or update on scans
      for each row execute function scan_environment_version()`.execute(db);
    return;
  }
  const triggers = [
    `create trigger environments_version_insert after insert on environments for each row begin
       update environments set version = ${RANDOM_VERSION_SQLITE} where id = new.id;
       ${listVersionSqlite('new.org_id')}
     end`,
    `create trigger environments_version_update after update on environments for each row begin
       update environments set version = ${RANDOM_VERSION_SQLITE} where id = new.id;
       ${listVersionSqlite('new.org_id')}
     end`,
    `create trigger environments_version_delete after delete on environments for each row begin
       ${listVersionSqlite('old.org_id')}
     end`,
    // Updating the environment fires its own trigger, which draws the versions.
    ...['insert', 'update'].map(
      (event) => `create trigger scans_environment_version_${event} after ${event} on scans for each row begin
         update environments set version = version where id = new.environment_id;
       end`,
    ),
  ];
  for (const trigger of triggers) await sql.raw(trigger).execute(db);
}

export async function down(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  if (dialect === 'postgres') {
    await sql`drop trigger scans_environment_version on scans`.execute(db);
    await sql`drop trigger environments_list_version on environments`.execute(db);
    await sql`drop trigger environments_row_version on environments`.execute(db);
    await sql`drop function scan_environment_version()`.execute(db);
    await sql`drop function environment_list_version()`.execute(db);
    await sql`drop function environment_row_version()`.execute(db);
    return;
  }
  for (const name of ['scans_environment_version_update', 'scans_environment_version_insert', 'environments_version_delete', 'environments_version_update', 'environments_version_insert']) {
    await sql`drop trigger ${sql.raw(name)}`.execute(db);
  }
}
