import { randomUUID } from 'node:crypto';

import type { TestServer } from '../../server/test/server.js';
import { must, send, type Call, type OperationStatuses, type StatusContext } from './scenario.js';
import { expect } from '../../server/test/expect.js';

/**
 * The console API: calls as a signed-in browser makes them, with the session cookie and, on changes, the CSRF
 * token. Password hashing is slow on purpose, so one user and one session serve every scenario of a server; the
 * scenarios that end a session or fail sign-ins use users of their own.
 */

const PASSWORD = 'correct horse battery staple';
let counter = 0;
const uniqueEmail = () => `console-${process.pid}-${(counter += 1)}@example.com`;
const uniqueName = (prefix: string) => `${prefix} ${process.pid}-${(counter += 1)}`;

interface Session {
  cookie: string;
  csrf: string;
}

async function newUser(ctx: StatusContext): Promise<string> {
  const email = uniqueEmail();
  await ctx.server.services.consoleAuth.createUser(ctx.server.orgId, email, PASSWORD);
  return email;
}

const signInCall = (email: string, password = PASSWORD): Call => ({ method: 'POST', path: '/console/api/session', auth: null, body: { email, password } });

async function signIn(ctx: StatusContext, email: string): Promise<Session> {
  const answer = await send(ctx, signInCall(email));
  expect(answer.status, answer.text).toBe(200);
  return { cookie: answer.headers.get('set-cookie')!.split(';')[0]!, csrf: answer.body.csrf_token as string };
}

const shared = new WeakMap<TestServer, Promise<Session>>();
/** The session most scenarios share (one per test server). */
function session(ctx: StatusContext): Promise<Session> {
  let found = shared.get(ctx.server);
  if (!found) {
    found = newUser(ctx).then((email) => signIn(ctx, email));
    shared.set(ctx.server, found);
  }
  return found;
}

/** A call of the signed-in browser; changes carry the CSRF token. */
function call(current: Session, method: string, path: string, body?: unknown): Call {
  return {
    method,
    path: `/console/api${path}`,
    auth: null,
    headers: { cookie: current.cookie, ...(method !== 'GET' && { 'x-csrf-token': current.csrf }) },
    ...(body !== undefined && { body }),
  };
}

/** An API client of the shared session's organization, optionally with an active secret. */
async function apiClient(ctx: StatusContext, options: { secret?: boolean } = {}): Promise<string> {
  const current = await session(ctx);
  const created = await must(ctx, call(current, 'POST', '/api-clients', { name: uniqueName('ci') }));
  if (options.secret) await must(ctx, call(current, 'POST', `/api-clients/${created.client_id}/secret`));
  return created.client_id as string;
}

/**
 * A session of a new user whose one group grants `policy` over every environment: what the console lets a user in
 * groups do follows their policies ("Access" in the console spec).
 */
async function sessionInGroup(ctx: StatusContext, policy: string): Promise<Session> {
  const user = await ctx.server.services.consoleAuth.createUser(ctx.server.orgId, uniqueEmail(), PASSWORD);
  const group = await must(ctx, { method: 'POST', path: '/v0/groups', body: { name: uniqueName(policy), policy, environment_ids: ['*'] } });
  await must(ctx, { method: 'PATCH', path: '/v0/users', body: { user_ids: [user.id], group_ids: [group.id] } });
  return signIn(ctx, user.email);
}

const refusedByGroups = (path: (ctx: StatusContext) => Promise<string>) => ({
  how: 'a user whose group grants builtin:ORGANIZATION_REPORT_VIEWER only',
  run: async (ctx: StatusContext) => send(ctx, call(await sessionInGroup(ctx, 'builtin:ORGANIZATION_REPORT_VIEWER'), 'GET', await path(ctx))),
  check: ({ body }: { body: any }) =>
    expect(body).toMatchObject({ type: 'AuthorizationError', message: expect.stringMatching(/ is not allowed\. Your group .* does not let you see the API clients/) }),
});

/** A pending invite's link token (what its email would carry) and its address, made through the compliance API. */
async function invitation(ctx: StatusContext): Promise<{ token: string; email: string }> {
  const group = await must(ctx, { method: 'POST', path: '/v0/groups', body: { name: uniqueName('invited'), policy: 'builtin:AUDITOR', environment_ids: ['*'] } });
  const email = uniqueEmail();
  const invite = await must(ctx, { method: 'POST', path: '/v0/invites', body: { email, group_ids: [group.id] } });
  const token = await ctx.server.services.invitations.mintToken(ctx.server.orgId, invite.id as string);
  return { token: token!, email };
}

