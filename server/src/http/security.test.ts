import { describe, expect, it } from '@jest/globals';
import type { Services } from '../services.js';
import { consoleSecurity } from './security.js';

const SESSION = { user: { email: 'ada@example.com' }, organization: { id: 'org-1' }, csrfToken: 'csrf-1', expiresAt: 2_000_000_000 };

/** The console's schemes over a session service that answers `token-1` and counts its lookups. */
function schemes() {
  const lookups: string[] = [];
  const services = {
    consoleAuth: {
      session: async (token: string) => {
        lookups.push(token);
        return token === 'token-1' ? SESSION : undefined;
      },
    },
  } as unknown as Services;
  return { lookups, ...consoleSecurity(services) } as { lookups: string[]; consoleSession: (req: never) => Promise<boolean>; csrfToken: (req: never) => Promise<boolean> };
}

const request = (cookie: string | undefined, csrf?: string) => {
  const headers: Record<string, string> = cookie === undefined ? {} : { cookie };
  return { headers, get: (name: string) => (name.toLowerCase() === 'x-csrf-token' ? csrf : undefined) } as { headers: Record<string, string>; principal?: unknown };
};

describe('the console schemes', () => {
  it('look a request’s session up once for both schemes, and again for the next request', async () => {
    const { lookups, consoleSession, csrfToken } = schemes();
    const first = request('console_session=token-1', 'csrf-1');
    expect(await Promise.all([consoleSession(first as never), csrfToken(first as never)])).toEqual([true, true]);
    expect(first.principal).toEqual({ session: SESSION, token: 'token-1' });
    expect(lookups).toEqual(['token-1']);
    const second = request('console_session=token-1', 'csrf-1');
    expect(await consoleSession(second as never)).toBe(true);
    expect(lookups).toEqual(['token-1', 'token-1']);
  });

  it('refuse a request without a session or with an unknown one, and a wrong CSRF token with 403', async () => {
    const { lookups, consoleSession, csrfToken } = schemes();
    expect(await consoleSession(request(undefined) as never)).toBe(false);
    expect(lookups).toEqual([]);
    expect(await consoleSession(request('console_session=token-2') as never)).toBe(false);
    await expect(csrfToken(request('console_session=token-1', 'csrf-2') as never)).rejects.toMatchObject({ status: 403 });
  });
});
