import { execFile } from 'node:child_process';
import { beforeEach, describe, it } from '@jest/globals';
import { promisify } from 'node:util';
import { describeEachDatabase } from './databases.js';
import { expect } from './expect.js';
import { basic, useTestServer, type TestServer } from './server.js';

const run = promisify(execFile);
const PASSWORD = 'a-long-console-password';
let userCounter = 0;

/**
 * A Python standard-library client of the console API: signs in (the cookie kept in a jar), creates a client with
 * `with_secret`, and prints the answer's status, Cache-Control and body as one JSON line.
 */
const PYTHON_CLIENT = String.raw`
import http.cookiejar, json, sys, urllib.request
base, email, password, name = sys.argv[1:5]
opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
def send(method, path, body, headers={}):
    request = urllib.request.Request(base + path, method=method, data=json.dumps(body).encode(), headers={'Content-Type': 'application/json', **headers})
    with opener.open(request) as answer:
        return answer.status, answer.headers.get('Cache-Control'), json.load(answer)
_, _, session = send('POST', '/console/api/session', {'email': email, 'password': password})
status, cache, client = send('POST', '/console/api/api-clients', {'name': name, 'with_secret': True}, {'X-CSRF-Token': session['csrf_token']})
print(json.dumps({'status': status, 'cache_control': cache, 'client': client}))
`;

describeEachDatabase(
  'a console API client created with its first secret',
  (db) => {
    const testServer = useTestServer(db);
    let server: TestServer;
    let email: string;
    beforeEach(async () => {
      server = testServer();
      email = `creator${(userCounter += 1)}@example.com`;
      await server.services.consoleAuth.createUser(server.orgId, email, PASSWORD, { firstName: 'Grace', lastName: 'Hopper' });
    });

    const signIn = async () => {
      const res = await server.request('POST', '/console/api/session', { body: { email, password: PASSWORD }, auth: null });
      expect(res.status, res.text).toBe(200);
      return { cookie: res.headers.get('set-cookie')!.split(';')[0]!, csrf: res.body.csrf_token as string };
    };
    const create = (session: { cookie: string; csrf: string }, body: unknown) =>
      server.request('POST', '/console/api/api-clients', { body, auth: null, headers: { cookie: session.cookie, 'x-csrf-token': session.csrf } });
    const environmentsWith = async (clientId: string, secret: string) => (await server.request('GET', '/v0/environments', { auth: basic(clientId, secret) })).status;

    it('creates the client Active and answers its secret once, not to be cached, a secret that works at once', async () => {
      const session = await signIn();
      const created = await create(session, { name: 'ci-pipeline', with_secret: true });
      expect(created.status, created.text).toBe(201);
      expect(created.headers.get('cache-control')).toBe('no-store');
      const now = server.clock.nowSeconds();
      expect(created.body).toEqual({
        client_id: expect.stringMatching(/^cl_[A-Za-z0-9_-]{22}$/),
        name: 'ci-pipeline',
        status: 'Active',
        created_at: now,
        secret_created_at: now,
        secret_age: 0,
        last_activity_at: null,
        client_secret: expect.stringMatching(/^[A-Za-z0-9_-]{43,}$/),
      });
      const { client_id: clientId, client_secret: secret } = created.body;
      expect(await environmentsWith(clientId, secret)).toBe(200);
      // Shown once: reading the client again never gives the secret.
      const read = await server.request('GET', `/console/api/api-clients/${clientId}`, { auth: null, headers: { cookie: session.cookie } });
      expect(read.body).toMatchObject({ status: 'Active' });
      expect(read.body).not.toHaveProperty('client_secret');
    });

    it('creates the client without a secret when with_secret is false or absent, as before', async () => {
      const session = await signIn();
      for (const body of [{ name: 'without-flag' }, { name: 'flag-false', with_secret: false }]) {
        const created = await create(session, body);
        expect(created.status, created.text).toBe(201);
        expect(created.body).toMatchObject({ name: body.name, status: 'Created', secret_created_at: null, secret_age: null });
        expect(created.body).not.toHaveProperty('client_secret');
      }
    });

    it('issues no secret and creates nothing when the name is taken, and refuses a with_secret that is not a boolean', async () => {
      const session = await signIn();
      expect((await create(session, { name: 'nightly' })).status).toBe(201);
      const taken = await create(session, { name: 'Nightly', with_secret: true });
      expect(taken.status).toBe(409);
      expect(taken.body).toMatchObject({ type: 'Conflict' });
      const listed = await server.request('GET', '/console/api/api-clients', { auth: null, headers: { cookie: session.cookie } });
      const named = listed.body.items.filter((client: { name: string }) => /nightly/i.test(client.name));
      expect(named.map((client: { name: string; status: string }) => [client.name, client.status])).toEqual([['nightly', 'Created']]);
      const wrong = await create(session, { name: 'typed', with_secret: 'yes' });
      expect(wrong.status).toBe(400);
      expect(wrong.body.message).toContain('with_secret');
    });

    describe('from outside', () => {
      it('gives a Python standard-library client the new client’s ID and secret in one call, a pair that works', async () => {
        const { stdout } = await run('python3', ['-c', PYTHON_CLIENT, server.baseUrl, email, PASSWORD, 'from-python'], { timeout: 30_000 });
        const answer = JSON.parse(stdout) as { status: number; cache_control: string; client: { client_id: string; client_secret: string; status: string } };
        expect({ status: answer.status, cacheControl: answer.cache_control, clientStatus: answer.client.status }).toEqual({ status: 201, cacheControl: 'no-store', clientStatus: 'Active' });
        expect(await environmentsWith(answer.client.client_id, answer.client.client_secret)).toBe(200);
      });
    });
  },
  'suite',
);
