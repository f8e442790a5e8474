import { beforeEach, expect, it } from 'vitest';
import { createComplianceClient, createConductorClient } from '../../client/src/index.js';
import { describeEachDatabase } from './databases.js';
import { ROOT_SECRET, useTestServer, type TestServer } from './server.js';

/** The published client package, used the way an API consumer would against the real server. */
describeEachDatabase('typed client', (db) => {
  const testServer = useTestServer(db);
  let server: TestServer;
  beforeEach(() => {
    server = testServer();
  });

  const credentials = () => {
    const [user, secret] = Buffer.from(server.auth.slice('Basic '.length), 'base64').toString().split(':') as [string, string];
    return { user, secret };
  };

  it('creates, reads and lists environments through the compliance client', async () => {
    const client = createComplianceClient({ baseUrl: server.baseUrl, auth: credentials() });
    const created = await client.POST('/environments', {
      body: { name: 'from-client', provider: 'provider_a', provider_options: { provider_a: { role_arn: 'arn:prova:iam::123456789012:role/r', regions: ['*'] } } },
    });
    expect(created.response.status).toBe(201);
    const id = created.data!.id;
    const fetched = await client.GET('/environments/{environment_id}', { params: { path: { environment_id: id } } });
    expect(fetched.data?.name).toBe('from-client');
    const listed = await client.GET('/environments', { params: { query: { max_items: 10 } } });
    expect(listed.data?.items.map((e) => e.id)).toContain(id);
  });

  it('returns the error body of a refused request', async () => {
    const client = createComplianceClient({ baseUrl: server.baseUrl, auth: credentials() });
    const refused = await client.PATCH('/environments/{environment_id}', {
      params: { path: { environment_id: '3f1c2a9e-8b7d-4c6e-9f10-2a3b4c5d6e7f' } },
      body: { name: 'x' },
    });
    expect(refused.response.status).toBe(404);
    expect(refused.error).toMatchObject({ type: 'NotFound', code: 404 });
  });

  it('authenticates the conductor client as root', async () => {
    const client = createConductorClient({ baseUrl: server.baseUrl, auth: { user: 'root', secret: ROOT_SECRET } });
    const { response, data } = await client.GET('/accounts');
    expect(response.status).toBe(200);
    expect(data?.items).toEqual(expect.any(Array));
  });
}, 'suite');
