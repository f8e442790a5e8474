import { execFile } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { promisify } from 'node:util';
import { beforeEach, describe, it } from '@jest/globals';
import type { KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs, QueryResult, RootOperationNode, UnknownRow } from 'kysely';
import type { AuthenticationLimits } from '../src/domain/auth/throttle.js';
import { createApp } from '../src/http/app.js';
import { httpServerFor } from '../src/http/http-server.js';
import { createServices } from '../src/services.js';
import { describeEachDatabase } from './databases.js';
import { expect } from './expect.js';
import { filesTar } from './fixtures/archives.js';
import { TEST_PASSWORD_HASHING } from './passwords.js';
import { basic, ROOT_SECRET, useTestServer, type TestServer } from './server.js';

const run = promisify(execFile);

/** Small limits, so that each is reached in a few requests; the product's are checked by console.test.ts. */
const LIMITS: AuthenticationLimits = { windowSeconds: 600, perAddressAndIdentity: 5, perIdentity: 12, perAddress: 20 };

/** The guesser, another client, and a third: loopback addresses other than 127.0.0.1 stand for other machines. */
const GUESSER = '127.0.0.2';
const OWNER = '127.0.0.3';

/**
 * A Python standard-library client (http.client, bound to its own source address) that sends wrong root secrets to
 * the conductor until it is refused, and prints how many were answered 401 and the refusal's status, Retry-After
 * and body, as one JSON line.
 */
const PYTHON_GUESSER = String.raw`
import base64, http.client, json, sys
host, port, source, limit = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
checked = 0
for attempt in range(limit):
    connection = http.client.HTTPConnection(host, port, timeout=20, source_address=(source, 0))
    token = base64.b64encode(("root:wrong-guess-%d" % attempt).encode()).decode()
    connection.request("GET", "/api/v0/accounts", headers={"Authorization": "Basic " + token})
    answer = connection.getresponse()
    body = answer.read().decode()
    connection.close()
    if answer.status != 401:
        print(json.dumps({"checked": checked, "status": answer.status, "retry_after": answer.getheader("Retry-After"), "body": json.loads(body)}))
        sys.exit(0)
    checked += 1
print(json.dumps({"checked": checked, "status": None}))
`;
import { listenInProcess } from './in-process-server.js';

interface Target {
  what: string;
  path: string;
  /** The right credentials, and the same identity with a wrong secret. */
  right(): Promise<string>;
  wrong(): Promise<string>;
}

const identityOf = (auth: string) => Buffer.from(auth.slice('Basic '.length), 'base64').toString('utf8').split(':')[0]!;

