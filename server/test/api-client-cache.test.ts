import { inspect } from 'node:util';
import type { KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs, QueryId, QueryResult, RootOperationNode, TableNode, UnknownRow } from 'kysely';
import { afterEach, beforeEach, it } from '@jest/globals';
import { API_CLIENT_CACHE_MAX_AGE_MS } from '../src/domain/auth/api-clients.js';
import { createApp } from '../src/http/app.js';
import { httpServerFor } from '../src/http/http-server.js';
import { createServices, type Services } from '../src/services.js';
import { createEnvironment } from './compliance.js';
import { describeEachDatabase } from './databases.js';
import { basic, useTestServer, type TestServer } from './server.js';
import { expect } from './expect.js';
import { listenInProcess } from './in-process-server.js';

/**
 * Counts the reads of the tables behind authentication and group policies: each run, including every run of a
 * prepared read, which is compiled once (server/src/storage/prepared.ts).
 */
class CredentialReads implements KyselyPlugin {
  readonly tables: string[] = [];
  /** The tables each compiled query reads, found when it is compiled, counted whenever it runs. */
  private readonly read = new WeakMap<QueryId, string[]>();

  transformQuery({ node, queryId }: PluginTransformQueryArgs): RootOperationNode {
    if (node.kind === 'SelectQueryNode') {
      const names = (node.from?.froms ?? []).map((from) => (from.kind === 'TableNode' ? (from as TableNode).table.identifier.name : undefined));
      this.read.set(queryId, names.filter((name) => name === 'api_clients' || name === 'group_api_clients'));
    }
    return node;
  }

  async transformResult({ result, queryId }: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    this.tables.push(...(this.read.get(queryId) ?? []));
    return result;
  }
}

const clientIdOf = (auth: string) => Buffer.from(auth.slice('Basic '.length), 'base64').toString('utf8').split(':')[0]!;
const secretOf = (auth: string) => Buffer.from(auth.slice('Basic '.length), 'base64').toString('utf8').split(':')[1]!;

// Each part has a database of its own: every test server starts with the same first organization and client.
describeEachDatabase(
  'API client credentials and grants reused between requests, in the process that made the change',
  (db) => {
    const reads = new CredentialReads();
    // The cache's clock stands still, so "less than a second" holds however slowly the machine runs the test.
    const testServer = useTestServer(db, { databasePlugins: [reads], apiClientCache: { now: () => 0 } });
    let server: TestServer;
    beforeEach(() => {
      server = testServer();
    });

    it('a caller known for less than a second reads neither its credentials nor its grants from the database', async () => {
      expect((await server.request('GET', '/v0/environments')).status).toBe(200);
      reads.tables.length = 0;
      for (let i = 0; i < 5; i += 1) expect((await server.request('GET', '/v0/environments')).status).toBe(200);
      expect(reads.tables).toEqual([]);
    });

    it('a wrong secret is checked against the database every time, and refused', async () => {
      expect((await server.request('GET', '/v0/environments')).status).toBe(200);
      const wrong = basic(clientIdOf(server.auth), `${secretOf(server.auth)}x`);
      reads.tables.length = 0;
      expect((await server.request('GET', '/v0/environments', { auth: wrong })).status).toBe(401);
      expect((await server.request('GET', '/v0/environments', { auth: wrong })).status).toBe(401);
      expect(reads.tables).toEqual(['api_clients', 'api_clients']);
    });

    it('keeps only a digest of the secret in memory', async () => {
      expect((await server.request('GET', '/v0/environments')).status).toBe(200);
      const memory = inspect(server.services.apiClients, { depth: 20, showHidden: true, maxArrayLength: null, maxStringLength: null });
      expect(memory).toContain(clientIdOf(server.auth));
      expect(memory).not.toContain(secretOf(server.auth));
    });

    it('revoking a secret refuses it on the next request', async () => {
      expect((await server.request('GET', '/v0/environments')).status).toBe(200);
      await server.services.apiClients.revokeSecret(server.orgId, clientIdOf(server.auth));
      expect((await server.request('GET', '/v0/environments')).status).toBe(401);
    });

    it('regenerating a secret refuses the old one and accepts the new one on the next request', async () => {
      expect((await server.request('GET', '/v0/environments')).status).toBe(200);
      const { secret } = await server.services.apiClients.generateSecret(server.orgId, clientIdOf(server.auth));
      expect((await server.request('GET', '/v0/environments')).status).toBe(401);
      expect((await server.request('GET', '/v0/environments', { auth: basic(clientIdOf(server.auth), secret) })).status).toBe(200);
    });

    it('deleting a client refuses it on the next request', async () => {
      expect((await server.request('GET', '/v0/environments')).status).toBe(200);
      await server.services.apiClients.delete(server.orgId, clientIdOf(server.auth));
      expect((await server.request('GET', '/v0/environments')).status).toBe(401);
    });

    it('placing a client in a group restricts it on the next request', async () => {
      const env = await createEnvironment(server);
      const { client, secret } = await server.services.apiClients.createWithSecret(server.orgId, 'soon restricted');
      const auth = basic(client.clientId, secret);
      expect((await server.request('GET', `/v0/environments/${env.id}`, { auth })).status).toBe(200);
      const group = await server.request('POST', '/v0/groups', {
        body: { name: 'no environments', policy: 'builtin:READONLY', environment_ids: [], api_client_ids: [client.clientId] },
      });
      expect(group.status, group.text).toBe(201);
      const denied = await server.request('GET', `/v0/environments/${env.id}`, { auth });
      expect(denied.status, denied.text).toBe(403);
      expect(denied.body.type).toBe('EnvironmentAccessDenied');
    });
  },
  'suite',
);

