import type { ConsoleSession } from '../../domain/console/sessions.js';
import type { Schemas } from './types.js';

/** The session as signIn, getSession and acceptInvitation answer it; a user without a name is shown by email. */
export function sessionBody(session: ConsoleSession): Schemas['Session'] {
  const { user, organization, access } = session;
  const name = [user.firstName, user.lastName].filter(Boolean).join(' ') || user.email;
  return {
    user: { id: user.id, email: user.email, name },
    organization: { id: organization.id, name: organization.name },
    csrf_token: session.csrfToken,
    expires_at: session.expiresAt,
    access: { api_clients: access.apiClients, reason: access.reason },
  };
}
