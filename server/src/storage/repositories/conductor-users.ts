import type { Kysely, Selectable } from 'kysely';
import type { ConductorUsersTable, Database } from '../schema.js';
import type { ConductorUser, ConductorUserRepository } from '../../domain/repositories.js';
import { prepareQuery } from '../prepared.js';

const userOf = (row: Selectable<ConductorUsersTable>): ConductorUser => ({
  name: row.name,
  secretHash: row.secret_hash,
  secretCreatedAt: row.secret_created_at,
  createdAt: row.created_at,
});

export class KyselyConductorUserRepository implements ConductorUserRepository {
  private readonly byName;

  constructor(private readonly db: Kysely<Database>) {
    this.byName = prepareQuery(db, (p: { name: string }) => db.selectFrom('conductor_users').selectAll().where('name', '=', p.name));
  }

  async get(name: string): Promise<ConductorUser | undefined> {
    const row = await this.byName.first({ name });
    return row && userOf(row);
  }

  async list(): Promise<ConductorUser[]> {
    const rows = await this.db.selectFrom('conductor_users').selectAll().execute();
    return rows.map(userOf);
  }

  async setSecret(name: string, secretHash: string, secretCreatedAt: number): Promise<boolean> {
    const result = await this.db
      .updateTable('conductor_users')
      .set({ secret_hash: secretHash, secret_created_at: secretCreatedAt })
      .where('name', '=', name)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async replaceSecretHash(name: string, expected: string, replacement: string): Promise<boolean> {
    const result = await this.db
      .updateTable('conductor_users')
      .set({ secret_hash: replacement })
      .where('name', '=', name)
      .where('secret_hash', '=', expected)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async upsert(user: ConductorUser): Promise<void> {
    const values = {
      name: user.name,
      secret_hash: user.secretHash,
      secret_created_at: user.secretCreatedAt,
      created_at: user.createdAt,
    };
    await this.db
      .insertInto('conductor_users')
      .values(values)
      .onConflict((oc) => oc.column('name').doUpdateSet({ secret_hash: values.secret_hash, secret_created_at: values.secret_created_at }))
      .execute();
  }
}