describeEachDatabase(
  'failed authentications, limited per address and identity, per identity and per address',
  (db) => {
    const testServer = useTestServer(db, { authenticationLimits: LIMITS });
    let server: TestServer;
    beforeEach(() => {
      server = testServer();
      // Each test starts with every earlier failure out of the window.
      server.clock.advanceSeconds(LIMITS.windowSeconds + 1);
    });

    const get = (path: string, auth: string, from: string) => server.request('GET', path, { auth, from });

    /** Declares user alice in an rbac policy and gives her a secret; she may list accounts (a listing needs no rule). */
    async function alice(): Promise<string> {
      const attached = await server.request('POST', '/api/v0/rbac', { auth: server.rootAuth, body: await filesTar({ 'policy.yaml': 'users: [alice]\nrules: []\n' }) });
      expect(attached.status, attached.text).toBe(200);
      const issued = await server.request('PUT', '/api/v0/rbac/users/alice/secret', { auth: server.rootAuth });
      expect(issued.status, issued.text).toBe(200);
      return basic('alice', issued.body.secret as string);
    }

    const targets: Target[] = [
      { what: 'root', path: '/api/v0/accounts', right: async () => server.rootAuth, wrong: async () => basic('root', 'not-the-root-secret') },
      { what: 'a conductor user', path: '/api/v0/accounts', right: alice, wrong: async () => basic('alice', 'not-alice-secret') },
      { what: 'an API client', path: '/v0/environments', right: async () => server.auth, wrong: async () => basic(identityOf(server.auth), 'not-the-client-secret') },
    ];

    /** Sends `count` requests one after the other; answers how many were checked (401) and refused unchecked (429). */
    async function guesses(count: number, path: string, auth: string, from: string): Promise<{ checked: number; refused: number; others: number[] }> {
      const statuses: number[] = [];
      for (let i = 0; i < count; i += 1) statuses.push((await get(path, auth, from)).status);
      return { checked: statuses.filter((s) => s === 401).length, refused: statuses.filter((s) => s === 429).length, others: statuses.filter((s) => s !== 401 && s !== 429) };
    }

    describe.each(targets)('for $what', (target) => {
      it('checks wrong secrets from one address up to the limit, then refuses them unchecked; the right secret from another address still gets in', async () => {
        const [right, wrong] = [await target.right(), await target.wrong()];
        const sent = 4 * LIMITS.perAddressAndIdentity;
        // Of 20 guesses, 5 were checked: the guess rate is cut to a quarter here, and to nothing more until the window passes.
        expect(await guesses(sent, target.path, wrong, GUESSER)).toEqual({ checked: LIMITS.perAddressAndIdentity, refused: sent - LIMITS.perAddressAndIdentity, others: [] });
        const limited = await get(target.path, right, GUESSER);
        expect(limited.status, 'the right secret from the guessing address').toBe(429);
        expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
        expect(Number(limited.headers.get('retry-after'))).toBeLessThanOrEqual(LIMITS.windowSeconds);
        expect(limited.headers.get('www-authenticate')).toBeNull();
        expect((await get(target.path, right, OWNER)).status, 'the right secret from another address').toBe(200);
        // A success elsewhere resets nothing of the guessing address.
        expect((await get(target.path, right, GUESSER)).status).toBe(429);

        server.clock.advanceSeconds(Number(limited.headers.get('retry-after')) - 1);
        expect((await get(target.path, right, GUESSER)).status, 'a second before Retry-After').toBe(429);
        server.clock.advanceSeconds(1);
        expect((await get(target.path, right, GUESSER)).status, 'once the window has room again').toBe(200);
        expect((await get(target.path, wrong, GUESSER)).status, 'a wrong secret is checked again too').toBe(401);
      });
    });

    it('answers each API in its own error shape, with Retry-After', async () => {
      const refusals = [];
      for (const target of targets) {
        const wrong = await target.wrong();
        await guesses(LIMITS.perAddressAndIdentity, target.path, wrong, GUESSER);
        refusals.push(await get(target.path, wrong, GUESSER));
        server.clock.advanceSeconds(LIMITS.windowSeconds + 1);
      }
      const message = expect.stringMatching(/^Too many failed authentication attempts; try again in [1-9][0-9]* seconds$/);
      expect(refusals.map((answer) => answer.body)).toEqual([
        { code: 429, message, errors: [] },
        { code: 429, message, errors: [] },
        { type: 'TooManyRequests', code: 429, message },
      ]);
      for (const answer of refusals) expect(answer.headers.get('retry-after')).toMatch(/^[1-9][0-9]*$/);
    });

    it('of different wrong secrets sent at once, checks no more than the limit', async () => {
      const wrong = basic('root', 'not-the-root-secret');
      const answers = await Promise.all(
        Array.from({ length: 4 * LIMITS.perAddressAndIdentity }, (_, guess) => get('/api/v0/accounts', basic('root', `not-the-root-secret-${guess}`), GUESSER)),
      );
      const statuses = answers.map((answer) => answer.status);
      const checked = statuses.filter((status) => status === 401).length;
      expect(statuses.filter((status) => status !== 401 && status !== 429)).toEqual([]);
      expect(checked).toBeLessThanOrEqual(LIMITS.perAddressAndIdentity);
      // A refused attempt takes no place: guesses one at a time fill the limit exactly, and no further.
      const more = await guesses(LIMITS.perAddressAndIdentity, '/api/v0/accounts', wrong, GUESSER);
      expect(checked + more.checked).toBe(LIMITS.perAddressAndIdentity);
    });

    it('checks a secret sent on many requests at once once: a client busy with its right secret, not yet remembered, is never limited', async () => {
      const { client, secret } = await server.services.apiClients.createWithSecret(server.orgId, 'busy client');
      const fresh: Target[] = [
        { what: 'a new API client', path: '/v0/environments', right: async () => basic(client.clientId, secret), wrong: async () => basic(client.clientId, 'not-its-secret') },
        // A new secret of alice's: the process has not verified it yet.
        { what: 'a conductor user', path: '/api/v0/accounts', right: alice, wrong: async () => basic('alice', 'not-alice-secret') },
      ];
      const atOnce = 4 * LIMITS.perAddressAndIdentity;
      for (const target of fresh) {
        const right = await target.right();
        const answers = await Promise.all(Array.from({ length: atOnce }, () => get(target.path, right, OWNER)));
        expect(answers.map((answer) => answer.status), target.what).toEqual(Array(atOnce).fill(200));
      }
    });

    it('once a secret guessed from many addresses reaches its ceiling, each further address gets one guess, and the right secret from a fresh address still gets in', async () => {
      const wrong = basic(identityOf(server.auth), 'not-the-client-secret');
      const perAddress = LIMITS.perAddressAndIdentity - 1;
      const guessers = Array.from({ length: LIMITS.perIdentity / perAddress }, (_, i) => `127.0.1.${i + 1}`);
      for (const address of guessers) expect(await guesses(perAddress, '/v0/environments', wrong, address), address).toMatchObject({ checked: perAddress });
      // An address that has not failed with this client id is not held back by the guesses from elsewhere.
      expect((await get('/v0/environments', server.auth, '127.0.2.1')).status).toBe(200);
      // One more address gets a single guess; from then on it is refused, the right secret included.
      expect(await guesses(3, '/v0/environments', wrong, '127.0.2.2')).toEqual({ checked: 1, refused: 2, others: [] });
      expect((await get('/v0/environments', server.auth, '127.0.2.2')).status).toBe(429);
      // So is every address that guessed, though each stayed under its own limit, whatever succeeded elsewhere.
      for (const address of guessers) expect((await get('/v0/environments', server.auth, address)).status, address).toBe(429);
    });

    it('refuses an address sweeping over many identities on every API, the right root secret and console sessions included', async () => {
      const signIn = await server.request('POST', '/console/api/session', { auth: null, body: { email: await consoleUser(server), password: CONSOLE_PASSWORD }, from: GUESSER });
      expect(signIn.status, signIn.text).toBe(200);
      const cookie = signIn.headers.get('set-cookie')!.split(';')[0]!;
      // Each identity fails once, half on each Basic API: no limit per identity is near.
      for (let i = 0; i < LIMITS.perAddress; i += 1) {
        const answer = i % 2 === 0 ? await get('/v0/environments', basic(`cl_unknownClient${i}xxxxxxxx`, 'guess'), GUESSER) : await get('/api/v0/accounts', basic(`user-${i}`, 'guess'), GUESSER);
        expect(answer.status, `identity ${i}`).toBe(401);
      }
      expect((await get('/api/v0/accounts', server.rootAuth, GUESSER)).status).toBe(429);
      expect((await get('/v0/environments', server.auth, GUESSER)).status).toBe(429);
      const session = await server.request('GET', '/console/api/session', { auth: null, headers: { cookie }, from: GUESSER });
      expect(session.status, session.text).toBe(429);
      expect(session.body).toMatchObject({ type: 'TooManyRequests', code: 429 });
      expect((await get('/api/v0/accounts', server.rootAuth, OWNER)).status).toBe(200);
    });

    it('believes no X-Forwarded-For while no proxy is trusted: a guesser naming another address each time is still one address', async () => {
      const wrong = basic('root', 'not-the-root-secret');
      const statuses: number[] = [];
      for (let i = 0; i < 2 * LIMITS.perAddressAndIdentity; i += 1) {
        statuses.push((await server.request('GET', '/api/v0/accounts', { auth: wrong, from: GUESSER, headers: { 'x-forwarded-for': `198.51.100.${i + 1}` } })).status);
      }
      expect(statuses).toEqual([...Array(LIMITS.perAddressAndIdentity).fill(401), ...Array(LIMITS.perAddressAndIdentity).fill(429)]);
    });

    it('counts no unknown session cookie: an address sending expired or made-up cookies is never limited for it', async () => {
      for (let i = 0; i < LIMITS.perAddress + 5; i += 1) {
        const answer = await server.request('GET', '/console/api/session', { auth: null, headers: { cookie: `console_session=made-up-${i}` }, from: GUESSER });
        expect(answer.status).toBe(401);
      }
      expect((await get('/api/v0/accounts', server.rootAuth, GUESSER)).status).toBe(200);
    });

    it('counts no credentials that name nobody (not Basic, no colon)', async () => {
      for (let i = 0; i < LIMITS.perAddress + 5; i += 1) {
        const answer = await get('/api/v0/accounts', `Basic ${Buffer.from(`no-colon-${i}`).toString('base64')}`, GUESSER);
        expect(answer.status).toBe(401);
      }
      expect((await get('/api/v0/accounts', server.rootAuth, GUESSER)).status).toBe(200);
    });

    it('keeps the counts in the database: a second server process over it refuses an address the first one limited', async () => {
      const services = createServices(db().handle, server.clock, { authenticationLimits: LIMITS, passwordHashing: TEST_PASSWORD_HASHING });
      const listening = httpServerFor(createApp({ services, validateResponses: true }).express);
      try {
        const other = await listenInProcess(listening);
        const wrong = basic('root', 'not-the-root-secret');
        const onOther = (auth: string) => statusFrom(`${other}/api/v0/accounts`, auth, GUESSER);
        // Part of the limit on this server, the rest on the other, and past it on both.
        const half = Math.ceil(LIMITS.perAddressAndIdentity / 2);
        expect(await guesses(half, '/api/v0/accounts', wrong, GUESSER)).toMatchObject({ checked: half });
        const statuses: number[] = [];
        for (let i = half; i < LIMITS.perAddressAndIdentity + 2; i += 1) statuses.push(await onOther(wrong));
        expect(statuses).toEqual([...Array(LIMITS.perAddressAndIdentity - half).fill(401), 429, 429]);
        expect(await onOther(server.rootAuth)).toBe(429);
        expect((await get('/api/v0/accounts', server.rootAuth, GUESSER)).status).toBe(429);
      } finally {
        await new Promise<void>((resolve) => listening.close(() => resolve()));
        await services.evaluation.close();
      }
    });

    it('deletes failures that have left the window', async () => {
      const wrong = basic('root', 'not-the-root-secret');
      await guesses(2, '/api/v0/accounts', wrong, GUESSER);
      const rows = () => db().handle.db.selectFrom('auth_failures').select(['key', 'at']).execute();
      expect((await rows()).length).toBeGreaterThan(0);
      server.clock.advanceSeconds(LIMITS.windowSeconds + 60);
      await guesses(1, '/api/v0/accounts', wrong, OWNER);
      const left = await rows();
      // Only the last failure's rows are left: one per limit it counts against.
      expect(left.map((row) => Number(row.at))).toEqual([server.clock.nowSeconds(), server.clock.nowSeconds(), server.clock.nowSeconds()]);
      expect(left.map((row) => row.key).sort()).toEqual(['address 127.0.0.3', 'conductor root', 'conductor root from 127.0.0.3']);
    });

    it('a Python client guessing the root secret sees 401 up to the limit, then 429 with Retry-After', async () => {
      const { port } = new URL(server.baseUrl);
      const { stdout } = await run('python3', ['-c', PYTHON_GUESSER, '127.0.0.1', port, GUESSER, String(4 * LIMITS.perAddressAndIdentity)], { timeout: 60_000 });
      const answer = JSON.parse(stdout) as { checked: number; status: number; retry_after: string; body: unknown };
      expect(answer).toEqual({
        checked: LIMITS.perAddressAndIdentity,
        status: 429,
        retry_after: expect.stringMatching(/^[1-9][0-9]*$/),
        body: { code: 429, message: `Too many failed authentication attempts; try again in ${answer.retry_after} seconds`, errors: [] },
      });
      expect((await get('/api/v0/accounts', `Basic ${Buffer.from(`root:${ROOT_SECRET}`).toString('base64')}`, OWNER)).status).toBe(200);
    });
  },
  'suite',
);

