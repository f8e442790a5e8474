import { beforeEach, it } from '@jest/globals';
import { createEnvironment, runScan, type Body } from './compliance.js';
import { describeEachDatabase } from './databases.js';
import { basic, useTestServer, type TestServer } from './server.js';
import { expect } from './expect.js';

/** The compliance API's group policies ("Access control" in the spec) for API clients placed in groups. */
describeEachDatabase('group policies of API clients', (db) => {
  const testServer = useTestServer(db);
  let server: TestServer;
  let covered: Body;
  let other: Body;
  beforeEach(async () => {
    server = testServer();
    covered = await createEnvironment(server, { name: 'covered' });
    other = await createEnvironment(server, { name: 'other' });
  });

  /** A new API client of the test's organization, placed in a new group granting `policy` over `environments`. */
  async function clientWith(policy: string, environments: string[]): Promise<string> {
    const { client, secret } = await server.services.apiClients.createWithSecret(server.orgId, `client-${policy}-${Math.random()}`);
    const group = await server.request('POST', '/v0/groups', {
      body: { name: `group-${Math.random()}`, policy, environment_ids: environments, api_client_ids: [client.clientId] },
    });
    expect(group.status, group.text).toBe(201);
    expect(group.body.api_clients).toEqual({ [client.clientId]: client.name });
    return basic(client.clientId, secret);
  }

  const expectDenied = (res: { status: number; body: Body }, type: 'AuthorizationError' | 'EnvironmentAccessDenied') => {
    expect(res.status, JSON.stringify(res.body)).toBe(403);
    expect(res.body).toMatchObject({ type, code: 403 });
    expect(res.body.message).toEqual(expect.any(String));
  };

  it('leaves an API client in no group unrestricted', async () => {
    expect((await server.request('DELETE', `/v0/environments/${other.id}`)).status).toBe(204);
  });

  it('lets a read-only client read covered environments only, and change nothing', async () => {
    const auth = await clientWith('builtin:READONLY', [covered.id]);
    expect((await server.request('GET', `/v0/environments/${covered.id}`, { auth })).status).toBe(200);
    expectDenied(await server.request('GET', `/v0/environments/${other.id}`, { auth }), 'EnvironmentAccessDenied');
    const listed = await server.request('GET', '/v0/environments?max_items=1', { auth });
    expect(listed.body).toMatchObject({ count: 1, is_truncated: false });
    expect(listed.body.items.map((e: Body) => e.id)).toEqual([covered.id]);
    expect((await server.request('GET', `/v0/events?environment_id=${covered.id}`, { auth })).status).toBe(200);
    expect((await server.request('GET', '/v0/rules', { auth })).status).toBe(200);
    expect((await server.request('GET', '/v0/metadata/provider_a/resource_types', { auth })).status).toBe(200);

    expectDenied(await server.request('PATCH', `/v0/environments/${covered.id}`, { auth, body: { name: 'renamed' } }), 'AuthorizationError');
    expectDenied(await server.request('POST', `/v0/scans?environment_id=${covered.id}`, { auth }), 'AuthorizationError');
    const environment = { name: 'x', provider: 'provider_a', provider_options: { provider_a: { role_arn: 'arn:prova:iam::123456789012:role/r', regions: ['*'] } } };
    expectDenied(await server.request('POST', '/v0/environments', { auth, body: environment }), 'AuthorizationError');
    expectDenied(await server.request('POST', '/v0/groups', { auth, body: { name: 'mine', policy: 'builtin:MANAGER' } }), 'AuthorizationError');
    // Nothing changed.
    expect((await server.request('GET', `/v0/environments/${covered.id}`)).body.name).toBe('covered');
  });

  it('answers 404, not 403, for ids the organization does not have', async () => {
    const auth = await clientWith('builtin:READONLY', [covered.id]);
    const unknown = '00000000-0000-4000-8000-000000000000';
    expect((await server.request('GET', `/v0/environments/${unknown}`, { auth })).status).toBe(404);
    expect((await server.request('GET', `/v0/scans/${unknown}`, { auth })).status).toBe(404);
  });

  it('checks scans and their results against the scan environment', async () => {
    const coveredScan = await runScan(server, covered.id);
    const otherScan = await runScan(server, other.id);
    const auth = await clientWith('builtin:ORGANIZATION_REPORT_VIEWER', [covered.id]);
    for (const suffix of ['', '/compliance_by_rules', '/compliance_by_resource_types']) {
      expect((await server.request('GET', `/v0/scans/${coveredScan.id}${suffix}`, { auth })).status).toBe(200);
      expectDenied(await server.request('GET', `/v0/scans/${otherScan.id}${suffix}`, { auth }), 'EnvironmentAccessDenied');
    }
    expect((await server.request('GET', `/v0/scans?environment_id=${covered.id}`, { auth })).status).toBe(200);
    // Results only: events, metadata and the organization's settings are beyond this policy.
    expectDenied(await server.request('GET', `/v0/events?environment_id=${covered.id}`, { auth }), 'AuthorizationError');
    expectDenied(await server.request('GET', '/v0/metadata/provider_a/resource_types', { auth }), 'AuthorizationError');
    expectDenied(await server.request('GET', '/v0/notifications', { auth }), 'AuthorizationError');
  });

  it('lets an editor change and scan covered environments but not delete them', async () => {
    const auth = await clientWith('builtin:EDITOR', [covered.id]);
    expect((await server.request('PATCH', `/v0/environments/${covered.id}`, { auth, body: { name: 'renamed' } })).status).toBe(200);
    expect((await server.request('POST', `/v0/scans?environment_id=${covered.id}`, { auth })).status).toBe(201);
    expectDenied(await server.request('POST', `/v0/scans?environment_id=${other.id}`, { auth }), 'EnvironmentAccessDenied');
    expectDenied(await server.request('DELETE', `/v0/environments/${covered.id}`, { auth }), 'AuthorizationError');
    const rule = await server.request('POST', '/v0/rules', {
      auth,
      body: { name: 'tagged', resource_type: 'PROVA.S3.Bucket', rule_text: 'true' },
    });
    expect(rule.status, rule.text).toBe(201);
  });

  it('creates environments only for contributors over all environments', async () => {
    const body = {
      name: 'new',
      provider: 'provider_a',
      provider_options: { provider_a: { role_arn: 'arn:prova:iam::123456789012:role/r', regions: ['*'] } },
    };
    const some = await clientWith('builtin:CONTRIBUTOR', [covered.id]);
    const refused = await server.request('POST', '/v0/environments', { auth: some, body });
    expectDenied(refused, 'AuthorizationError');
    expect(refused.body.message).toContain('all environments');
    expect((await server.request('DELETE', `/v0/environments/${covered.id}`, { auth: some })).status).toBe(204);

    const everywhere = await clientWith('builtin:CONTRIBUTOR', ['*']);
    expect((await server.request('POST', '/v0/environments', { auth: everywhere, body })).status).toBe(201);
    expect((await server.request('DELETE', `/v0/environments/${other.id}`, { auth: everywhere })).status).toBe(204);
  });

  it('takes the most privileged of several groups, from the next request on', async () => {
    const auth = await clientWith('builtin:READONLY', ['*']);
    const readers = await server.request('GET', '/v0/groups');
    const invite = { email: 'new@example.com', group_ids: [readers.body.items[0].id] };
    expectDenied(await server.request('POST', '/v0/invites', { auth, body: invite }), 'AuthorizationError');
    const clientId = Buffer.from(auth.slice('Basic '.length), 'base64').toString().split(':')[0]!;
    const managers = await server.request('POST', '/v0/groups', {
      body: { name: 'managers', policy: 'builtin:MANAGER', environment_ids: [], api_client_ids: [clientId] },
    });
    expect(managers.status, managers.text).toBe(201);
    expect((await server.request('POST', '/v0/invites', { auth, body: invite })).status).toBe(201);
    // The manager group covers no environment: environment changes still follow the read-only group.
    expectDenied(await server.request('PATCH', `/v0/environments/${covered.id}`, { auth, body: { name: 'x' } }), 'EnvironmentAccessDenied');
  });

  it('refuses unknown or repeated API clients in a new group', async () => {
    const unknown = await server.request('POST', '/v0/groups', { body: { name: 'g', policy: 'builtin:READONLY', api_client_ids: ['cl_unknown'] } });
    expect(unknown.status).toBe(404);
    expect(unknown.body.message).toContain('cl_unknown');
    const elsewhere = await server.services.organizations.ensure('group-policies-elsewhere');
    const { client } = await server.services.apiClients.createWithSecret(elsewhere.id, 'not ours');
    const foreign = await server.request('POST', '/v0/groups', { body: { name: 'g', policy: 'builtin:READONLY', api_client_ids: [client.clientId] } });
    expect(foreign.status).toBe(404);
    const repeated = await server.request('POST', '/v0/groups', { body: { name: 'g', policy: 'builtin:READONLY', api_client_ids: ['cl_a', 'cl_a'] } });
    expect(repeated.status).toBe(400);
    const listed = await server.request('GET', '/v0/groups');
    expect(listed.body.items).toEqual([]);
  });
}, 'suite');
