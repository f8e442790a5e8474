import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { beforeEach, describe, it } from '@jest/globals';
import { ManualClock } from '../src/domain/clock.js';
import { RbacService } from '../src/domain/conductor/rbac.js';
import { loadApiDocument, type ApiDocument } from '../src/http/apis.js';
import { authorizeConductor, CONDUCTOR_ACCESS, operationsWithoutAccess } from '../src/http/conductor/authorization.js';
import { PROJECT_ROOT } from '../src/paths.js';
import { KyselyConductorUserRepository } from '../src/storage/repositories/conductor-users.js';
import { KyselyRbacPolicyRepository } from '../src/storage/repositories/rbac-policy.js';
import { countedText } from './counted-text.js';
import { describeEachDatabase } from './databases.js';
import { filesTar, HOSTILE_ARCHIVES } from './fixtures/archives.js';
import { basic, useTestServer, type TestServer } from './server.js';
import { expect } from './expect.js';

const EXAMPLE_POLICY = readFileSync(join(PROJECT_ROOT, 'examples/conductor/policy/policy.yaml'), 'utf8');
const policyTar = (text: string) => filesTar({ 'policy.yaml': text });

describeEachDatabase(
  'conductor rbac',
  (db) => {
    const testServer = useTestServer(db);
    let server: TestServer;
    // The policy is one per deployment: every test starts without one.
    beforeEach(async () => {
      server = testServer();
      const detached = await server.request('DELETE', '/api/v0/rbac', { auth: server.rootAuth });
      expect([200, 404]).toContain(detached.status);
    });

    const asRoot = (method: string, path: string, body?: Buffer) => server.request(method, `/api/v0${path}`, { auth: server.rootAuth, body });
    const attach = async (text: string) => {
      const res = await asRoot('POST', '/rbac', await policyTar(text));
      expect(res.status, res.text).toBe(200);
      return res.body;
    };
    const secretOf = async (user: string) => {
      const res = await asRoot('PUT', `/rbac/users/${user}/secret`);
      expect(res.status, res.text).toBe(200);
      return basic(user, res.body.secret as string);
    };
    const names = (list: { items: Array<{ name: string }> }) => list.items.map((item) => item.name);
    const uploadLibrary = async (name: string) => {
      const res = await asRoot('POST', `/validations?name=${name}`, await filesTar({ 'rules.yaml': 'rules: []\n' }));
      expect([201, 409]).toContain(res.status);
    };

    describe('without a policy', () => {
      it('only root exists, and root may do everything', async () => {
        expect((await asRoot('GET', '/rbac/status')).body).toEqual({ applied: false, attached_at: null, sha256: null, users: 0 });
        const users = await asRoot('GET', '/rbac/users');
        expect(users.body).toEqual({ count: 1, items: [{ name: 'root', has_secret: true, secret_created_at: expect.any(Number) }] });
        expect((await asRoot('GET', '/rbac/archive')).status).toBe(404);
        expect((await asRoot('DELETE', '/rbac')).status).toBe(404);
        const undeclared = await asRoot('PUT', '/rbac/users/alice/secret');
        expect(undeclared.status).toBe(404);
        expect(undeclared.body.errors).toEqual([{ code: 'not_found', message: "no declared user named 'alice'", location: 'path.user' }]);
        expect((await server.request('GET', '/api/v0/rbac/status', { auth: basic('alice', 'anything-at-all') })).status).toBe(401);
      });

      it("refuses to change root's secret through the API, which keeps working", async () => {
        const res = await asRoot('PUT', '/rbac/users/root/secret');
        expect(res.status).toBe(400);
        expect(res.body).toMatchObject({ code: 400, errors: [{ code: 'rbac.root_secret', location: 'path.user' }] });
        expect((await asRoot('GET', '/rbac/status')).status).toBe(200);
      });
    });

    describe('attaching, reading and detaching a policy', () => {
      it('attaches the policy, answering its status, its exact bytes and its users without secrets', async () => {
        const archive = await policyTar(EXAMPLE_POLICY);
        const attached = await asRoot('POST', '/rbac', archive);
        expect(attached.status, attached.text).toBe(200);
        const status = { applied: true, attached_at: server.clock.nowSeconds(), sha256: createHash('sha256').update(archive).digest('hex'), users: 2 };
        expect(attached.body).toEqual(status);
        expect((await asRoot('GET', '/rbac/status')).body).toEqual(status);

        const download = await fetch(`${server.baseUrl}/api/v0/rbac/archive`, { headers: { authorization: server.rootAuth } });
        expect(download.status).toBe(200);
        expect(download.headers.get('content-type')).toMatch(/^application\/x-tar/);
        expect(Buffer.from(await download.arrayBuffer()).equals(archive)).toBe(true);

        const users = await asRoot('GET', '/rbac/users');
        expect(users.body.items).toEqual([
          { name: 'root', has_secret: true, secret_created_at: expect.any(Number) },
          { name: 'alice', has_secret: false, secret_created_at: null },
          { name: 'bob', has_secret: false, secret_created_at: null },
        ]);
        // A declared user cannot authenticate before a secret is generated for it.
        expect((await server.request('GET', '/api/v0/rbac/status', { auth: basic('alice', '') })).status).toBe(401);
      });

      it('accepts a gzipped policy sent as application/octet-stream', async () => {
        const archive = gzipSync(await policyTar(EXAMPLE_POLICY));
        const res = await server.request('POST', '/api/v0/rbac', {
          auth: server.rootAuth,
          body: archive,
          headers: { 'content-type': 'application/octet-stream' },
        });
        expect(res.status, res.text).toBe(200);
        expect(res.body).toMatchObject({ applied: true, users: 2, sha256: createHash('sha256').update(archive).digest('hex') });
      });

      it('gives a new secret once; the previous one stops at once', async () => {
        await attach(EXAMPLE_POLICY);
        const first = await secretOf('alice');
        expect((await server.request('GET', '/api/v0/rbac/status', { auth: first })).status).toBe(200);
        server.clock.advanceSeconds(60);
        const reset = await asRoot('PUT', '/rbac/users/alice/secret');
        expect(reset.body).toEqual({ user: 'alice', secret: expect.stringMatching(/^[A-Za-z0-9_-]{43,}$/) });
        // A secret shown once is kept by no cache on the way (the spec fixes the header; the dispatcher sends it).
        expect(reset.headers.get('cache-control')).toBe('no-store');
        const refused = await server.request('GET', '/api/v0/rbac/status', { auth: first });
        expect(refused.status).toBe(401);
        expect(refused.headers.get('www-authenticate')).toMatch(/^Basic realm="conductor"/);
        expect((await server.request('GET', '/api/v0/rbac/status', { auth: basic('alice', reset.body.secret) })).status).toBe(200);
        const users = await asRoot('GET', '/rbac/users');
        expect(users.body.items[1]).toEqual({ name: 'alice', has_secret: true, secret_created_at: server.clock.nowSeconds() });
      });

      it('drops the secrets of users a new policy no longer declares; detaching leaves only root', async () => {
        await attach(EXAMPLE_POLICY);
        const alice = await secretOf('alice');
        const bob = await secretOf('bob');
        const onlyAlice = await attach('users: [alice, carol]\nrules: []\n');
        expect(onlyAlice.users).toBe(2);
        expect((await server.request('GET', '/api/v0/rbac/status', { auth: bob })).status).toBe(401);
        expect(names((await asRoot('GET', '/rbac/users')).body)).toEqual(['root', 'alice', 'carol']);
        // alice is still declared: her secret still works (and the empty policy lets her do nothing).
        expect((await server.request('GET', '/api/v0/rbac/status', { auth: alice })).status).toBe(403);

        const detached = await asRoot('DELETE', '/rbac');
        expect(detached.body).toEqual({ applied: false, attached_at: null, sha256: null, users: 0 });
        expect((await server.request('GET', '/api/v0/rbac/status', { auth: alice })).status).toBe(401);
        expect(names((await asRoot('GET', '/rbac/users')).body)).toEqual(['root']);
        expect((await asRoot('GET', '/rbac/archive')).status).toBe(404);
        // Declaring bob again gives him no secret back.
        await attach(EXAMPLE_POLICY);
        expect((await server.request('GET', '/api/v0/rbac/status', { auth: bob })).status).toBe(401);
      });

      it.each(Object.keys(HOSTILE_ARCHIVES))('refuses the hostile archive %s with a 400, keeping the attached policy', async (hostile) => {
        const before = await attach(EXAMPLE_POLICY);
        const res = await asRoot('POST', '/rbac', await HOSTILE_ARCHIVES[hostile]!());
        expect(res.status, res.text).toBe(400);
        expect(res.body.errors[0].code).toMatch(/^archive\./);
        expect((await asRoot('GET', '/rbac/status')).body).toEqual(before);
      });

      it('refuses an invalid policy, listing every problem by place', async () => {
        const text = [
          'users: [alice, root, alice, "has space"]',
          'rules:',
          '  - principals: [carol, "*"]',
          '    actions: ["process:write", "processes:*"]',
          '    resources: ["process", "x*", "process:web-*"]',
          '    effect: allow',
          '  - principals: []',
          '    actions: "*"',
          '    resources: ["*"]',
        ].join('\n');
        const res = await asRoot('POST', '/rbac', await policyTar(text));
        expect(res.status).toBe(400);
        expect(res.body.errors.map((e: { location: string }) => e.location)).toEqual([
          'policy.yaml:users[1]',
          'policy.yaml:users[2]',
          'policy.yaml:users[3]',
          'policy.yaml:rules[0].effect',
          'policy.yaml:rules[0].principals[0]',
          'policy.yaml:rules[0].actions[0]',
          'policy.yaml:rules[0].resources[0]',
          'policy.yaml:rules[0].resources[1]',
          'policy.yaml:rules[1].principals',
          'policy.yaml:rules[1].actions',
        ]);
        expect(res.body.errors.every((e: { code: string }) => e.code === 'policy.invalid')).toBe(true);
        expect(res.body.errors[5].message).toMatch(/action 'process:write' matches no action/);

        const syntax = await asRoot('POST', '/rbac', await policyTar('users: [alice\n'));
        expect(syntax.status).toBe(400);
        expect(syntax.body.errors[0]).toMatchObject({ code: 'yaml.syntax', location: 'policy.yaml' });
        const missing = await asRoot('POST', '/rbac', await filesTar({ 'rules.yaml': 'rules: []' }));
        expect(missing.body.errors[0]).toMatchObject({ code: 'archive.missing_file', location: 'policy.yaml' });
        expect((await asRoot('GET', '/rbac/status')).body.applied).toBe(false);
      });
    });

    describe('enforcing the policy', () => {
      it('answers 403 outside the policy and lets the user act inside it', async () => {
        await attach(
          [
            'users: [alice, bob]',
            'rules:',
            '  - principals: [alice]',
            '    actions: ["validations:write"]',
            '    resources: ["validation:team-*"]',
            '  - principals: ["*"]',
            '    actions: ["*:read"]',
            '    resources: ["*"]',
          ].join('\n'),
        );
        const alice = await secretOf('alice');
        const bob = await secretOf('bob');
        const tar = await filesTar({ 'rules.yaml': 'rules: []\n' });

        const inside = await server.request('POST', '/api/v0/validations?name=team-web', { auth: alice, body: tar });
        expect(inside.status, inside.text).toBe(201);
        const outside = await server.request('POST', '/api/v0/validations?name=shared', { auth: alice, body: tar });
        expect(outside.status).toBe(403);
        expect(outside.body).toEqual({
          code: 403,
          message: 'Forbidden',
          errors: [{ code: 'rbac.denied', message: "user 'alice' may not validations:write on validation:shared", location: 'policy.yaml' }],
        });
        expect((await server.request('GET', '/api/v0/validations/shared', { auth: alice })).status).toBe(404);
        expect((await server.request('DELETE', '/api/v0/validations/team-web', { auth: bob })).status).toBe(403);
        expect((await server.request('GET', '/api/v0/validations/team-web', { auth: bob })).status).toBe(200);

        // rbac itself: readable by everyone here, writable by no one but root.
        expect((await server.request('GET', '/api/v0/rbac/status', { auth: bob })).status).toBe(200);
        expect((await server.request('DELETE', '/api/v0/rbac', { auth: alice })).status).toBe(403);
        expect((await server.request('PUT', '/api/v0/rbac/users/bob/secret', { auth: alice })).status).toBe(403);
        expect((await server.request('POST', '/api/v0/rbac', { auth: alice, body: await policyTar('users: [alice]\n') })).status).toBe(403);

        // Every operation is covered, whoever implements it: bob may read processes but not create them.
        expect((await server.request('POST', '/api/v0/processes?account=prod-main', { auth: bob, body: tar })).status).toBe(403);
        expect((await server.request('POST', '/api/v0/dry-run?command=KILL&process=web-frontend', { auth: bob, body: tar })).status).toBe(403);
        expect((await server.request('DELETE', '/api/v0/accounts/prod-main', { auth: bob })).status).toBe(403);
        expect((await server.request('GET', '/api/v0/processes/web-frontend', { auth: bob })).status).not.toBe(403);

        // root is never refused, whatever the policy says.
        expect((await asRoot('DELETE', '/validations/team-web')).status).toBe(200);
        expect((await asRoot('POST', '/validations?name=shared', tar)).status).toBe(201);
        expect((await asRoot('DELETE', '/validations/shared')).status).toBe(200);
      });

      it('follows the example policy: alice works on web-* processes and reads everything', async () => {
        await attach(EXAMPLE_POLICY);
        const alice = await secretOf('alice');
        const bob = await secretOf('bob');
        // Parameters and bodies are validated first: a request the API would refuse anyway is a 400 for anyone.
        const as = (auth: string, method: string, path: string) =>
          server.request(method, `/api/v0${path}`, { auth, ...(method === 'PATCH' && { body: { enforcement: true } }) });
        expect((await as(alice, 'PATCH', '/processes/web-frontend')).status).not.toBe(403);
        expect((await as(alice, 'PATCH', '/processes/billing')).status).toBe(403);
        expect((await as(alice, 'DELETE', '/accounts/prod-main')).status).toBe(403);
        expect((await as(bob, 'PATCH', '/processes/web-frontend')).status).toBe(403);
        expect((await as(bob, 'GET', '/rbac/users')).status).toBe(200);
      });

      it('lists only the items the user may read', async () => {
        for (const name of ['team-a', 'team-b', 'other']) await uploadLibrary(name);
        await attach(
          [
            'users: [alice, bob]',
            'rules:',
            '  - principals: [alice]',
            '    actions: ["validations:read", "rbac:read"]',
            '    resources: ["validation:team-*", "user:alice"]',
          ].join('\n'),
        );
        const alice = await secretOf('alice');
        const bob = await secretOf('bob');
        const libraries = await server.request('GET', '/api/v0/validations', { auth: alice });
        expect(libraries.body.count).toBe(2);
        expect(names(libraries.body)).toEqual(['team-a', 'team-b']);
        expect((await server.request('GET', '/api/v0/validations', { auth: bob })).body).toEqual({ count: 0, items: [] });
        expect((await server.request('GET', '/api/v0/rbac/users', { auth: alice })).body.items).toEqual([
          { name: 'alice', has_secret: true, secret_created_at: expect.any(Number) },
        ]);
        expect(names((await asRoot('GET', '/validations')).body)).toEqual(expect.arrayContaining(['team-a', 'team-b', 'other']));
        expect(names((await asRoot('GET', '/rbac/users')).body)).toEqual(['root', 'alice', 'bob']);
      });

      it('names a process by its alias and by its FID, and an account by its name and by its ID', async () => {
        const accountId = String(500_000_000_000 + process.pid);
        const account = `rbac-${process.pid}`;
        expect((await server.request('POST', '/api/v0/accounts', { auth: server.rootAuth, body: { name: account, provider: 'provider_a', account_id: accountId } })).status).toBe(201);
        const composition = await filesTar({ 'composition.yaml': 'resources:\n  - name: assets\n    type: PROVA.S3.Bucket\n    properties: {}\n' });
        const web = await asRoot('POST', `/processes?account=${account}&alias=web-shop`, composition);
        expect(web.status, web.text).toBe(201);
        const billing = await asRoot('POST', `/processes?account=${account}&alias=billing`, composition);
        expect(billing.status, billing.text).toBe(201);

        await attach(EXAMPLE_POLICY);
        const alice = await secretOf('alice');
        // The example policy lets alice work on process:web-*: also when she names the process by its FID.
        expect((await server.request('GET', `/api/v0/processes/${web.body.fid}`, { auth: alice })).status).toBe(200);
        const patch = { auth: alice, body: { enforcement: false } };
        expect((await server.request('PATCH', `/api/v0/processes/${web.body.fid}`, patch)).status).not.toBe(403);
        expect((await server.request('PATCH', `/api/v0/processes/${billing.body.fid}`, patch)).status).toBe(403);
        expect((await server.request('PATCH', '/api/v0/processes/billing', patch)).status).toBe(403);
        // accounts:read on account:* but no accounts:write: the account's ID names it as well as its name does.
        expect((await server.request('DELETE', `/api/v0/accounts/${accountId}`, { auth: alice })).status).toBe(403);
        expect((await server.request('GET', '/api/v0/accounts', { auth: alice })).body.items.map((a: { name: string }) => a.name)).toContain(account);
        // processes:read on process:web-* only, plus `*:read` for everyone.
        const listed = await server.request('GET', `/api/v0/processes?account=${account}`, { auth: alice });
        expect(listed.body.items.map((p: { alias: string }) => p.alias).sort()).toEqual(['billing', 'web-shop']);
        await attach('users: [alice]\nrules:\n  - principals: [alice]\n    actions: ["processes:read"]\n    resources: ["process:web-*"]\n');
        const narrowed = await server.request('GET', `/api/v0/processes?account=${account}`, { auth: alice });
        expect(narrowed.body).toMatchObject({ count: 1, items: [{ alias: 'web-shop' }] });
      });

      it('matches a resource under any of its names when the other names are known', async () => {
        const fid = '7b0e4c52-3f8a-4d8e-9c61-1f2a3b4c5d6e';
        const rbac = new RbacService({
          policies: new KyselyRbacPolicyRepository(db().handle.db),
          users: new KyselyConductorUserRepository(db().handle.db),
          clock: new ManualClock(),
          aliases: { process: async (given) => (given === fid ? ['web-frontend'] : []) },
        });
        await rbac.attach(
          await policyTar('users: [alice]\nrules:\n  - principals: [alice]\n    actions: ["processes:read"]\n    resources: ["process:web-*"]\n'),
        );
        const alice = await rbac.permissions('alice');
        await expect(rbac.authorize(alice, 'processes:read', { kind: 'process', name: fid })).resolves.toBeUndefined();
        await expect(rbac.authorize(alice, 'processes:read', { kind: 'process', name: 'web-frontend' })).resolves.toBeUndefined();
        await expect(rbac.authorize(alice, 'processes:write', { kind: 'process', name: fid })).rejects.toMatchObject({ code: 'forbidden' });
        await expect(rbac.authorize(alice, 'processes:read', { kind: 'process', name: 'b2c3d4e5-0000-4000-8000-000000000000' })).rejects.toMatchObject({
          code: 'forbidden',
        });
        // Outside the policy's users nobody may do anything; root may do everything.
        expect((await rbac.permissions('mallory')).allows('processes:read', ['process:web-frontend'])).toBe(false);
        expect((await rbac.permissions('root')).allows('rbac:write', ['rbac'])).toBe(true);
      });

      it('decides on a resource pattern of many stars and a long resource name without backtracking', async () => {
        const rbac = new RbacService({
          policies: new KyselyRbacPolicyRepository(db().handle.db),
          users: new KyselyConductorUserRepository(db().handle.db),
          clock: new ManualClock(),
        });
        const stars = `process:${'a*'.repeat(30)}b`;
        await rbac.attach(await policyTar(`users: [alice]\nrules:\n  - principals: [alice]\n    actions: ["processes:read"]\n    resources: ["${stars}"]\n`));
        const alice = await rbac.permissions('alice');
        // 200 characters each: a backtracking matcher tries every way to split the a's among the 30 stars.
        await expect(rbac.authorize(alice, 'processes:read', { kind: 'process', name: 'a'.repeat(192) })).rejects.toMatchObject({ code: 'forbidden' });
        await expect(rbac.authorize(alice, 'processes:read', { kind: 'process', name: `${'a'.repeat(191)}b` })).resolves.toBeUndefined();
        // The policy as stored and compiled reads such a name a few times per star (counted, not timed), and never
        // hands it whole to a regular expression.
        for (const [name, allowed] of [
          [`process:${'a'.repeat(192)}`, false],
          [`process:${'a'.repeat(191)}b`, true],
        ] as const) {
          const counted = countedText(name);
          expect(alice.allows('processes:read', [counted.text])).toBe(allowed);
          expect(counted.reads()).toBeLessThanOrEqual(2 * stars.split('*').length + 4);
          expect(counted.converted()).toBe(false);
        }
      });
    });
  },
  'suite',
);