/** The status of a GET with `auth` sent from `localAddress`, to a server other than the suite's. */
function statusFrom(url: string, auth: string, localAddress: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { headers: { authorization: auth }, localAddress, agent: false });
    req.once('error', reject);
    req.once('response', (res) => {
      res.resume();
      res.once('end', () => resolve(res.statusCode!));
    });
    req.end();
  });
}

const CONSOLE_PASSWORD = 'a-long-console-password';
let consoleUsers = 0;
async function consoleUser(server: TestServer): Promise<string> {
  const email = `throttled-${process.pid}-${(consoleUsers += 1)}@example.com`;
  await server.services.consoleAuth.createUser(server.orgId, email, CONSOLE_PASSWORD);
  return email;
}

describeEachDatabase(
  'failed authentications behind a trusted proxy',
  (db) => {
    // Every request comes from the proxy's address (127.0.0.1, trusted): the client is the one it names.
    const testServer = useTestServer(db, { authenticationLimits: LIMITS, trustProxy: ['loopback'] });

    it('counts the client the proxy names, so that one client guessing does not lock out the others behind the proxy', async () => {
      const server = testServer();
      const via = (client: string, auth: string) => server.request('GET', '/api/v0/accounts', { auth, headers: { 'x-forwarded-for': client } });
      const wrong = basic('root', 'not-the-root-secret');
      for (let i = 0; i < LIMITS.perAddressAndIdentity; i += 1) expect((await via('203.0.113.9', wrong)).status).toBe(401);
      expect((await via('203.0.113.9', server.rootAuth)).status).toBe(429);
      expect((await via('203.0.113.10', server.rootAuth)).status).toBe(200);
      expect((await server.request('GET', '/api/v0/accounts', { auth: server.rootAuth })).status, 'the proxy itself').toBe(200);
    });
  },
  'suite',
);

