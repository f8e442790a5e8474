import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, beforeEach, it } from '@jest/globals';
import { INVITATION_IDENTITY } from '../src/domain/access/invitations.js';
import { DEFAULT_AUTHENTICATION_LIMITS } from '../src/domain/auth/throttle.js';
import { PROJECT_ROOT } from '../src/paths.js';
import type { TestServerOptions } from './server.js';
import { CapturedLog } from './captured-log.js';
import { describeEachDatabase } from './databases.js';
import { expect } from './expect.js';
import { useTestServer, type TestServer } from './server.js';
import { invitationLink, SmtpSink } from './smtp-sink.js';

/**
 * Invites accepted: creating an invite emails a one-time link into the console (to a local SMTP sink), the console
 * API reads and accepts it, and the new user signs in and acts through the invite's groups.
 */

const run = promisify(execFile);
const PASSWORD = 'a long enough password';
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
let counter = 0;
const uniqueEmail = (stem = 'invitee') => `${stem}-${process.pid}-${(counter += 1)}@example.com`;
const WEEK = 7 * 24 * 3600;
/** Unix seconds as the invitation email and messages write them. */
const utc = (seconds: number) => `${new Date(seconds * 1000).toISOString().slice(0, 10)} at ${new Date(seconds * 1000).toISOString().slice(11, 16)} UTC`;

