import { sql, type Kysely } from 'kysely';
import type { StoredValidationLibrary, ValidationLibrary, ValidationLibraryRepository, ValidationRule } from '../../domain/conductor/validation-libraries.js';
import type { Database } from '../schema.js';

const METADATA = ['name', 'created_at', 'size', 'sha256', 'rule_count'] as const;

const metadataOf = (row: { name: string; created_at: number; size: number; sha256: string; rule_count: number }): ValidationLibrary => ({
  name: row.name,
  createdAt: Number(row.created_at),
  size: Number(row.size),
  sha256: row.sha256,
  ruleCount: Number(row.rule_count),
});

export class KyselyValidationLibraryRepository implements ValidationLibraryRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(library: StoredValidationLibrary, archive: Buffer): Promise<boolean> {
    const result = await this.db
      .insertInto('conductor_validation_libraries')
      .values({
        name: library.name,
        archive,
        size: library.size,
        sha256: library.sha256,
        rules: JSON.stringify(library.rules),
        rule_count: library.ruleCount,
        created_at: library.createdAt,
      })
      // Two uploads of one name may race: the primary key decides, and the loser learns it here.
      .onConflict((oc) => oc.column('name').doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
  }

  async list(prefix: string | undefined): Promise<ValidationLibrary[]> {
    let query = this.db.selectFrom('conductor_validation_libraries').select(METADATA);
    // substr, not LIKE: SQLite's LIKE ignores case and both treat `_` as a wildcard, while prefixes are literal.
    if (prefix !== undefined) query = query.where(sql<string>`substr(name, 1, ${sql.lit(prefix.length)})`, '=', prefix);
    return (await query.execute()).map(metadataOf);
  }

  async get(name: string): Promise<ValidationLibrary | undefined> {
    const row = await this.db.selectFrom('conductor_validation_libraries').select(METADATA).where('name', '=', name).executeTakeFirst();
    return row && metadataOf(row);
  }

  async archive(name: string): Promise<Buffer | undefined> {
    const row = await this.db.selectFrom('conductor_validation_libraries').select('archive').where('name', '=', name).executeTakeFirst();
    return row && Buffer.from(row.archive);
  }

  async delete(name: string): Promise<boolean> {
    const result = await this.db.deleteFrom('conductor_validation_libraries').where('name', '=', name).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async listWithRules(): Promise<StoredValidationLibrary[]> {
    const rows = await this.db.selectFrom('conductor_validation_libraries').select([...METADATA, 'rules']).execute();
    return rows.map((row) => ({ ...metadataOf(row), rules: JSON.parse(row.rules) as ValidationRule[] }));
  }
}