/** While full, refuses every insert into the failures table as SQLite does on a full disk; reads go on. */
class FullDisk implements KyselyPlugin {
  full = false;

  transformQuery({ node }: PluginTransformQueryArgs): RootOperationNode {
    if (this.full && node.kind === 'InsertQueryNode' && node.into?.table.identifier.name === 'auth_failures') {
      throw Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
    }
    return node;
  }

  async transformResult({ result }: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return result;
  }
}

describeEachDatabase(
  'failed authentications while the database cannot store them',
  (db) => {
    const disk = new FullDisk();
    const testServer = useTestServer(db, { authenticationLimits: LIMITS, databasePlugins: [disk] });

    it('checks credentials all the same, so reads go on, and keeps refusing an address limited before', async () => {
      const server = testServer();
      const wrong = basic('root', 'not-the-root-secret');
      for (let i = 0; i < LIMITS.perAddressAndIdentity; i += 1) expect((await server.request('GET', '/api/v0/accounts', { auth: wrong, from: GUESSER })).status).toBe(401);
      disk.full = true;
      try {
        expect((await server.request('GET', '/api/v0/accounts', { auth: server.rootAuth, from: GUESSER })).status).toBe(429);
        expect((await server.request('GET', '/api/v0/accounts', { auth: server.rootAuth, from: OWNER })).status).toBe(200);
        expect((await server.request('GET', '/v0/environments', { from: OWNER })).status).toBe(200);
        // What cannot be stored is not counted: a failure now is checked and answered, and limits nothing later.
        expect((await server.request('GET', '/v0/environments', { auth: basic(identityOf(server.auth), 'wrong'), from: OWNER })).status).toBe(401);
      } finally {
        disk.full = false;
      }
      expect(await db().handle.db.selectFrom('auth_failures').select('key').where('key', 'like', '%127.0.0.3').execute()).toEqual([]);
    });
  },
  'suite',
);
