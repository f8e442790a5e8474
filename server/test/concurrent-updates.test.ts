import { beforeEach, describe, it } from '@jest/globals';
import { newId } from '../src/domain/ids.js';
import type { OrgUser } from '../src/domain/users/types.js';
import { KyselyUserRepository } from '../src/storage/repositories/users.js';
import { conductorClient } from './conductor.js';
import { describeEachDatabase } from './databases.js';
import { UNLIMITED_AUTHENTICATION_FAILURES, useTestServer, type TestServer } from './server.js';
import { expect } from './expect.js';

/**
 * Every update operation, sent several times at once to one record with each request changing something else:
 * every request that was answered with success must still be visible afterwards. A read-modify-write that reads
 * outside the write's transaction (or without the row locked) loses all but one of them.
 */
const ROUNDS = 20;
const ARN = 'arn:prova:iam::123456789012:role/compliance-scanner';
const PASSWORD = 'correct horse battery staple';

describeEachDatabase(
  'concurrent updates',
  (db) => {
    // Each round tries the secret that was replaced or revoked: failures the authentication limits would count.
    const testServer = useTestServer(db, { authenticationLimits: UNLIMITED_AUTHENTICATION_FAILURES });
    let server: TestServer;
    beforeEach(() => {
      server = testServer();
    });

    const ok = async (pending: Promise<{ status: number; text: string; body: any }>, ...statuses: number[]) => {
      const res = await pending;
      expect(statuses.length ? statuses : [200], res.text).toContain(res.status);
      return res.body;
    };

    it('keeps every field of concurrent environment PATCHes', async () => {
      const env = await ok(
        server.request('POST', '/v0/environments', {
          body: { name: 'prod', provider: 'provider_a', provider_options: { provider_a: { role_arn: ARN, regions: ['us-east-1'] } } },
        }),
        201,
      );
      for (let round = 1; round <= ROUNDS; round += 1) {
        const families = round % 2 === 0 ? ['CIS'] : ['NIST'];
        const interval = 3600 * (round + 1);
        await Promise.all([
          ok(server.request('PATCH', `/v0/environments/${env.id}`, { body: { name: `prod-${round}` } })),
          ok(server.request('PATCH', `/v0/environments/${env.id}`, { body: { scan_interval: interval } })),
          ok(server.request('PATCH', `/v0/environments/${env.id}`, { body: { compliance_families: families } })),
        ]);
        const read = await ok(server.request('GET', `/v0/environments/${env.id}`));
        expect(read, `round ${round}`).toMatchObject({ name: `prod-${round}`, scan_interval: interval, compliance_families: families });
      }
    });

    it('keeps every field of concurrent custom rule PATCHes', async () => {
      const rule = await ok(
        server.request('POST', '/v0/rules', {
          body: { name: 'versioning', description: 'first', resource_type: 'PROVA.S3.Bucket', rule_text: 'resource.properties.versioning == "Enabled"', families: ['CIS'] },
        }),
        201,
      );
      const severities = ['Low', 'Medium', 'High', 'Critical'];
      for (let round = 1; round <= ROUNDS; round += 1) {
        const severity = severities[round % severities.length];
        await Promise.all([
          ok(server.request('PATCH', `/v0/rules/${rule.id}`, { body: { name: `versioning ${round}` } })),
          ok(server.request('PATCH', `/v0/rules/${rule.id}`, { body: { description: `round ${round}` } })),
          ok(server.request('PATCH', `/v0/rules/${rule.id}`, { body: { severity } })),
        ]);
        const read = await ok(server.request('GET', `/v0/rules/${rule.id}`));
        expect(read, `round ${round}`).toMatchObject({ name: `versioning ${round}`, description: `round ${round}`, severity });
      }
    });

    it('keeps a new webhook secret when a concurrent notification PUT sends none', async () => {
      const base = { events: ['drift'], environments: ['*'], webhook_url: 'https://hooks.example.com/x' };
      const created = await ok(server.request('POST', '/v0/notifications', { body: { ...base, name: 'n', webhook_secret: 'secret-number-0000' } }), 201);
      const id = created.notification_id as string;
      for (let round = 1; round <= ROUNDS; round += 1) {
        const secret = `secret-number-${String(round).padStart(4, '0')}`;
        const [withSecret, without] = await Promise.all([
          ok(server.request('PUT', `/v0/notifications/${id}`, { body: { ...base, name: `with secret ${round}`, webhook_secret: secret } })),
          ok(server.request('PUT', `/v0/notifications/${id}`, { body: { ...base, name: `without ${round}` } })),
        ]);
        expect([withSecret.name, without.name]).toEqual([`with secret ${round}`, `without ${round}`]);
        // Whichever PUT ran last, the secret is the new one: a PUT without a secret keeps the stored one.
        const stored = await server.services.notifications.get(server.orgId, id);
        expect(stored.webhookSecret, `round ${round}`).toBe(secret);
        expect([`with secret ${round}`, `without ${round}`]).toContain(stored.name);
      }
    });

    it('leaves each user in exactly one of the group sets assigned at once', async () => {
      const now = server.clock.nowSeconds();
      const addUser = async (n: number): Promise<OrgUser> => {
        const user: OrgUser = {
          id: newId(),
          orgId: server.orgId,
          email: `concurrent-${newId()}-${n}@example.com`,
          firstName: null,
          lastName: null,
          passwordHash: null,
          owner: false,
          status: 'ACTIVE',
          createdAt: now,
          updatedAt: now,
        };
        await new KyselyUserRepository(db().handle.db).insert(user);
        return user;
      };
      const [dana, sam] = [await addUser(1), await addUser(2)];
      const groups: string[] = [];
      for (const name of ['Auditors', 'Editors', 'Ops', 'Readers']) {
        groups.push((await ok(server.request('POST', '/v0/groups', { body: { name, policy: 'builtin:READONLY' } }), 201)).id);
      }
      const groupsOf = async (userId: string) => Object.keys((await ok(server.request('GET', `/v0/users/${userId}`))).groups).sort();
      for (let round = 1; round <= ROUNDS; round += 1) {
        const sets = [[groups[0]!, groups[1]!], [groups[2]!], [groups[1]!, groups[3]!]].map((s) => s.sort());
        await Promise.all([
          ok(server.request('PATCH', '/v0/users', { body: { user_ids: [dana.id, sam.id], group_ids: sets[0] } })),
          ok(server.request('PATCH', '/v0/users', { body: { user_ids: [sam.id, dana.id], group_ids: sets[1] } })),
          ok(server.request('PATCH', '/v0/users', { body: { user_ids: [dana.id], group_ids: sets[2] } })),
        ]);
        expect(sets, `round ${round}: dana`).toContainEqual(await groupsOf(dana.id));
        expect(sets.slice(0, 2), `round ${round}: sam`).toContainEqual(await groupsOf(sam.id));
      }
    });

    it('keeps an API client consistent with concurrent secret regenerations and revocations', async () => {
      const email = `concurrent-${newId()}@example.com`;
      await server.services.consoleAuth.createUser(server.orgId, email, PASSWORD, { firstName: 'Ada', lastName: 'Lovelace' });
      const signedIn = await server.request('POST', '/console/api/session', { body: { email, password: PASSWORD }, auth: null });
      expect(signedIn.status, signedIn.text).toBe(200);
      const headers = { cookie: signedIn.headers.get('set-cookie')!.split(';')[0]!, 'x-csrf-token': signedIn.body.csrf_token as string };
      const call = (method: string, path: string, body?: unknown) => server.request(method, `/console/api${path}`, { auth: null, headers, ...(body !== undefined && { body }) });
      const { client_id: clientId } = await ok(call('POST', '/api-clients', { name: 'ci' }), 201);
      for (let round = 1; round <= ROUNDS; round += 1) {
        const answers = await Promise.all([call('POST', `/api-clients/${clientId}/secret`), call('POST', `/api-clients/${clientId}/secret`), call('DELETE', `/api-clients/${clientId}/secret`)]);
        for (const answer of answers) expect([200, 201, 409], answer.text).toContain(answer.status);
        const secrets = answers.slice(0, 2).map((a) => a.body?.client_secret as string | undefined);
        expect(secrets.every((s) => typeof s === 'string'), `round ${round}: both regenerations succeed`).toBe(true);
        // Whatever order they ran in, at most one issued secret works, and one does exactly when the client is Active.
        const working = [];
        for (const secret of secrets) {
          const res = await server.request('GET', '/v0/environments', { auth: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}` });
          if (res.status === 200) working.push(secret);
        }
        const listed = (await ok(call('GET', '/api-clients'))).items.find((c: any) => c.client_id === clientId);
        expect(working.length, `round ${round}: working secrets`).toBe(listed.status === 'Active' ? 1 : 0);
      }
    });

    it('keeps every field of concurrent process PATCHes', async () => {
      const { call, addAccount, createProcess } = conductorClient(() => server);
      const account = await addAccount();
      const process = await createProcess(account.name);
      for (let round = 1; round <= ROUNDS; round += 1) {
        const enforcement = round % 2 === 0;
        const lock = round % 2 === 1;
        await Promise.all([
          ok(call('PATCH', `/processes/${process.fid}`, { alias: `web-${round}-${newId().slice(0, 8)}` }), 200, 202),
          ok(call('PATCH', `/processes/${process.fid}`, { enforcement }), 200, 202),
          ok(call('PATCH', `/processes/${process.fid}`, { lock }), 200, 202),
        ]);
        const read = await ok(call('GET', `/processes/${process.fid}`));
        expect(read, `round ${round}`).toMatchObject({ alias: expect.stringMatching(new RegExp(`^web-${round}-`)), enforcement, lock });
      }
    });
  },
  'suite',
);
