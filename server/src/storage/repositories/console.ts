import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';
import type { SessionRepository, StoredSession } from '../../domain/repositories.js';
import { prepareQuery } from '../prepared.js';

export class KyselySessionRepository implements SessionRepository {
  private readonly byTokenHash;

  constructor(private readonly db: Kysely<Database>) {
    this.byTokenHash = prepareQuery(db, (p: { tokenHash: string }) => db.selectFrom('console_sessions').selectAll().where('token_hash', '=', p.tokenHash));
  }

  async insert(session: StoredSession): Promise<void> {
    await this.db
      .insertInto('console_sessions')
      .values({
        token_hash: session.tokenHash,
        user_id: session.userId,
        org_id: session.orgId,
        csrf_token: session.csrfToken,
        created_at: session.createdAt,
        expires_at: session.expiresAt,
      })
      .execute();
  }

  async get(tokenHash: string): Promise<StoredSession | undefined> {
    const row = await this.byTokenHash.first({ tokenHash });
    return (
      row && {
        tokenHash: row.token_hash,
        userId: row.user_id,
        orgId: row.org_id,
        csrfToken: row.csrf_token,
        createdAt: row.created_at,
        expiresAt: row.expires_at,
      }
    );
  }

  async delete(tokenHash: string): Promise<void> {
    await this.db.deleteFrom('console_sessions').where('token_hash', '=', tokenHash).execute();
  }
}