describeEachDatabase(
  'API client credentials and grants reused between requests, across two service instances over one database',
  (db) => {
    // The instance under test reads its cache ages from this clock; the other instance makes the changes.
    const time = { now: 0 };
    const testServer = useTestServer(db, { apiClientCache: { now: () => time.now } });
    let server: TestServer;
    let other: Services;
    beforeEach(() => {
      server = testServer();
      other = createServices(db().handle, server.clock);
      time.now = 0;
    });

    it(`a secret revoked elsewhere is refused here ${API_CLIENT_CACHE_MAX_AGE_MS} ms after it was last read, at the latest`, async () => {
      expect((await server.request('GET', '/v0/environments')).status).toBe(200);
      await other.apiClients.revokeSecret(server.orgId, clientIdOf(server.auth));
      time.now = API_CLIENT_CACHE_MAX_AGE_MS - 1;
      // Still within the bound: the credential verified at 0 ms is reused (this is the cache at work) …
      expect((await server.request('GET', '/v0/environments')).status).toBe(200);
      time.now = API_CLIENT_CACHE_MAX_AGE_MS;
      // … and from the bound on, the revocation holds.
      expect((await server.request('GET', '/v0/environments')).status).toBe(401);
    });

    it('a client deleted elsewhere is refused here within the bound', async () => {
      expect((await server.request('GET', '/v0/environments')).status).toBe(200);
      await other.apiClients.delete(server.orgId, clientIdOf(server.auth));
      time.now = API_CLIENT_CACHE_MAX_AGE_MS;
      expect((await server.request('GET', '/v0/environments')).status).toBe(401);
    });

    it('a secret issued elsewhere is accepted here at once, and the old one refused within the bound', async () => {
      expect((await server.request('GET', '/v0/environments')).status).toBe(200);
      const { secret } = await other.apiClients.generateSecret(server.orgId, clientIdOf(server.auth));
      expect((await server.request('GET', '/v0/environments', { auth: basic(clientIdOf(server.auth), secret) })).status).toBe(200);
      time.now = API_CLIENT_CACHE_MAX_AGE_MS;
      expect((await server.request('GET', '/v0/environments')).status).toBe(401);
    });

    it('a change underneath (a restore) takes effect at once when the service is told to forget', async () => {
      expect((await server.request('GET', '/v0/environments')).status).toBe(200);
      await other.apiClients.revokeSecret(server.orgId, clientIdOf(server.auth));
      server.services.apiClients.forgetAll();
      expect((await server.request('GET', '/v0/environments')).status).toBe(401);
    });

    it('a group created elsewhere restricts the client here within the bound', async () => {
      const env = await createEnvironment(server);
      expect((await server.request('GET', `/v0/environments/${env.id}`)).status).toBe(200);
      await other.access.createGroup(server.orgId, { name: 'elsewhere', policy: 'builtin:READONLY', environment_ids: [], api_client_ids: [clientIdOf(server.auth)] });
      time.now = API_CLIENT_CACHE_MAX_AGE_MS;
      expect((await server.request('GET', `/v0/environments/${env.id}`)).status).toBe(403);
    });
  },
  'suite',
);

describeEachDatabase(
  'API client credentials reused between requests, across two servers over one database, in real time',
  (db) => {
    const reads = new CredentialReads();
    const testServer = useTestServer(db, { databasePlugins: [reads] });
    let server: TestServer;
    let other: { services: Services; baseUrl: string; close(): Promise<void> };
    beforeEach(async () => {
      server = testServer();
      const services = createServices(db().handle, server.clock);
      const listening = httpServerFor(createApp({ services, validateResponses: true }).express);
      other = {
        services,
        baseUrl: await listenInProcess(listening),
        close: () => new Promise<void>((resolve) => listening.close(() => resolve())),
      };
    });
    afterEach(async () => {
      await other.close();
    });

    it('a secret revoked through the other server stops working here too, in real time', async () => {
      // Both servers know the caller.
      for (const base of [server.baseUrl, other.baseUrl]) {
        expect((await fetch(`${base}/v0/environments`, { headers: { authorization: server.auth } })).status).toBe(200);
      }
      await other.services.apiClients.revokeSecret(server.orgId, clientIdOf(server.auth));
      expect((await fetch(`${other.baseUrl}/v0/environments`, { headers: { authorization: server.auth } })).status).toBe(401);
      // Asks until refused (only the test's timeout gives up), noting whether each request read the client again.
      // The one-second bound itself is proven with a manual clock above; here the cache ages on the real clock, and
      // what counts is that the answers change exactly when this server reads the client again.
      const answers: Array<{ status: number; readTheClient: boolean }> = [];
      for (let status = 200; status === 200; ) {
        reads.tables.length = 0;
        status = (await server.request('GET', '/v0/environments')).status;
        answers.push({ status, readTheClient: reads.tables.includes('api_clients') });
        if (status === 200) await new Promise((resolve) => setTimeout(resolve, 20));
      }
      // Accepted while the credential verified before the revocation was reused, without reading the client; the
      // first request that read it again was refused.
      expect(answers.slice(0, -1).filter((answer) => answer.readTheClient)).toEqual([]);
      expect(answers.at(-1)).toEqual({ status: 401, readTheClient: true });
    });
  },
  'suite',
);