/** A call of the invited person's browser: no session, the token in the path. */
const invitationCall = (token: string, method = 'GET', body?: unknown): Call => ({
  method,
  path: `/console/api/invitations/${token}`,
  auth: null,
  ...(body !== undefined && { body }),
});
const acceptCall = (token: string) => invitationCall(token, 'POST', { password: PASSWORD });

let guessers = 0;
/**
 * A link that names no invitation. An unknown token counts as a failed authentication: each is sent from a loopback
 * address of its own, so that the scenarios' guesses never add up to a limit of the address the others use.
 */
const unknownInvitation = (method: string) => ({
  how: 'a token that names no invitation',
  run: async (ctx: StatusContext) => {
    const from = `127.5.${Math.floor((guessers += 1) / 250)}.${(guessers % 250) + 1}`;
    return send(ctx, { ...(method === 'GET' ? invitationCall('A'.repeat(43)) : acceptCall('A'.repeat(43))), from });
  },
  check: ({ body }: { body: any }) => expect(body).toMatchObject({ type: 'NotFound', message: expect.stringMatching(/^This invitation link is not valid: /) }),
});

/** A link whose invitation was accepted already. */
const usedInvitation = (method: string) => ({
  how: 'the link of an invitation accepted already',
  run: async (ctx: StatusContext) => {
    const { token } = await invitation(ctx);
    await must(ctx, acceptCall(token));
    return send(ctx, method === 'GET' ? invitationCall(token) : acceptCall(token));
  },
  check: ({ body }: { body: any }) => expect(body).toMatchObject({ type: 'Gone', message: expect.stringMatching(/^This invitation was accepted already; sign in with /) }),
});

const unknownClient = (method: string, suffix = '') => ({
  how: 'an unknown client id',
  run: async (ctx: StatusContext) => send(ctx, call(await session(ctx), method, `/api-clients/cl_${randomUUID().replace(/-/g, '')}${suffix}`)),
  check: ({ body }: { body: any }) => expect(body).toMatchObject({ type: 'NotFound', message: expect.stringMatching(/^API client .* not found$/) }),
});

