import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { beforeEach, describe, it, jest } from '@jest/globals';
import type { Composition, CompositionResource } from '../src/domain/conductor/composition.js';
import { PROJECT_ROOT } from '../src/paths.js';
import { describeEachDatabase } from './databases.js';
import { filesTar, HOSTILE_ARCHIVES } from './fixtures/archives.js';
import { useTestServer, type TestServer } from './server.js';
import { expect } from './expect.js';

const EXAMPLE_RULES = readFileSync(join(PROJECT_ROOT, 'examples/conductor/validation/rules.yaml'), 'utf8');

// The conductor is one per deployment, not per organization: every test names its libraries apart.
let libraryCounter = 0;
const uniqueName = (base: string) => `${base}-${(libraryCounter += 1)}`;

const rulesYaml = (rules: Array<Record<string, string>>) =>
  `rules:\n${rules.map((rule) => Object.entries(rule).map(([key, value], i) => `${i === 0 ? '  - ' : '    '}${key}: ${JSON.stringify(value)}`).join('\n')).join('\n')}\n`;

const resource = (overrides: Partial<CompositionResource> & { name: string; type: string }): CompositionResource => ({
  region: 'us-east-1',
  tags: { owner: 'team-web' },
  properties: {},
  ...overrides,
});

describeEachDatabase(
  'conductor validation libraries',
  (db) => {
    const testServer = useTestServer(db);
    let server: TestServer;
    beforeEach(() => {
      server = testServer();
    });

    const upload = (name: string, archive: Buffer, contentType = 'application/x-tar') =>
      server.request('POST', `/api/v0/validations?name=${encodeURIComponent(name)}`, {
        body: archive,
        auth: server.rootAuth,
        headers: { 'content-type': contentType },
      });
    const get = (path: string) => server.request('GET', `/api/v0${path}`, { auth: server.rootAuth });
    const download = async (name: string) => {
      const res = await fetch(`${server.baseUrl}/api/v0/validations/${name}/archive`, { headers: { authorization: server.rootAuth } });
      return { status: res.status, type: res.headers.get('content-type'), bytes: Buffer.from(await res.arrayBuffer()) };
    };
    const removeEveryLibrary = async () => {
      for (const library of (await get('/validations')).body.items) {
        expect((await server.request('DELETE', `/api/v0/validations/${library.name}`, { auth: server.rootAuth })).status).toBe(200);
      }
    };

    describe('uploading and reading a library', () => {
      it('stores a gzipped library and answers its metadata, its Location and its exact bytes', async () => {
        const name = uniqueName('baseline-tags');
        const archive = gzipSync(await filesTar({ 'rules.yaml': EXAMPLE_RULES }));
        const created = await upload(name, archive, 'application/octet-stream');
        expect(created.status, created.text).toBe(201);
        expect(created.headers.get('location')).toBe(`/api/v0/validations/${name}`);
        const metadata = {
          name,
          created_at: server.clock.nowSeconds(),
          size: archive.length,
          sha256: createHash('sha256').update(archive).digest('hex'),
          rule_count: 4,
        };
        expect(created.body).toEqual(metadata);
        expect((await get(`/validations/${name}`)).body).toEqual(metadata);

        const downloaded = await download(name);
        expect(downloaded.status).toBe(200);
        expect(downloaded.type).toMatch(/^application\/x-tar/);
        expect(downloaded.bytes.equals(archive)).toBe(true);
      });

      it('answers 409 for a second library of the same name, keeping the first', async () => {
        const name = uniqueName('taken');
        const first = await filesTar({ 'rules.yaml': EXAMPLE_RULES });
        expect((await upload(name, first)).status).toBe(201);
        const second = await upload(name, await filesTar({ 'rules.yaml': 'rules: []\n' }));
        expect(second.status).toBe(409);
        expect(second.body).toMatchObject({ code: 409, errors: [{ code: 'validation.exists', location: 'query.name' }] });
        expect((await download(name)).bytes.equals(first)).toBe(true);
      });

      it('deletes a library; afterwards it is not found', async () => {
        const name = uniqueName('short-lived');
        expect((await upload(name, await filesTar({ 'rules.yaml': EXAMPLE_RULES }))).status).toBe(201);
        const deleted = await server.request('DELETE', `/api/v0/validations/${name}`, { auth: server.rootAuth });
        expect(deleted.status).toBe(200);
        expect(deleted.body).toEqual({ name, status: 'Deleted' });
        for (const res of [
          await get(`/validations/${name}`),
          await server.request('DELETE', `/api/v0/validations/${name}`, { auth: server.rootAuth }),
        ]) {
          expect(res.status).toBe(404);
          expect(res.body).toMatchObject({ code: 404, errors: [{ code: 'not_found', location: 'path.name' }] });
        }
        const archive = await download(name);
        expect(archive.status).toBe(404);
        expect(archive.type).toMatch(/^application\/json/);
      });

      it('lists libraries whose names start with the prefix, literally and by name', async () => {
        const stem = uniqueName('pfx');
        const names = [`${stem}.b`, `${stem}_a`, `${stem}xa`, `${stem}-c`];
        for (const name of names) expect((await upload(name, await filesTar({ 'rules.yaml': 'rules: []\n' }))).status).toBe(201);

        const all = await get(`/validations?prefix=${stem}`);
        expect(all.body.count).toBe(4);
        expect(all.body.items.map((l: { name: string }) => l.name)).toEqual([`${stem}-c`, `${stem}.b`, `${stem}_a`, `${stem}xa`]);
        // `_` is a character here, not a wildcard.
        expect((await get(`/validations?prefix=${stem}_`)).body.items.map((l: { name: string }) => l.name)).toEqual([`${stem}_a`]);
        // Prefixes are case-sensitive.
        expect((await get(`/validations?prefix=${stem.toUpperCase()}`)).body).toEqual({ count: 0, items: [] });
        const everything = await get('/validations');
        expect(everything.body.items.map((l: { name: string }) => l.name)).toEqual(expect.arrayContaining(names));
        expect(all.body.items[0]).toMatchObject({ rule_count: 0, size: expect.any(Number), created_at: server.clock.nowSeconds() });
      });
    });

    describe('refusing bad libraries', () => {
      it.each(Object.keys(HOSTILE_ARCHIVES))('refuses the hostile archive %s with a 400 that says what was wrong', async (hostile) => {
        const name = uniqueName('hostile');
        const res = await upload(name, await HOSTILE_ARCHIVES[hostile]!());
        expect(res.status, res.text).toBe(400);
        expect(res.body.code).toBe(400);
        expect(res.body.message).toMatch(/archive/);
        expect(res.body.errors.length).toBeGreaterThan(0);
        expect(res.body.errors[0].code).toMatch(/^archive\./);
        expect(res.body.errors[0].message.length).toBeGreaterThan(10);
        expect((await get(`/validations/${name}`)).status).toBe(404);
      });

      it('refuses an archive without rules.yaml', async () => {
        const res = await upload(uniqueName('empty'), await filesTar({ 'README.md': 'no rules here' }));
        expect(res.status).toBe(400);
        expect(res.body.errors).toEqual([{ code: 'archive.missing_file', message: expect.stringContaining('rules.yaml'), location: 'rules.yaml' }]);
      });

      it('lists every rule that does not compile, with the compiler message and position, and stores nothing', async () => {
        const name = uniqueName('broken');
        const rules = rulesYaml([
          { id: 'fine', resource_type: '*', expression: '"owner" in resource.tags', message: 'owner tag' },
          { id: 'unclosed', resource_type: 'PROVA.S3.Bucket', expression: 'resource.properties.acl == (', message: 'm' },
          { id: 'not-bool', resource_type: 'PROVA.S3.Bucket', expression: '1 + 2', message: 'm' },
          { id: 'unknown-var', resource_type: '*', expression: 'bucket.name == "x"', message: 'm' },
        ]);
        const res = await upload(name, await filesTar({ 'rules.yaml': rules }));
        expect(res.status, res.text).toBe(400);
        expect(res.body.errors.map((e: { location: string }) => e.location)).toEqual(['rules.yaml:unclosed', 'rules.yaml:not-bool', 'rules.yaml:unknown-var']);
        for (const error of res.body.errors) {
          expect(error.code).toBe('rule.compile');
          expect(error.message).toMatch(/at line \d+, column \d+/);
        }
        expect(res.body.errors[0].message).toMatch(/^rule unclosed: .*\(at line 1, column 2[0-9]\)$/);
        expect((await get(`/validations/${name}`)).status).toBe(404);
      });

      it('lists structure problems of rules.yaml by place', async () => {
        const rules = [
          'rules:',
          '  - id: dup',
          '    resource_type: PROVA.Nope.Thing',
          '    expression: "true"',
          '    message: first',
          '  - id: dup',
          '    resource_type: "*"',
          '    expression: "true"',
          '    mesage: typo',
          '  - just a string',
        ].join('\n');
        const res = await upload(uniqueName('malformed'), await filesTar({ 'rules.yaml': rules }));
        expect(res.status).toBe(400);
        expect(res.body.errors.map((e: { location: string }) => e.location)).toEqual([
          'rules.yaml:rules[0].resource_type',
          'rules.yaml:rules[1].mesage',
          'rules.yaml:rules[1].id',
          'rules.yaml:rules[1].message',
          'rules.yaml:rules[2]',
        ]);
        expect(res.body.errors.every((e: { code: string }) => e.code === 'rules.invalid')).toBe(true);
      });

      it('names the line of a YAML syntax error', async () => {
        const res = await upload(uniqueName('syntax'), await filesTar({ 'rules.yaml': 'rules:\n  - id: a\n    expression: [1,\n' }));
        expect(res.status).toBe(400);
        expect(res.body.errors[0]).toMatchObject({ code: 'yaml.syntax', location: 'rules.yaml', message: expect.stringMatching(/line \d+, column \d+/) });
      });

      it('refuses a YAML alias bomb instead of expanding it', async () => {
        const levels = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
        for (let i = 1; i < 9; i += 1) levels.push(`${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(9).fill(`*${String.fromCharCode(96 + i)}`).join(',')}]`);
        const res = await upload(uniqueName('bomb'), await filesTar({ 'rules.yaml': `${levels.join('\n')}\nrules: []\n` }));
        expect(res.status).toBe(400);
        expect(res.body.errors[0]).toMatchObject({ code: 'yaml.syntax', location: 'rules.yaml', message: expect.stringMatching(/alias/i) });
      });

      it('refuses a library name outside the documented pattern', async () => {
        const res = await upload('Bad Name', await filesTar({ 'rules.yaml': 'rules: []\n' }));
        expect(res.status).toBe(400);
      });
    });

    describe('checking compositions', () => {
      const composition = (resources: CompositionResource[]): Composition => ({ resources, imports: [] });

      it('reports one violation per failing rule and resource, and none once the library is deleted', async () => {
        await removeEveryLibrary();
        expect((await upload('baseline-tags', await filesTar({ 'rules.yaml': EXAMPLE_RULES }))).status).toBe(201);
        const checked = composition([
          resource({ name: 'good-bucket', type: 'PROVA.S3.Bucket', properties: { encryption: { enabled: true }, policy_allows_public: false, acl_grants_public: false } }),
          resource({ name: 'open-bucket', type: 'PROVA.S3.Bucket', tags: {}, properties: { encryption: { enabled: false }, policy_allows_public: true, acl_grants_public: false } }),
          resource({ name: 'web-sg', type: 'PROVA.EC2.SecurityGroup', properties: { ingress: [{ cidr: '0.0.0.0/0', from_port: 22, to_port: 22 }] } }),
          resource({ name: 'closed-sg', type: 'PROVA.EC2.SecurityGroup', properties: { ingress: [{ cidr: '10.0.0.0/8', from_port: 22, to_port: 22 }] } }),
          resource({ name: 'bare-bucket', type: 'PROVA.S3.Bucket', properties: {} }),
        ]);
        const violations = await server.services.validations.violations(checked);
        const summary = violations.map((v) => `${v.location} ${/rule ([a-z-]+) of library baseline-tags, resource ([a-z-]+)/.exec(v.message)?.slice(1).join('@')}`);
        expect(summary.sort()).toEqual(
          [
            'composition.yaml:resources[1] buckets-encrypted@open-bucket',
            'composition.yaml:resources[1] buckets-not-public@open-bucket',
            'composition.yaml:resources[1] owner-tag@open-bucket',
            'composition.yaml:resources[2] no-ssh-from-anywhere@web-sg',
            // A bucket that lacks the properties a rule reads cannot pass it.
            'composition.yaml:resources[4] buckets-encrypted@bare-bucket',
            'composition.yaml:resources[4] buckets-not-public@bare-bucket',
          ].sort(),
        );
        expect(violations.every((v) => v.code === 'rule.violation')).toBe(true);
        expect(violations.find((v) => v.location === 'composition.yaml:resources[2]')?.message).toBe(
          'Security groups must not open SSH (port 22) to the internet (rule no-ssh-from-anywhere of library baseline-tags, resource web-sg)',
        );
        expect(violations.find((v) => v.message.includes('bare-bucket'))?.message).toMatch(/could not be evaluated/);

        expect((await server.request('DELETE', '/api/v0/validations/baseline-tags', { auth: server.rootAuth })).status).toBe(200);
        expect(await server.services.validations.violations(checked)).toEqual([]);
      });

      it('refuses a process whose composition breaks a rule, naming the rule and the resource', async () => {
        await removeEveryLibrary();
        const rules = rulesYaml([{ id: 'owner', resource_type: '*', expression: '"owner" in resource.tags', message: 'needs an owner' }]);
        expect((await upload('owners', await filesTar({ 'rules.yaml': rules }))).status).toBe(201);
        const account = `val-${process.pid}`;
        const added = await server.request('POST', '/api/v0/accounts', {
          auth: server.rootAuth,
          body: { name: account, provider: 'provider_a', account_id: String(600_000_000_000 + process.pid) },
        });
        expect(added.status, added.text).toBe(201);
        const composition = (tags: string) => filesTar({ 'composition.yaml': `resources:\n  - name: assets\n    type: PROVA.S3.Bucket\n    tags: ${tags}\n    properties: {}\n` });
        const refused = await server.request('POST', `/api/v0/processes?account=${account}`, { auth: server.rootAuth, body: await composition('{}') });
        expect(refused.status, refused.text).toBe(400);
        expect(refused.body.errors).toContainEqual({
          code: 'rule.violation',
          message: 'needs an owner (rule owner of library owners, resource assets)',
          location: 'composition.yaml:resources[0]',
        });
        const accepted = await server.request('POST', `/api/v0/processes?account=${account}`, { auth: server.rootAuth, body: await composition('{ owner: web }') });
        expect(accepted.status, accepted.text).toBe(201);
        await removeEveryLibrary();
      });

      it('evaluates the rules on the evaluation threads, so an expensive rule costs no request its turn', async () => {
        await removeEveryLibrary();
        // Some 65 000 metered regular-expression matches per resource, as in the request-thread suite.
        const list = `[${Array.from({ length: 256 }, (_, i) => i).join(',')}]`;
        const heavy = rulesYaml([{ id: 'heavy', resource_type: '*', expression: `${list}.all(x, ${list}.all(y, !resource.name.matches("q+x")))`, message: 'heavy' }]);
        expect((await upload('heavy', await filesTar({ 'rules.yaml': heavy }))).status).toBe(201);
        const scanBatch = jest.spyOn(server.services.evaluation, 'scanBatch');
        let batches = 0;
        const resources = Array.from({ length: 4 }, (_, i) => resource({ name: `queue-${i}`, type: 'PROVA.SQS.Queue' }));
        const tasksBefore = server.services.evaluation.completedTasks;
        try {
          const violations = await server.services.validations.violations(composition(resources));
          // Each resource passes, or is over its budget on a busy machine and so is a violation saying why.
          for (const v of violations) expect(v.message).toMatch(/heavy \(rule heavy of library heavy, resource queue-\d+; it could not be evaluated: .*budget/);
          batches = scanBatch.mock.calls.length;
        } finally {
          scanBatch.mockRestore();
        }
        expect(batches, 'batches sent to the evaluation threads').toBeGreaterThan(0);
        // The evaluation threads finished the work, at least a task per batch: this thread only waited for it.
        expect(server.services.evaluation.completedTasks - tasksBefore, 'tasks the evaluation threads finished').toBeGreaterThanOrEqual(batches);
        await removeEveryLibrary();
      });

      it('applies every library at once', async () => {
        await removeEveryLibrary();
        const owners = rulesYaml([{ id: 'owner', resource_type: '*', expression: '"owner" in resource.tags', message: 'needs an owner' }]);
        const regions = rulesYaml([{ id: 'us-only', resource_type: '*', expression: 'resource.region.startsWith("us-")', message: 'US regions only' }]);
        expect((await upload('owners', await filesTar({ 'rules.yaml': owners }))).status).toBe(201);
        expect((await upload('regions', await filesTar({ 'rules.yaml': regions }))).status).toBe(201);
        const violations = await server.services.validations.violations(
          composition([resource({ name: 'queue', type: 'PROVA.SQS.Queue', region: 'eu-west-1', tags: {} })]),
        );
        expect(violations.map((v) => v.message)).toEqual([
          'needs an owner (rule owner of library owners, resource queue)',
          'US regions only (rule us-only of library regions, resource queue)',
        ]);
        await removeEveryLibrary();
      });
    });
  },
  'suite',
);