describeEachDatabase(
  'invitations accepted in the console',
  (db) => {
    const sink = new SmtpSink();
    const log = new CapturedLog();
    // Filled in once the sink listens, before the server starts: hooks run in the order they are declared.
    const options: TestServerOptions = { requestLog: log.logger };
    beforeAll(async () => {
      await sink.start();
      options.notifications = { smtpUrl: sink.url, smtpFrom: 'Compliance <invites@compliance.test>' };
    });
    afterAll(() => sink.stop());
    const testServer = useTestServer(db, options);
    let server: TestServer;
    beforeEach(() => {
      server = testServer();
    });

    const organizationName = async () =>
      (await db().handle.db.selectFrom('organizations').select('name').where('id', '=', server.orgId).executeTakeFirstOrThrow()).name;

    const group = async (policy: string, environmentIds: string[] = ['*']) => {
      const res = await server.request('POST', '/v0/groups', { body: { name: `${policy} ${(counter += 1)}`, policy, environment_ids: environmentIds } });
      expect(res.status, res.text).toBe(201);
      return res.body as { id: string; name: string };
    };

    /** An invite into groups of these policies, emailed through the sink: its id, address and link's token. */
    const invited = async (policies: string[] = ['builtin:AUDITOR'], extra: Record<string, unknown> = {}) => {
      const groups = [];
      for (const policy of policies) groups.push(await group(policy));
      const email = uniqueEmail();
      const res = await server.request('POST', '/v0/invites', { body: { email, group_ids: groups.map((g) => g.id), ...extra } });
      expect(res.status, res.text).toBe(201);
      while (await server.services.jobs.runOnce());
      const [mail, ...more] = sink.to(email);
      expect(more, 'one email per invite').toEqual([]);
      return { id: res.body.id as string, email, groups, mail: mail!, ...invitationLink(mail!.text) };
    };

    const invitation = (token: string, method = 'GET', body?: unknown, headers: Record<string, string> = {}, from?: string) =>
      server.request(method, `/console/api/invitations/${token}`, { auth: null, body, headers, ...(from && { from }) });
    const accept = (token: string, password = PASSWORD, headers: Record<string, string> = {}) => invitation(token, 'POST', { password }, headers);
    const sessionOf = (answer: { headers: Headers; body: any }) => ({ cookie: answer.headers.get('set-cookie')!.split(';')[0]!, csrf: answer.body.csrf_token as string });
    const consoleCall = (session: { cookie: string; csrf: string }, method: string, path: string, body?: unknown) =>
      server.request(method, `/console/api${path}`, { auth: null, body, headers: { cookie: session.cookie, ...(method !== 'GET' && { 'x-csrf-token': session.csrf }) } });
    const acceptedSession = async (policies: string[]) => {
      const { token } = await invited(policies);
      const answer = await accept(token);
      expect(answer.status, answer.text).toBe(200);
      return { ...sessionOf(answer), body: answer.body };
    };

    it('creating an invite emails the address a link into the console, to the address the request was sent to; only its hash is kept', async () => {
      const { id, email, groups, mail, link, token } = await invited(['builtin:AUDITOR'], { expires: true });
      const organization = await organizationName();
      expect(mail.from).toBe('invites@compliance.test');
      expect(mail.headers.get('subject')).toBe(`You are invited to join ${organization}`);
      expect(link).toBe(`${server.baseUrl}/console/invitation#${token}`);
      expect(mail.text).toContain(`You are invited to join ${organization} in its compliance console, as ${email}.`);
      expect(mail.text).toContain(`You will be a member of: ${groups[0]!.name} (builtin:AUDITOR).`);
      expect(mail.text).toContain(`The link works once, until ${utc(server.clock.nowSeconds() + WEEK)}.`);
      // The token is in the email only: the invite keeps its SHA-256 hash, the job its invite.
      const stored = await db().handle.db.selectFrom('invites').select(['token_hash']).where('id', '=', id).executeTakeFirstOrThrow();
      expect(stored.token_hash).toBe(sha256(token));
      const jobs = await db().handle.db.selectFrom('jobs').select(['kind', 'payload', 'status']).where('kind', '=', 'invite-delivery').execute();
      expect(jobs.map((job) => job.status)).toEqual(expect.arrayContaining(['succeeded']));
      for (const job of jobs) expect(JSON.stringify(job.payload)).not.toContain(token);
    });

    it('reads the invitation, accepts it with a password, signs the user in: ACTIVE in the invite’s groups, the invite ACCEPTED, the link used up', async () => {
      const { id, email, groups, token } = await invited(['builtin:AUDITOR', 'builtin:READONLY']);
      const read = await invitation(token);
      expect(read.status, read.text).toBe(200);
      expect(read.headers.get('cache-control')).toBe('no-store');
      expect(read.body).toEqual({
        email,
        organization: { id: server.orgId, name: await organizationName() },
        groups: expect.arrayContaining(groups.map((g) => ({ id: g.id, name: g.name, policy: expect.stringMatching(/^builtin:(AUDITOR|READONLY)$/) }))),
        expires_at: server.clock.nowSeconds() + WEEK,
      });

      const accepted = await accept(token);
      expect(accepted.status, accepted.text).toBe(200);
      expect(accepted.headers.get('set-cookie')).toMatch(/^console_session=[^;]+; Max-Age=43200; Path=\/console; HttpOnly; SameSite=Strict$/);
      expect(accepted.body).toMatchObject({ user: { email, name: email }, organization: { id: server.orgId }, access: { api_clients: 'read' } });
      const session = sessionOf(accepted);
      expect((await consoleCall(session, 'GET', '/session')).body.user.email).toBe(email);

      const users = await server.request('GET', `/v0/users?email=${encodeURIComponent(email)}`);
      expect(users.body.items).toEqual([
        { id: accepted.body.user.id, email, owner: false, status: 'ACTIVE', groups: Object.fromEntries(groups.map((g) => [g.id, g.name])), resource_type: 'user' },
      ]);
      expect((await server.request('GET', `/v0/invites/${id}`)).body).toMatchObject({ status: 'ACCEPTED', updated_at: server.clock.nowSeconds() });
      // The password signs in from now on.
      expect((await server.request('POST', '/console/api/session', { auth: null, body: { email, password: PASSWORD } })).status).toBe(200);

      for (const again of [await accept(token), await invitation(token)]) {
        expect(again.status, again.text).toBe(410);
        expect(again.body).toEqual({ type: 'Gone', code: 410, message: `This invitation was accepted already; sign in with ${email}` });
      }
    });

    it('refuses a password shorter than 12 characters with a 400 in the console error shape; the link still works', async () => {
      const { token } = await invited();
      const short = await accept(token, 'eleven char');
      expect(short.status).toBe(400);
      expect(short.body).toEqual({ type: 'InvalidParameterValue', code: 400, message: 'password: must NOT have fewer than 12 characters' });
      expect((await invitation(token)).status).toBe(200);
      expect((await accept(token, 'twelve chars')).status).toBe(200);
    });

    it('refuses an expired link (410) and an unknown one (404), each with a message the page shows as it is', async () => {
      const { token } = await invited();
      const unknown = await invitation('A'.repeat(43));
      expect(unknown.status).toBe(404);
      expect(unknown.body.message).toMatch(/^This invitation link is not valid: /);
      const expiresAt = server.clock.nowSeconds() + WEEK;
      server.clock.advanceSeconds(WEEK);
      for (const expired of [await invitation(token), await accept(token)]) {
        expect(expired.status, expired.text).toBe(410);
        expect(expired.body).toEqual({ type: 'Gone', code: 410, message: `This invitation expired on ${utc(expiresAt)}; ask the organization for a new one` });
      }
    });

    it('a later email replaces the link: only the newest token works', async () => {
      const { id, token } = await invited();
      const newer = await server.services.invitations.mintToken(server.orgId, id);
      expect(newer).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect((await invitation(token)).status).toBe(404);
      expect((await accept(newer!)).status).toBe(200);
      // Accepted: no more links for it.
      expect(await server.services.invitations.mintToken(server.orgId, id)).toBeUndefined();
    });

    it('two acceptances sent at once make one user: one is answered 200, the other 410', async () => {
      const { email, groups, token } = await invited();
      const answers = await Promise.all([accept(token, 'first password here'), accept(token, 'second password here')]);
      expect(answers.map((a) => a.status).sort()).toEqual([200, 410]);
      const users = await server.request('GET', `/v0/users?email=${encodeURIComponent(email)}`);
      expect(users.body.items).toHaveLength(1);
      const members = await db().handle.db.selectFrom('group_users').select('group_id').where('user_id', '=', users.body.items[0].id).execute();
      expect(members.map((m) => m.group_id)).toEqual([groups[0]!.id]);
    });

    it('an address that already belongs to a user, of another organization too, cannot accept: 409, and the invite stays PENDING', async () => {
      const { id, email, token } = await invited();
      const other = await server.services.organizations.ensure(`elsewhere-${(counter += 1)}`);
      await server.services.consoleAuth.createUser(other.id, email, PASSWORD);
      const taken = await accept(token);
      expect(taken.status).toBe(409);
      expect(taken.body).toEqual({ type: 'Conflict', code: 409, message: `${email} already belongs to a user; an email address signs in to one organization only` });
      expect((await server.request('GET', `/v0/invites/${id}`)).body.status).toBe('PENDING');
      expect((await invitation(token)).status).toBe(200);
    });

    it('an invitation whose groups were all deleted is refused (410)', async () => {
      const { groups, token } = await invited();
      await db().handle.db.deleteFrom('groups').where('id', '=', groups[0]!.id).execute();
      const refused = await accept(token);
      expect(refused.status).toBe(410);
      expect(refused.body.message).toBe('Every group this invitation was to grant has been deleted; ask the organization for a new invitation');
    });

    it('what an invited user may do follows their groups: read-only groups are refused changes and told why, a MANAGER over * manages', async () => {
      const reader = await acceptedSession(['builtin:AUDITOR']);
      expect(reader.body.access.reason).toMatch(/^Your group builtin:AUDITOR \d+ \(builtin:AUDITOR over all environments\) lets you see the API clients but not change them: managing them needs builtin:MANAGER in a group over all environments \(\*\)\.$/);
      expect((await consoleCall(reader, 'GET', '/api-clients')).status).toBe(200);
      const refused = await consoleCall(reader, 'POST', '/api-clients', { name: 'not allowed' });
      expect(refused.status).toBe(403);
      expect(refused.body).toEqual({ type: 'AuthorizationError', code: 403, message: `createApiClient is not allowed. ${reader.body.access.reason}` });

      const viewer = await acceptedSession(['builtin:ORGANIZATION_REPORT_VIEWER']);
      expect(viewer.body.access.api_clients).toBe('none');
      expect((await consoleCall(viewer, 'GET', '/api-clients')).status).toBe(403);

      const manager = await acceptedSession(['builtin:MANAGER']);
      expect(manager.body.access.api_clients).toBe('manage');
      expect((await consoleCall(manager, 'POST', '/api-clients', { name: 'allowed' })).status).toBe(201);

      // Taken out of every group, an invited user may do nothing more; the session says so at once.
      const patched = await server.request('PATCH', '/v0/users', { body: { user_ids: [manager.body.user.id], group_ids: [] } });
      expect(patched.status, patched.text).toBe(200);
      const now = (await consoleCall(manager, 'GET', '/session')).body.access;
      expect(now).toEqual({ api_clients: 'none', reason: expect.stringMatching(/^You joined by an invitation and belong to no group now/) });
      expect((await consoleCall(manager, 'GET', '/api-clients')).status).toBe(403);
    });

    it('the owner keeps every right, whatever groups they are in', async () => {
      const owner = await server.services.consoleAuth.createUser(server.orgId, uniqueEmail('owner'), PASSWORD, { owner: true });
      const viewers = await group('builtin:ORGANIZATION_REPORT_VIEWER');
      expect((await server.request('PATCH', '/v0/users', { body: { user_ids: [owner.id], group_ids: [viewers.id] } })).status).toBe(200);
      const signedIn = await server.request('POST', '/console/api/session', { auth: null, body: { email: owner.email, password: PASSWORD } });
      expect(signedIn.body.access).toEqual({ api_clients: 'manage', reason: 'You own this organization, so you may manage its API clients.' });
      expect((await consoleCall(sessionOf(signedIn), 'POST', '/api-clients', { name: 'by the owner' })).status).toBe(201);
    });

    it('unknown tokens count as failed authentications like failed sign-ins; used and expired ones do not', async () => {
      const from = `127.0.8.${(counter % 200) + 1}`;
      const limit = DEFAULT_AUTHENTICATION_LIMITS.perAddressAndIdentity;
      for (let attempt = 0; attempt < limit; attempt += 1) expect((await invitation(`${'B'.repeat(40)}${String(attempt).padStart(3, '0')}`, 'GET', undefined, {}, from)).status).toBe(404);
      const refused = await invitation('C'.repeat(43), 'GET', undefined, {}, from);
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toMatch(/^[1-9][0-9]*$/);
      const counted = await db().handle.db.selectFrom('auth_failures').select('key').where('key', '=', `console ${INVITATION_IDENTITY} from ${from}`).execute();
      expect(counted.length).toBe(limit);
      // A real token from another address is let through, and a used one is no guess.
      const { token } = await invited();
      expect((await accept(token)).status).toBe(200);
      for (let attempt = 0; attempt < limit + 2; attempt += 1) expect((await invitation(token)).status).toBe(410);
      server.clock.advanceSeconds(DEFAULT_AUTHENTICATION_LIMITS.windowSeconds + 1);
    });

    it('writes the path of an invitation call to the request log without its token', async () => {
      const { token } = await invited();
      const answer = await invitation(token, 'GET', undefined, { 'x-request-id': 'invitation-log-check' });
      expect(answer.status).toBe(200);
      expect(log.requestLine('invitation-log-check')).toMatchObject({ operationId: 'getInvitation', path: '/console/api/invitations/{token}', status: 200 });
      expect(log.text).not.toContain(token);
    });

    it('a Python standard-library script reads and accepts an invitation as a browser would', async () => {
      const { email, token } = await invited();
      // `--token=`: a token may begin with `-`, which argparse would take for an option of its own.
      const script = join(PROJECT_ROOT, 'contract-tests/outside/accept_invitation.py');
      const { stdout } = await run('python3', [script, '--base-url', server.baseUrl, `--token=${token}`, '--password', PASSWORD], { timeout: 60_000 });
      expect(JSON.parse(stdout)).toEqual({
        'read the invitation': { status: 200, email, organization: await organizationName() },
        'accept with a short password': { status: 400, type: 'InvalidParameterValue' },
        'accept': { status: 200, session_cookie: true, user: email },
        'read the session with its cookie': { status: 200, user: email, api_clients: 'read' },
        'accept again': { status: 410, type: 'Gone' },
        'read the used invitation': { status: 410, type: 'Gone' },
        'an unknown token': { status: 404, type: 'NotFound' },
      });
    });
  },
  'suite',
);
