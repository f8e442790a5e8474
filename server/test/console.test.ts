import { beforeEach, describe, it } from '@jest/globals';
import { request as httpRequest } from 'node:http';
import { DEFAULT_AUTHENTICATION_LIMITS } from '../src/domain/auth/throttle.js';
import { createServices } from '../src/services.js';
import { describeEachDatabase } from './databases.js';
import { TEST_PASSWORD_HASHING } from './passwords.js';
import { basic, useTestServer, type TestServer } from './server.js';
import { expect } from './expect.js';

const PASSWORD = 'correct horse battery staple';
// The test server counts failed sign-ins under the product's limits.
const {
  windowSeconds: SIGN_IN_WINDOW_SECONDS,
  perAddressAndIdentity: MAX_FAILURES_PER_ADDRESS_AND_EMAIL,
  perIdentity: MAX_FAILURES_PER_EMAIL,
} = DEFAULT_AUTHENTICATION_LIMITS;
let userCounter = 0;

describeEachDatabase(
  'console API',
  (db) => {
    // Every test creates a user and signs in, some a hundred times: at the product's scrypt cost that is most of the
    // suite's time, while what the tests prove does not depend on the cost. The product's cost is checked below.
    const testServer = useTestServer(db);
    let server: TestServer;
    let email: string;
    beforeEach(async () => {
      server = testServer();
      email = `user${(userCounter += 1)}@example.com`;
      await server.services.consoleAuth.createUser(server.orgId, email, PASSWORD, { firstName: 'Ada', lastName: 'Lovelace' });
    });

    const signIn = async (password = PASSWORD, who = email, headers: Record<string, string> = {}) => {
      const res = await server.request('POST', '/console/api/session', { body: { email: who, password }, auth: null, headers });
      const cookie = res.headers.get('set-cookie')?.split(';')[0];
      return { res, cookie, csrf: res.body?.csrf_token as string | undefined };
    };

    /** A sign-in sent from `address` (a loopback address other than 127.0.0.1 stands for another client). */
    const signInFrom = (address: string, password = PASSWORD, who = email) =>
      new Promise<{ status: number; retryAfter: string | undefined }>((resolve, reject) => {
        const body = JSON.stringify({ email: who, password });
        const req = httpRequest(`${server.baseUrl}/console/api/session`, {
          method: 'POST',
          localAddress: address,
          agent: false,
          headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
        });
        req.once('error', reject);
        req.once('response', (res) => {
          res.resume();
          res.once('end', () => resolve({ status: res.statusCode!, retryAfter: res.headers['retry-after'] }));
        });
        req.end(body);
      });

    /** A console call as the signed-in browser makes it: the session cookie, and the CSRF token on changes. */
    const call = (session: { cookie?: string; csrf?: string }, method: string, path: string, body?: unknown, csrf = session.csrf) =>
      server.request(method, `/console/api${path}`, {
        body,
        auth: null,
        headers: { ...(session.cookie && { cookie: session.cookie }), ...(csrf && method !== 'GET' && { 'x-csrf-token': csrf }) },
      });

    describe('sessions', () => {
      it('signs in with an HttpOnly, SameSite=Strict cookie and a CSRF token, and reads the session back', async () => {
        const { res, cookie, csrf } = await signIn();
        expect(res.status, res.text).toBe(200);
        const [pair, ...attributes] = res.headers.get('set-cookie')!.split('; ');
        expect(pair).toMatch(/^console_session=[^;]+$/);
        expect(attributes.sort()).toEqual(['HttpOnly', 'Max-Age=43200', 'Path=/console', 'SameSite=Strict']);
        expect(res.body).toMatchObject({ user: { email, name: 'Ada Lovelace' }, organization: { id: server.orgId } });
        expect(csrf!.length).toBeGreaterThanOrEqual(43);
        const session = await call({ cookie }, 'GET', '/session');
        expect(session.body.csrf_token).toBe(csrf);
      });

      it('refuses a wrong password and an unknown email alike, and calls without a session', async () => {
        for (const [password, who] of [['wrong password!', email], [PASSWORD, 'nobody@example.com']]) {
          const { res } = await signIn(password, who);
          expect(res.status).toBe(401);
          expect(res.body).toEqual({ type: 'AuthenticationError', code: 401, message: 'Invalid email or password' });
        }
        const anonymous = await call({}, 'GET', '/api-clients');
        expect(anonymous.status).toBe(401);
        expect(anonymous.body).toEqual({ type: 'AuthenticationError', code: 401, message: 'Sign in required' });
      });

      it('keeps only a scrypt hash of the password, with the cost it was hashed at', async () => {
        const users = await db().handle.db.selectFrom('users').select('password_hash').where('email', '=', email).execute();
        const { N, r, p } = TEST_PASSWORD_HASHING;
        expect(users[0]!.password_hash).toMatch(new RegExp(`^scrypt\\$${N}\\$${r}\\$${p}\\$`));
        expect(users[0]!.password_hash).not.toContain(PASSWORD);
      });

      it('keeps only a slow scrypt hash of the password unless told otherwise, and checks a hash at its own cost', async () => {
        // Services as the product creates them, without a cost of their own.
        const services = createServices(db().handle, server.clock);
        const slow = `slow${(userCounter += 1)}@example.com`;
        try {
          await services.consoleAuth.createUser(server.orgId, slow, PASSWORD);
        } finally {
          await services.evaluation.close();
        }
        const users = await db().handle.db.selectFrom('users').select('password_hash').where('email', '=', slow).execute();
        expect(users[0]!.password_hash).toMatch(/^scrypt\$32768\$8\$1\$/);
        expect(users[0]!.password_hash).not.toContain(PASSWORD);
        // The test server hashes at a lower cost, yet checks this password at the cost stored with it.
        expect((await signIn(PASSWORD, slow)).res.status).toBe(200);
        expect((await signIn('wrong password!', slow)).res.status).toBe(401);
      });

      it('rate-limits failed sign-ins per client address and email, even refusing the right password until the window passes', async () => {
        for (let i = 0; i < MAX_FAILURES_PER_ADDRESS_AND_EMAIL; i += 1) expect((await signIn('wrong password!')).res.status).toBe(401);
        const limited = await signIn();
        expect(limited.res.status).toBe(429);
        expect(limited.res.body).toMatchObject({ type: 'TooManyRequests', code: 429 });
        expect(Number(limited.res.headers.get('retry-after'))).toBeGreaterThan(0);
        server.clock.advanceSeconds(SIGN_IN_WINDOW_SECONDS + 1);
        expect((await signIn()).res.status).toBe(200);
      });

      it('lets no more than the limit of wrong passwords sent at once be checked', async () => {
        const answers = await Promise.all(Array.from({ length: 3 * MAX_FAILURES_PER_ADDRESS_AND_EMAIL }, () => signIn('wrong password!')));
        const statuses = answers.map((a) => a.res.status);
        const checked = statuses.filter((s) => s === 401).length;
        expect(checked).toBeLessThanOrEqual(MAX_FAILURES_PER_ADDRESS_AND_EMAIL);
        expect(statuses.filter((s) => s !== 401 && s !== 429)).toEqual([]);
        // A refused attempt gives its place back: guesses one at a time fill the limit exactly, and no further.
        let more = 0;
        while ((await signIn('wrong password!')).res.status === 401) more += 1;
        expect(checked + more).toBe(MAX_FAILURES_PER_ADDRESS_AND_EMAIL);
        expect((await signIn()).res.status).toBe(429);
        server.clock.advanceSeconds(SIGN_IN_WINDOW_SECONDS + 1);
        expect((await signIn()).res.status).toBe(200);
      });

      it('wrong passwords from one address do not lock the same email out from another address', async () => {
        for (let i = 0; i < MAX_FAILURES_PER_ADDRESS_AND_EMAIL; i += 1) expect((await signInFrom('127.0.0.2', 'wrong password!')).status).toBe(401);
        const limited = await signInFrom('127.0.0.2');
        expect(limited.status).toBe(429);
        expect(Number(limited.retryAfter)).toBeGreaterThan(0);
        expect((await signInFrom('127.0.0.3')).status).toBe(200);
        expect((await signInFrom('127.0.0.2')).status).toBe(429);
      });

      it('once an email guessed from many addresses reaches its ceiling, each further address gets one guess, and a fresh one still signs in', async () => {
        const addresses = Array.from({ length: MAX_FAILURES_PER_EMAIL / MAX_FAILURES_PER_ADDRESS_AND_EMAIL }, (_, i) => `127.0.1.${i + 1}`);
        await Promise.all(
          addresses.map(async (address) => {
            for (let i = 0; i < MAX_FAILURES_PER_ADDRESS_AND_EMAIL; i += 1) expect((await signInFrom(address, 'wrong password!')).status, address).toBe(401);
          }),
        );
        // An address that has not failed with this email is not held back by the guesses from elsewhere.
        expect((await signInFrom('127.0.2.1')).status).toBe(200);
        // Another address gets its one guess, and is refused from then on, the right password included.
        expect((await signInFrom('127.0.2.2', 'wrong password!')).status).toBe(401);
        const limited = await signInFrom('127.0.2.2');
        expect(limited.status).toBe(429);
        expect(Number(limited.retryAfter)).toBeGreaterThan(0);
        server.clock.advanceSeconds(SIGN_IN_WINDOW_SECONDS + 1);
        expect((await signInFrom('127.0.2.2')).status).toBe(200);
      });

      it('signs out: the cookie is cleared and the session no longer works', async () => {
        const session = await signIn();
        const out = await call(session, 'DELETE', '/session');
        expect(out.status).toBe(204);
        expect(out.headers.get('set-cookie')).toMatch(/Max-Age=0/);
        expect((await call(session, 'GET', '/session')).status).toBe(401);
      });

      it('signing in again with the session cookie ends the session that cookie named', async () => {
        const first = await signIn();
        const again = await signIn(PASSWORD, email, { cookie: first.cookie! });
        expect(again.res.status, again.res.text).toBe(200);
        expect(again.cookie).not.toBe(first.cookie);
        expect((await call(first, 'GET', '/session')).status).toBe(401);
        expect((await call(again, 'GET', '/session')).status).toBe(200);
      });

      it('a failed sign-in with the session cookie leaves that session alive', async () => {
        const first = await signIn();
        expect((await signIn('wrong password!', email, { cookie: first.cookie! })).res.status).toBe(401);
        expect((await call(first, 'GET', '/session')).status).toBe(200);
      });

      it('ends sessions after 12 hours', async () => {
        const session = await signIn();
        server.clock.advanceSeconds(12 * 3600);
        expect((await call(session, 'GET', '/session')).status).toBe(401);
      });
    });

    describe('CSRF protection', () => {
      it('refuses state-changing calls without the session’s CSRF token', async () => {
        const session = await signIn();
        const missing = await call(session, 'POST', '/api-clients', { name: 'ci' }, '');
        expect(missing.status).toBe(403);
        expect(missing.body).toMatchObject({ type: 'InvalidCsrfToken', code: 403 });
        const wrong = await call(session, 'POST', '/api-clients', { name: 'ci' }, 'x'.repeat(43));
        expect(wrong.status).toBe(403);
        expect((await call(session, 'POST', '/api-clients', { name: 'ci' })).status).toBe(201);
      });
    });

    describe('API clients', () => {
      it('creates a client without a secret, and refuses a second with the same name', async () => {
        const session = await signIn();
        const created = await call(session, 'POST', '/api-clients', { name: 'ci-pipeline' });
        expect(created.body).toMatchObject({
          name: 'ci-pipeline',
          status: 'Created',
          created_at: server.clock.nowSeconds(),
          secret_created_at: null,
          secret_age: null,
          last_activity_at: null,
        });
        const duplicate = await call(session, 'POST', '/api-clients', { name: 'CI-Pipeline' });
        expect(duplicate.status).toBe(409);
        expect(duplicate.body).toMatchObject({ type: 'Conflict' });
      });

      it('generates a secret shown once; regenerating, revoking and deleting stop the old secret at once', async () => {
        const session = await signIn();
        const { client_id: clientId } = (await call(session, 'POST', '/api-clients', { name: 'ci' })).body;
        const first = await call(session, 'POST', `/api-clients/${clientId}/secret`);
        expect(first.status).toBe(201);
        expect(first.body.api_client).toMatchObject({ status: 'Active', secret_age: 0 });
        expect(Buffer.from(first.body.client_secret, 'base64url').length).toBeGreaterThanOrEqual(32);
        const environments = (secret: string) => server.request('GET', '/v0/environments', { auth: basic(clientId, secret) });
        expect((await environments(first.body.client_secret)).status).toBe(200);
        expect((await call(session, 'GET', `/api-clients/${clientId}`)).body).not.toHaveProperty('client_secret');

        const second = await call(session, 'POST', `/api-clients/${clientId}/secret`);
        expect((await environments(first.body.client_secret)).status).toBe(401);
        expect((await environments(second.body.client_secret)).status).toBe(200);

        const revoked = await call(session, 'DELETE', `/api-clients/${clientId}/secret`);
        expect(revoked.body).toMatchObject({ status: 'Secret Revoked', secret_created_at: null, secret_age: null });
        expect((await environments(second.body.client_secret)).status).toBe(401);
        expect((await call(session, 'DELETE', `/api-clients/${clientId}/secret`)).status).toBe(409);

        const third = await call(session, 'POST', `/api-clients/${clientId}/secret`);
        expect((await environments(third.body.client_secret)).status).toBe(200);
        expect((await call(session, 'DELETE', `/api-clients/${clientId}`)).status).toBe(204);
        expect((await environments(third.body.client_secret)).status).toBe(401);
        expect((await call(session, 'GET', `/api-clients/${clientId}`)).status).toBe(404);
      });

      it('keeps last activity current without a database write per request', async () => {
        const session = await signIn();
        const { client_id: clientId } = (await call(session, 'POST', '/api-clients', { name: 'ci' })).body;
        const { client_secret: secret } = (await call(session, 'POST', `/api-clients/${clientId}/secret`)).body;
        server.clock.advanceSeconds(30);
        await server.request('GET', '/v0/environments', { auth: basic(clientId, secret) });
        expect((await call(session, 'GET', `/api-clients/${clientId}`)).body.last_activity_at).toBeNull();
        await server.services.apiClients.flushActivity();
        expect((await call(session, 'GET', `/api-clients/${clientId}`)).body.last_activity_at).toBe(server.clock.nowSeconds());
      });

      it('sorts by name (default), client id, secret age and last activity in both directions, and pages', async () => {
        const session = await signIn();
        const names = Array.from({ length: 25 }, (_, i) => `client-${String(i).padStart(2, '0')}`);
        const ids: Record<string, string> = {};
        for (const name of [...names].reverse()) ids[name] = (await call(session, 'POST', '/api-clients', { name })).body.client_id;
        // Secrets for the first ten, a minute apart: client-00's is the oldest.
        for (const name of names.slice(0, 10)) {
          await call(session, 'POST', `/api-clients/${ids[name]}/secret`);
          server.clock.advanceSeconds(60);
        }
        // The tenant's own 'tests' client (which the test server uses) is left out of the comparisons.
        const order = async (query: string) =>
          (await call(session, 'GET', `/api-clients?max_items=100&${query}`)).body.items.map((c: any) => c.name).filter((n: string) => n !== 'tests');

        expect(await order('')).toEqual(names);
        expect(await order('order_direction=desc')).toEqual([...names].reverse());
        const byId = Object.entries(ids).sort(([, a], [, b]) => (a < b ? -1 : 1)).map(([name]) => name);
        expect(await order('order_by=client_id')).toEqual(byId);
        const youngestFirst = await order('order_by=secret_age');
        expect(youngestFirst.slice(0, 10)).toEqual(names.slice(0, 10).reverse());
        expect((await order('order_by=secret_age&order_direction=desc')).slice(-10)).toEqual(names.slice(0, 10));
        expect((await order('order_by=last_activity')).length).toBe(25);

        const page = await call(session, 'GET', '/api-clients?max_items=10&offset=20');
        expect(page.body).toMatchObject({ count: 6, total: 26, is_truncated: false });
        const first = await call(session, 'GET', '/api-clients');
        expect(first.body).toMatchObject({ count: 10, total: 26, is_truncated: true, next_offset: 10 });
        expect((await call(session, 'GET', '/api-clients?max_items=15')).status).toBe(400);
      });

      it("never shows another organization's clients", async () => {
        const session = await signIn();
        const { client_id: clientId } = (await call(session, 'POST', '/api-clients', { name: 'mine' })).body;
        await server.useNewTenant();
        const otherEmail = `other${(userCounter += 1)}@example.com`;
        await server.services.consoleAuth.createUser(server.orgId, otherEmail, PASSWORD);
        const other = await signIn(PASSWORD, otherEmail);
        expect((await call(other, 'GET', `/api-clients/${clientId}`)).status).toBe(404);
        expect((await call(other, 'DELETE', `/api-clients/${clientId}`)).status).toBe(404);
        expect((await call(other, 'GET', '/api-clients')).body.items.map((c: any) => c.client_id)).not.toContain(clientId);
      });
    });
  },
  'suite',
);
