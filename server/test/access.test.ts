import { beforeEach, describe, it } from '@jest/globals';
import { newId } from '../src/domain/ids.js';
import type { OrgUser } from '../src/domain/users/types.js';
import { KyselyUserRepository } from '../src/storage/repositories/users.js';
import { describeEachDatabase } from './databases.js';
import { useTestServer, type TestServer } from './server.js';
import { expect } from './expect.js';

const WEEK = 7 * 24 * 3600;

describeEachDatabase(
  'invites, groups and users API',
  (db) => {
    const testServer = useTestServer(db);
    let server: TestServer;
    beforeEach(() => {
      server = testServer();
    });

    let emails = 0;
    /** Users join through the web console; the tests put them straight into the organization. */
    const addUser = async (details: Partial<OrgUser> = {}): Promise<OrgUser> => {
      const now = server.clock.nowSeconds();
      emails += 1;
      const user: OrgUser = {
        id: newId(),
        orgId: server.orgId,
        email: `person${emails}@example.com`,
        firstName: null,
        lastName: null,
        passwordHash: null,
        owner: false,
        status: 'ACTIVE',
        createdAt: now,
        updatedAt: now,
        ...details,
      };
      await new KyselyUserRepository(db().handle.db).insert(user);
      return { ...user, email: user.email.toLowerCase() };
    };

    const createGroup = async (body: Record<string, unknown> = {}) => {
      const res = await server.request('POST', '/v0/groups', { body: { name: 'Auditors', policy: 'builtin:AUDITOR', ...body } });
      expect(res.status, res.text).toBe(201);
      return res.body as Record<string, any>;
    };

    const createEnvironment = async (name: string) => {
      const res = await server.request('POST', '/v0/environments', {
        body: { name, provider: 'provider_a', provider_options: { provider_a: { role_arn: 'arn:prova:iam::123456789012:role/scanner', regions: ['us-east-1'] } } },
      });
      expect(res.status, res.text).toBe(201);
      return res.body as Record<string, any>;
    };

    const invite = (body: Record<string, unknown>) => server.request('POST', '/v0/invites', { body });

    const expectError = async (status: number, res: Promise<{ status: number; body: any; text: string }>, message: RegExp) => {
      const answer = await res;
      expect(answer.status, answer.text).toBe(status);
      expect(answer.body).toMatchObject({ code: status, message: expect.stringMatching(message) });
    };

    describe('groups', () => {
      it('creates a group over named environments, or over all of them with *', async () => {
        const prod = await createEnvironment('prod');
        const staging = await createEnvironment('staging');
        const editors = await createGroup({ name: 'Editors', policy: 'builtin:EDITOR', environment_ids: [prod.id, staging.id] });
        expect(editors).toEqual({
          id: expect.stringMatching(/^[0-9a-f-]{36}$/),
          name: 'Editors',
          policy: 'builtin:EDITOR',
          environments: { [prod.id]: 'prod', [staging.id]: 'staging' },
          users: {},
          api_clients: {},
        });
        const auditors = await createGroup({ environment_ids: ['*'] });
        expect(auditors.environments).toEqual({ '*': 'All environments' });
        expect((await createGroup({ name: 'Nobody' })).environments).toEqual({});
      });

      it('refuses a duplicate name (case-insensitively), unknown environments, * among ids and unknown policies', async () => {
        await createGroup();
        await expectError(400, server.request('POST', '/v0/groups', { body: { name: 'AUDITORS', policy: 'builtin:READONLY' } }), /^name: a group named 'AUDITORS' already exists$/);
        const missing = newId();
        await expectError(404, server.request('POST', '/v0/groups', { body: { name: 'x', policy: 'builtin:READONLY', environment_ids: [missing] } }), new RegExp(`^environment_ids: environment ${missing} not found$`));
        const prod = await createEnvironment('prod');
        await expectError(400, server.request('POST', '/v0/groups', { body: { name: 'x', policy: 'builtin:READONLY', environment_ids: ['*', prod.id] } }), /^environment_ids: '\*' stands for all/);
        await expectError(400, server.request('POST', '/v0/groups', { body: { name: 'x', policy: 'vendor:READONLY' } }), /^policy: must be equal to one of the allowed values/);
        await expectError(400, server.request('POST', '/v0/groups', { body: { name: '  ', policy: 'builtin:READONLY' } }), /^name: must not be blank$/);
        await expectError(400, server.request('POST', '/v0/groups', { body: { policy: 'builtin:READONLY' } }), /^name: is required$/);
        expect((await server.request('GET', '/v0/groups')).body.items.map((g: any) => g.name)).toEqual(['Auditors']);
      });

      it("refuses another organization's environments as unknown, and lets it use the same group names", async () => {
        const prod = await createEnvironment('prod');
        await createGroup();
        await server.useNewTenant();
        await expectError(404, server.request('POST', '/v0/groups', { body: { name: 'x', policy: 'builtin:READONLY', environment_ids: [prod.id] } }), /not found/);
        await createGroup();
        expect((await server.request('GET', '/v0/groups')).body.count).toBe(1);
      });

      it('lists groups by name, ascending and 10 per page by default', async () => {
        const names = Array.from({ length: 11 }, (_, i) => `group ${String(i).padStart(2, '0')}`);
        for (const name of [...names].reverse()) await createGroup({ name });
        const first = await server.request('GET', '/v0/groups');
        expect(first.body).toMatchObject({ count: 10, is_truncated: true, next_offset: 10 });
        expect(first.body.items.map((g: any) => g.name)).toEqual(names.slice(0, 10));
        const rest = await server.request('GET', '/v0/groups?offset=10');
        expect(rest.body).toEqual({ count: 1, is_truncated: false, items: [expect.objectContaining({ name: 'group 10' })] });
        const descending = await server.request('GET', '/v0/groups?order_direction=desc&max_items=3');
        expect(descending.body.items.map((g: any) => g.name)).toEqual(['group 10', 'group 09', 'group 08']);
      });

      it('shows each group without the environments deleted since', async () => {
        const prod = await createEnvironment('prod');
        const staging = await createEnvironment('staging');
        const group = await createGroup({ environment_ids: [prod.id, staging.id] });
        expect((await server.request('DELETE', `/v0/environments/${staging.id}`)).status).toBe(204);
        const listed = await server.request('GET', '/v0/groups');
        expect(listed.body.items).toEqual([{ ...group, environments: { [prod.id]: 'prod' } }]);
      });
    });

    describe("users' group assignments", () => {
      it('sets the groups of several users at once, replacing their memberships', async () => {
        const dana = await addUser({ firstName: 'Dana', lastName: 'Lee' });
        const sam = await addUser();
        const auditors = await createGroup();
        const editors = await createGroup({ name: 'Editors', policy: 'builtin:EDITOR' });
        const ops = await createGroup({ name: 'Ops', policy: 'builtin:MANAGER' });
        const assign = (userIds: string[], groupIds: string[]) => server.request('PATCH', '/v0/users', { body: { user_ids: userIds, group_ids: groupIds } });

        const done = await assign([dana.id, sam.id], [auditors.id, editors.id]);
        expect(done.status, done.text).toBe(200);
        expect(done.text).toBe('');
        expect((await server.request('GET', `/v0/users/${dana.id}`)).body.groups).toEqual({ [auditors.id]: 'Auditors', [editors.id]: 'Editors' });
        const groups = (await server.request('GET', '/v0/groups')).body.items;
        expect(groups.find((g: any) => g.id === auditors.id).users).toEqual({ [dana.id]: 'Dana Lee', [sam.id]: sam.email });

        expect((await assign([dana.id], [ops.id])).status).toBe(200);
        expect((await server.request('GET', `/v0/users/${dana.id}`)).body.groups).toEqual({ [ops.id]: 'Ops' });
        expect((await server.request('GET', `/v0/users/${sam.id}`)).body.groups).toEqual({ [auditors.id]: 'Auditors', [editors.id]: 'Editors' });

        expect((await assign([sam.id], [])).status).toBe(200);
        expect((await server.request('GET', `/v0/users/${sam.id}`)).body.groups).toEqual({});
      });

      it('changes nothing when a user or group id is unknown or belongs to another organization', async () => {
        const dana = await addUser();
        const auditors = await createGroup();
        const editors = await createGroup({ name: 'Editors' });
        await server.request('PATCH', '/v0/users', { body: { user_ids: [dana.id], group_ids: [auditors.id] } });
        const missingUser = newId();
        const missingGroup = newId();
        await expectError(404, server.request('PATCH', '/v0/users', { body: { user_ids: [dana.id, missingUser], group_ids: [editors.id] } }), new RegExp(`^user_ids: user ${missingUser} not found$`));
        await expectError(404, server.request('PATCH', '/v0/users', { body: { user_ids: [dana.id], group_ids: [editors.id, missingGroup] } }), new RegExp(`^group_ids: group ${missingGroup} not found$`));
        expect((await server.request('GET', `/v0/users/${dana.id}`)).body.groups).toEqual({ [auditors.id]: 'Auditors' });

        await server.useNewTenant();
        const other = await createGroup();
        await expectError(404, server.request('PATCH', '/v0/users', { body: { user_ids: [dana.id], group_ids: [other.id] } }), /^user_ids: user .* not found$/);
        const local = await addUser();
        await expectError(404, server.request('PATCH', '/v0/users', { body: { user_ids: [local.id], group_ids: [auditors.id] } }), /^group_ids: group .* not found$/);
        await expectError(400, server.request('PATCH', '/v0/users', { body: { user_ids: [], group_ids: [] } }), /^user_ids: must NOT have fewer than 1 items$/);
      });
    });

    describe('invites', () => {
      it('creates a PENDING invite that expires in 7 days, with its groups', async () => {
        const auditors = await createGroup();
        const res = await invite({ email: 'Dana.Lee@Example.com', group_ids: [auditors.id] });
        expect(res.status, res.text).toBe(201);
        const now = server.clock.nowSeconds();
        expect(res.body).toEqual({
          id: expect.stringMatching(/^[0-9a-f-]{36}$/),
          email: 'dana.lee@example.com',
          groups: { [auditors.id]: 'Auditors' },
          status: 'PENDING',
          created_at: now,
          updated_at: now,
          expires_at: now + WEEK,
          delivery_error: null,
          resource_type: 'invite',
        });
        expect((await server.request('GET', `/v0/invites/${res.body.id}`)).body).toEqual(res.body);
      });

      it('expires with the clock, after which the address can be invited again', async () => {
        const auditors = await createGroup();
        const first = (await invite({ email: 'dana@example.com', group_ids: [auditors.id] })).body;
        server.clock.advanceSeconds(WEEK - 1);
        expect((await server.request('GET', `/v0/invites/${first.id}`)).body.status).toBe('PENDING');
        await expectError(400, invite({ email: 'DANA@example.com', group_ids: [auditors.id] }), /^email: dana@example\.com already has a PENDING invite$/);
        server.clock.advanceSeconds(1);
        expect((await server.request('GET', `/v0/invites/${first.id}`)).body.status).toBe('EXPIRED');
        const second = await invite({ email: 'dana@example.com', group_ids: [auditors.id] });
        expect(second.status, second.text).toBe(201);
        const listed = (await server.request('GET', `/v0/invites?email=${encodeURIComponent('dana@example.com')}`)).body.items;
        expect(listed.map((i: any) => [i.id, i.status])).toEqual([
          [second.body.id, 'PENDING'],
          [first.id, 'EXPIRED'],
        ]);
      });

      it('never expires an invite made with expires false', async () => {
        const auditors = await createGroup();
        const res = await invite({ email: 'sam@example.com', group_ids: [auditors.id], expires: false });
        expect(res.body).toMatchObject({ expires_at: null, status: 'PENDING' });
        server.clock.advanceSeconds(10 * WEEK);
        expect((await server.request('GET', `/v0/invites/${res.body.id}`)).body.status).toBe('PENDING');
        await expectError(400, invite({ email: 'sam@example.com', group_ids: [auditors.id] }), /already has a PENDING invite/);
      });

      it('refuses addresses of users of the organization, unknown groups and invalid addresses', async () => {
        const auditors = await createGroup();
        const dana = await addUser({ email: 'dana@example.com' });
        await expectError(400, invite({ email: 'Dana@example.com', group_ids: [auditors.id] }), new RegExp(`^email: dana@example\\.com already belongs to user ${dana.id}$`));
        const missing = newId();
        await expectError(404, invite({ email: 'new@example.com', group_ids: [auditors.id, missing] }), new RegExp(`^group_ids: group ${missing} not found$`));
        await expectError(400, invite({ email: 'not an address', group_ids: [auditors.id] }), /^email: must match format "email"$/);
        await expectError(400, invite({ email: 'new@example.com', group_ids: [] }), /^group_ids: must NOT have fewer than 1 items$/);
        expect((await server.request('GET', '/v0/invites')).body.items).toEqual([]);
      });

      it('lists invites newest first by default, by email, page by page', async () => {
        const auditors = await createGroup();
        const ids: string[] = [];
        for (const name of ['a', 'b', 'c']) {
          ids.push((await invite({ email: `${name}@example.com`, group_ids: [auditors.id] })).body.id);
          server.clock.advanceSeconds(60);
        }
        const all = await server.request('GET', '/v0/invites');
        expect(all.body.items.map((i: any) => i.id)).toEqual([...ids].reverse());
        const ascending = await server.request('GET', '/v0/invites?order_direction=asc&max_items=2');
        expect(ascending.body).toMatchObject({ count: 2, is_truncated: true, next_offset: 2 });
        expect(ascending.body.items.map((i: any) => i.id)).toEqual(ids.slice(0, 2));
        const one = await server.request('GET', `/v0/invites?email=${encodeURIComponent('B@example.com')}`);
        expect(one.body.items.map((i: any) => i.email)).toEqual(['b@example.com']);
      });

      it("answers 404 for unknown invites and another organization's", async () => {
        const auditors = await createGroup();
        const created = (await invite({ email: 'dana@example.com', group_ids: [auditors.id] })).body;
        await expectError(404, server.request('GET', `/v0/invites/${newId()}`), /^invite .* not found$/);
        await server.useNewTenant();
        await expectError(404, server.request('GET', `/v0/invites/${created.id}`), /not found/);
        expect((await server.request('GET', '/v0/invites')).body.items).toEqual([]);
        await expectError(404, invite({ email: 'dana@example.com', group_ids: [auditors.id] }), /^group_ids: group .* not found$/);
      });
    });

    describe('users', () => {
      it('lists the users newest first by default, by email, page by page', async () => {
        const first = await addUser({ firstName: 'Dana', lastName: 'Lee', owner: true });
        server.clock.advanceSeconds(10);
        const second = await addUser({ status: 'DISABLED' });
        const all = await server.request('GET', '/v0/users');
        expect(all.status).toBe(200);
        expect(all.body).toEqual({
          count: 2,
          is_truncated: false,
          items: [
            { id: second.id, email: second.email, owner: false, status: 'DISABLED', groups: {}, resource_type: 'user' },
            { id: first.id, email: first.email, first_name: 'Dana', last_name: 'Lee', owner: true, status: 'ACTIVE', groups: {}, resource_type: 'user' },
          ],
        });
        const ascending = await server.request('GET', '/v0/users?order_direction=asc&max_items=1');
        expect(ascending.body).toMatchObject({ count: 1, is_truncated: true, next_offset: 1, items: [{ id: first.id }] });
        const byEmail = await server.request('GET', `/v0/users?email=${encodeURIComponent(first.email.toUpperCase())}`);
        expect(byEmail.body.items.map((u: any) => u.id)).toEqual([first.id]);
      });

      it("answers 404 for unknown users and another organization's", async () => {
        const dana = await addUser();
        expect((await server.request('GET', `/v0/users/${dana.id}`)).body).toMatchObject({ id: dana.id, email: dana.email });
        await expectError(404, server.request('GET', `/v0/users/${newId()}`), /^user .* not found$/);
        await server.useNewTenant();
        await expectError(404, server.request('GET', `/v0/users/${dana.id}`), /not found/);
        expect((await server.request('GET', '/v0/users')).body.items).toEqual([]);
      });
    });
  },
  'suite',
);