export const CONSOLE_OPERATIONS: OperationStatuses[] = [
  {
    api: 'console',
    operationId: 'signIn',
    valid: async (ctx) => signInCall(await newUser(ctx)),
    success: {
      status: 200,
      check: ({ body, headers }) => {
        expect(body).toMatchObject({ user: { email: expect.stringMatching(/^console-/) }, csrf_token: expect.any(String) });
        const [pair, ...attributes] = headers.get('set-cookie')!.split('; ');
        expect(pair).toMatch(/^console_session=[^;]+$/);
        expect(attributes).toEqual(expect.arrayContaining(['Path=/console', 'HttpOnly', 'SameSite=Strict']));
      },
    },
    cases: {
      401: {
        how: 'a wrong password',
        run: async (ctx) => send(ctx, signInCall(await newUser(ctx), 'not the password at all')),
        check: ({ body }) => expect(body).toEqual({ type: 'AuthenticationError', code: 401, message: 'Invalid email or password' }),
      },
    },
  },
  {
    api: 'console',
    operationId: 'getSession',
    // The session was read while authenticating; the handler only presents it.
    fault: 'handler',
    valid: async (ctx) => call(await session(ctx), 'GET', '/session'),
    success: { status: 200, check: ({ body }) => expect(body).toMatchObject({ csrf_token: expect.any(String), user: { email: expect.any(String) } }) },
  },
  {
    api: 'console',
    operationId: 'signOut',
    // Signing out ends the session: each scenario signs in a user of its own.
    valid: async (ctx) => call(await signIn(ctx, await newUser(ctx)), 'DELETE', '/session'),
    success: { status: 204, check: ({ headers }) => expect(headers.get('set-cookie')).toMatch(/Max-Age=0/) },
  },
  {
    api: 'console',
    operationId: 'listApiClients',
    valid: async (ctx) => {
      await apiClient(ctx);
      return call(await session(ctx), 'GET', '/api-clients');
    },
    success: { status: 200, check: ({ body }) => expect(body.total).toBeGreaterThan(0) },
    cases: { 403: refusedByGroups(async () => '/api-clients') },
  },
  {
    api: 'console',
    operationId: 'createApiClient',
    valid: async (ctx) => call(await session(ctx), 'POST', '/api-clients', { name: uniqueName('deploy') }),
    success: { status: 201, check: ({ body }) => expect(body).toMatchObject({ status: 'Created', secret_created_at: null }) },
    cases: {
      409: {
        how: 'a name another client has',
        run: async (ctx) => {
          const current = await session(ctx);
          const name = uniqueName('twice');
          await must(ctx, call(current, 'POST', '/api-clients', { name }));
          return send(ctx, call(current, 'POST', '/api-clients', { name }));
        },
        check: ({ body }) => expect(body).toMatchObject({ type: 'Conflict', message: expect.stringMatching(/^an API client named .* exists$/) }),
      },
    },
  },
  {
    api: 'console',
    operationId: 'getApiClient',
    valid: async (ctx) => call(await session(ctx), 'GET', `/api-clients/${await apiClient(ctx)}`),
    success: { status: 200, check: ({ body }) => expect(body).toMatchObject({ status: 'Created' }) },
    cases: { 403: refusedByGroups(async (ctx) => `/api-clients/${await apiClient(ctx)}`), 404: unknownClient('GET') },
  },
  {
    api: 'console',
    operationId: 'deleteApiClient',
    valid: async (ctx) => call(await session(ctx), 'DELETE', `/api-clients/${await apiClient(ctx)}`),
    success: { status: 204, check: ({ text }) => expect(text).toBe('') },
    cases: { 404: unknownClient('DELETE') },
  },
  {
    api: 'console',
    operationId: 'generateApiClientSecret',
    valid: async (ctx) => call(await session(ctx), 'POST', `/api-clients/${await apiClient(ctx)}/secret`),
    success: {
      status: 201,
      check: ({ body }) => expect(body).toMatchObject({ client_secret: expect.any(String), api_client: { status: 'Active' } }),
    },
    cases: { 404: unknownClient('POST', '/secret') },
  },
  {
    api: 'console',
    operationId: 'revokeApiClientSecret',
    valid: async (ctx) => call(await session(ctx), 'DELETE', `/api-clients/${await apiClient(ctx, { secret: true })}/secret`),
    success: { status: 200, check: ({ body }) => expect(body).toMatchObject({ status: 'Secret Revoked', secret_created_at: null }) },
    cases: {
      404: unknownClient('DELETE', '/secret'),
      409: {
        how: 'a client without an active secret',
        run: async (ctx) => send(ctx, call(await session(ctx), 'DELETE', `/api-clients/${await apiClient(ctx)}/secret`)),
        check: ({ body }) => expect(body).toMatchObject({ type: 'Conflict', message: expect.stringMatching(/has no active secret to revoke$/) }),
      },
    },
  },
  {
    api: 'console',
    operationId: 'getInvitation',
    valid: async (ctx) => invitationCall((await invitation(ctx)).token),
    success: { status: 200, check: ({ body }) => expect(body).toMatchObject({ email: expect.stringMatching(/^console-/), groups: [{ policy: 'builtin:AUDITOR' }] }) },
    cases: { 404: unknownInvitation('GET'), 410: usedInvitation('GET') },
  },
  {
    api: 'console',
    operationId: 'acceptInvitation',
    valid: async (ctx) => acceptCall((await invitation(ctx)).token),
    success: {
      status: 200,
      check: ({ body, headers }) => {
        expect(body).toMatchObject({ user: { email: expect.stringMatching(/^console-/) }, access: { api_clients: 'read' } });
        expect(headers.get('set-cookie')).toMatch(/^console_session=[^;]+; /);
      },
    },
    cases: {
      404: unknownInvitation('POST'),
      409: {
        how: 'an invited address that belongs to a user of another organization',
        run: async (ctx) => {
          const { token, email } = await invitation(ctx);
          const other = await ctx.server.services.organizations.ensure(uniqueName('elsewhere'));
          await ctx.server.services.consoleAuth.createUser(other.id, email, PASSWORD);
          return send(ctx, acceptCall(token));
        },
        check: ({ body }) => expect(body).toMatchObject({ type: 'Conflict', message: expect.stringMatching(/ already belongs to a user; an email address signs in to one organization only$/) }),
      },
      410: usedInvitation('POST'),
    },
  },
];