describe('the conductor authorization table', () => {
  const api = loadApiDocument('conductor');
  const operations = Object.values(api.openapi.paths as Record<string, Record<string, { operationId?: string; tags?: string[] }>>).flatMap((item) =>
    Object.entries(item).flatMap(([method, op]) => (op?.operationId ? [{ method, operationId: op.operationId, tag: op.tags?.[0] }] : [])),
  );

  it('has an entry for every operation of the conductor spec', () => {
    expect(operations.length).toBeGreaterThan(20);
    expect(operationsWithoutAccess(api)).toEqual([]);
    for (const { operationId } of operations) expect(CONDUCTOR_ACCESS, operationId).toHaveProperty(operationId);
    expect(Object.keys(CONDUCTOR_ACCESS).sort()).toEqual(operations.map((op) => op.operationId).sort());
  });

  it("maps each operation to `<its tag>:read` for GET and `<its tag>:write` otherwise, but the public API description", () => {
    for (const { method, operationId, tag } of operations) {
      const access = CONDUCTOR_ACCESS[operationId as keyof typeof CONDUCTOR_ACCESS];
      if ('public' in access) {
        expect(operationId).toBe('getConductorSwagger');
        continue;
      }
      expect(access.action, operationId).toBe(`${tag}:${method === 'get' ? 'read' : 'write'}`);
    }
  });

  it('computes resources from the parameters', () => {
    const resourceOf = (operationId: keyof typeof CONDUCTOR_ACCESS, params: { path?: object; query?: object; body?: object }) => {
      const access = CONDUCTOR_ACCESS[operationId] as { resource?: (p: object) => unknown };
      return access.resource!({ path: {}, query: {}, body: undefined, ...params });
    };
    expect(resourceOf('createProcess', { query: { account: 'prod-main' } })).toEqual({ kind: 'account', name: 'prod-main' });
    expect(resourceOf('getProcess', { path: { process: 'web-frontend' } })).toEqual({ kind: 'process', name: 'web-frontend' });
    expect(resourceOf('addAccount', { body: { name: 'research' } })).toEqual({ kind: 'account', name: 'research' });
    expect(resourceOf('createDryRun', { query: { command: 'run', account: 'prod-main' } })).toEqual({ kind: 'account', name: 'prod-main' });
    expect(resourceOf('createDryRun', { query: { command: 'KILL', process: 'web-frontend' } })).toEqual({ kind: 'process', name: 'web-frontend' });
    let missing: unknown;
    try {
      resourceOf('createDryRun', { query: { command: 'UPDATE' } });
    } catch (error) {
      missing = error;
    }
    expect(missing).toMatchObject({ code: 'missing_parameter', details: [{ code: 'query.process', message: 'process is required for UPDATE', location: 'query.process' }] });
    expect(resourceOf('getDryRun', { path: { id: 'abc' } })).toEqual({ kind: 'dry-run', name: 'abc' });
    expect(resourceOf('resetRbacUserSecret', { path: { user: 'alice' } })).toEqual({ kind: 'user', name: 'alice' });
    expect(resourceOf('attachRbacPolicy', {})).toEqual({ kind: 'rbac' });
    expect(resourceOf('addValidation', { query: { name: 'baseline-tags' } })).toEqual({ kind: 'validation', name: 'baseline-tags' });
  });

  it('keeps the server from starting when an operation has no entry', () => {
    const withExtra: ApiDocument = {
      ...api,
      operations: [...api.operations, { operationId: 'purgeEverything', method: 'post', path: '/purge', statuses: ['200'], responseMediaTypes: {}, fixedResponseHeaders: {}, jsonBodyRequired: false }],
    };
    expect(operationsWithoutAccess(withExtra)).toEqual(['purgeEverything']);
    expect(() => authorizeConductor(withExtra, {} as RbacService)).toThrow(/no authorization rule for purgeEverything/);
  });
});
