import { beforeEach, describe, it, jest } from '@jest/globals';
import { newId } from '../src/domain/ids.js';
import { createEnvironment as createEnvironmentThroughApi, nextAccount, runScan, type Body } from './compliance.js';
import { describeEachDatabase } from './databases.js';
import { useTestServer, type TestServer } from './server.js';
import { expect } from './expect.js';

const VERSIONING = 'resource.properties.versioning == "Enabled"';
/** False for every bucket; a backtracking regular expression engine takes minutes over each of these matches. */
const BACKTRACKING = `"${'a'.repeat(31)}b".matches("(a+)+$") || resource.name.matches("^(a|aa)+$")`;
/**
 * Over its cost budget at the first match, however busy the machine: matching 30 000 characters with a program of
 * some 20 000 instructions is charged 30 001 × 626 ≈ 18.8 million units (more than the 16 million one evaluation may
 * spend) before the match runs, microseconds into the evaluation, so the cost budget stops it long before the time
 * budget could (the pattern is compiled with the rule, before any evaluation starts).
 */
const OVER_BUDGET = `"${'z'.repeat(30_000)}".matches("${'x{1000}'.repeat(20)}")`;

/** A rule that splits the documents: those created more than the median number of days ago pass. */
function olderThanMedian(documents: Array<Record<string, any>>): { ruleText: string; passes: (document: Record<string, any>) => boolean } {
  const ages = documents.map((d) => d.properties.created_days_ago as number).sort((a, b) => a - b);
  const median = ages[Math.floor((ages.length - 1) / 2)]!;
  return { ruleText: `resource.properties.created_days_ago > ${median}`, passes: (d) => d.properties.created_days_ago > median };
}

const bucketRule = (overrides: Record<string, unknown> = {}) => ({
  name: 'Bucket versioning enabled',
  description: 'S3 buckets must keep versioning enabled so deleted objects can be recovered.',
  resource_type: 'PROVA.S3.Bucket',
  rule_text: VERSIONING,
  families: ['CIS'],
  ...overrides,
});

describeEachDatabase(
  'custom rules API',
  (db) => {
    const testServer = useTestServer(db);
    let server: TestServer;
    beforeEach(() => {
      server = testServer();
    });

    const clientId = () => Buffer.from(server.auth.slice('Basic '.length), 'base64').toString().split(':')[0];

    const create = async (body: Record<string, unknown> = bucketRule()) => {
      const res = await server.request('POST', '/v0/rules', { body });
      expect(res.status, res.text).toBe(201);
      return res.body as Record<string, any>;
    };

    const expectError = async (status: number, method: string, path: string, body: unknown, message: RegExp) => {
      const res = await server.request(method, path, { body });
      expect(res.status, res.text).toBe(status);
      expect(res.body).toMatchObject({ code: status, message: expect.stringMatching(message) });
      return res.body;
    };

    const createEnvironment = (overrides: Body = {}) =>
      createEnvironmentThroughApi(
        server,
        {
          provider_options: { provider_a: { role_arn: `arn:prova:iam::${nextAccount()}:role/scanner`, regions: ['us-east-1'] } },
          compliance_families: ['CIS', 'NIST'],
          survey_resource_types: ['PROVA.S3.Bucket', 'PROVA.IAM.User'],
        },
        overrides,
      );

    const scan = async (environmentId: string) => {
      const finished = await runScan(server, environmentId);
      expect(finished.status).toBe('SUCCESS');
      return finished;
    };

    const bucketDocuments = async (scanId: string) => {
      const res = await server.request('GET', `/v0/rules/test/input?scan_id=${scanId}&resource_type=PROVA.S3.Bucket`);
      expect(res.status, res.text).toBe(200);
      return res.body.resources as Array<Record<string, any>>;
    };

    describe('create, read, update and delete', () => {
      it('creates an ENABLED rule with the documented defaults, and reads it back', async () => {
        const created = await create();
        const now = server.clock.nowSeconds();
        expect(created).toEqual({
          id: expect.stringMatching(/^[0-9a-f-]{36}$/),
          name: 'Bucket versioning enabled',
          description: 'S3 buckets must keep versioning enabled so deleted objects can be recovered.',
          provider: 'PROVIDER_A',
          providers: ['PROVIDER_A', 'PROVIDER_A_GOV'],
          resource_type: 'PROVA.S3.Bucket',
          rule_text: VERSIONING,
          severity: 'Medium',
          source: 'CUSTOM',
          status: 'ENABLED',
          families: ['CIS'],
          compliance_controls: ['CIS CUSTOM Bucket versioning enabled'],
          created_at: now,
          created_by: clientId(),
          created_by_display_name: 'tests',
          updated_at: now,
          updated_by: clientId(),
          updated_by_display_name: 'tests',
          errors: [],
        });
        const read = await server.request('GET', `/v0/rules/${created.id}`);
        expect(read.status).toBe(200);
        const { errors: _errors, ...rule } = created;
        expect(read.body).toEqual(rule);
      });

      it('takes the deprecated provider as the only provider, and PROVB types default to PROVIDER_B', async () => {
        const single = await create(bucketRule({ name: 'single', provider: 'PROVIDER_A_GOV', families: [] }));
        expect(single).toMatchObject({ providers: ['PROVIDER_A_GOV'], provider: 'PROVIDER_A_GOV', compliance_controls: [] });
        const azure = await create({ name: 'storage https', resource_type: 'PROVB.Storage.Account', rule_text: 'resource.properties.https_only == true', severity: 'High' });
        expect(azure).toMatchObject({ providers: ['PROVIDER_B'], severity: 'High', families: [] });
      });

      it('changes only the fields sent, and records who changed the rule and when', async () => {
        const created = await create();
        server.clock.advanceSeconds(120);
        const res = await server.request('PATCH', `/v0/rules/${created.id}`, { body: { severity: 'High', status: 'DISABLED' } });
        expect(res.status, res.text).toBe(200);
        expect(res.body).toMatchObject({
          name: created.name,
          rule_text: VERSIONING,
          severity: 'High',
          status: 'DISABLED',
          created_at: created.created_at,
          updated_at: created.created_at + 120,
        });
        const renamed = await server.request('PATCH', `/v0/rules/${created.id}`, { body: { name: 'Versioned buckets', families: ['CIS', 'NIST'], status: 'ENABLED' } });
        expect(renamed.body).toMatchObject({ status: 'ENABLED', compliance_controls: ['CIS CUSTOM Versioned buckets', 'NIST CUSTOM Versioned buckets'] });
        expect((await server.request('GET', `/v0/rules/${created.id}`)).body).toMatchObject({ name: 'Versioned buckets', severity: 'High' });
      });

      it('deletes a rule, after which it is unknown', async () => {
        const created = await create();
        const deleted = await server.request('DELETE', `/v0/rules/${created.id}`);
        expect(deleted.status).toBe(204);
        expect(deleted.text).toBe('');
        await expectError(404, 'GET', `/v0/rules/${created.id}`, undefined, new RegExp(`custom rule ${created.id} not found`));
        await expectError(404, 'DELETE', `/v0/rules/${created.id}`, undefined, /not found/);
        await expectError(404, 'PATCH', `/v0/rules/${newId()}`, { severity: 'Low' }, /not found/);
      });

      it("answers 404 for another organization's rule and leaves it alone", async () => {
        const created = await create();
        const owner = server.auth;
        await server.useNewTenant();
        await expectError(404, 'GET', `/v0/rules/${created.id}`, undefined, /not found/);
        await expectError(404, 'PATCH', `/v0/rules/${created.id}`, { status: 'DISABLED' }, /not found/);
        await expectError(404, 'DELETE', `/v0/rules/${created.id}`, undefined, /not found/);
        expect((await server.request('GET', '/v0/rules')).body.items).toEqual([]);
        const still = await server.request('GET', `/v0/rules/${created.id}`, { auth: owner });
        expect(still.body.status).toBe('ENABLED');
      });

      it('refuses a second rule of the same name, compared case-insensitively, on create and on rename', async () => {
        const first = await create();
        await expectError(409, 'POST', '/v0/rules', bucketRule({ name: 'BUCKET versioning ENABLED' }), /^name: a custom rule named 'BUCKET versioning ENABLED' already exists$/);
        const second = await create(bucketRule({ name: 'Other' }));
        const res = await server.request('PATCH', `/v0/rules/${second.id}`, { body: { name: first.name } });
        expect(res.status).toBe(409);
        expect(res.body).toEqual({ type: 'Conflict', code: 409, message: `name: a custom rule named '${first.name}' already exists` });
        // Another organization may use the name.
        await server.useNewTenant();
        await create();
      });

      it('lists rules by name, filtered by query terms and status, page by page', async () => {
        const a = await create(bucketRule({ name: 'a buckets versioned' }));
        const b = await create({ name: 'b storage https', resource_type: 'PROVB.Storage.Account', rule_text: 'resource.properties.https_only == true', severity: 'High' });
        const c = await create(bucketRule({ name: 'c mfa delete', rule_text: 'resource.properties.mfa_delete == true', description: 'Needs MFA to delete versions' }));
        await server.request('PATCH', `/v0/rules/${c.id}`, { body: { status: 'DISABLED' } });

        const ids = async (query: string) => {
          const res = await server.request('GET', `/v0/rules${query}`);
          expect(res.status, res.text).toBe(200);
          return res.body.items.map((r: any) => r.id);
        };
        expect(await ids('')).toEqual([a.id, b.id, c.id]);
        expect(await ids('?status=DISABLED')).toEqual([c.id]);
        expect(await ids('?status=ENABLED')).toEqual([a.id, b.id]);
        const q = (terms: string[]) => `?query=${encodeURIComponent(JSON.stringify(terms))}`;
        expect(await ids(q(['provider:PROVIDER_B']))).toEqual([b.id]);
        expect(await ids(q(['provider:PROVIDER_A_GOV']))).toEqual([a.id, c.id]);
        expect(await ids(q(['resource_type:prova.s3']))).toEqual([a.id, c.id]);
        expect(await ids(q(['severity:High']))).toEqual([b.id]);
        expect(await ids(q(['mfa to DELETE']))).toEqual([c.id]);
        expect(await ids(q(['name:bucket', 'name:versioned']))).toEqual([a.id]);
        expect(await ids(q([`id:${b.id.slice(4, 12)}`]))).toEqual([b.id]);
        expect(await ids(q(['name:100%']))).toEqual([]);

        const page = await server.request('GET', '/v0/rules?max_items=2');
        expect(page.body).toMatchObject({ count: 2, is_truncated: true, next_offset: 2 });
        const last = await server.request('GET', '/v0/rules?max_items=2&offset=2');
        expect(last.body).toEqual({ count: 1, is_truncated: false, items: [expect.objectContaining({ id: c.id })] });
      });
    });

    describe('validation', () => {
      it("refuses rule text that does not compile with the compiler's message and its line:column", async () => {
        await expectError(400, 'POST', '/v0/rules', bucketRule({ rule_text: 'resourc.properties.versioning == "Enabled"' }), /^rule_text: 1:1: Unknown variable: resourc$/);
        const body = await expectError(400, 'POST', '/v0/rules', bucketRule({ rule_text: `${VERSIONING} &&\n  resourc.x` }), /^rule_text: 2:3: Unknown variable: resourc$/);
        expect(body.type).toBe('InvalidParameterValue');
        await expectError(400, 'POST', '/v0/rules', bucketRule({ rule_text: 'resource.properties.versioning ==' }), /^rule_text: 1:34: Unexpected token: EOF$/);
        await expectError(400, 'POST', '/v0/rules', bucketRule({ rule_text: '1 + 2' }), /^rule_text: 1:1: a rule must yield a bool, but this expression yields int$/);
        const created = await create();
        await expectError(400, 'PATCH', `/v0/rules/${created.id}`, { rule_text: 'resource.properties.(' }, /^rule_text: 1:\d+: /);
        expect((await server.request('GET', `/v0/rules/${created.id}`)).body.rule_text).toBe(VERSIONING);
      });

      it('refuses providers that do not match the resource type, types no provider supports and families of other providers', async () => {
        await expectError(400, 'POST', '/v0/rules', bucketRule({ providers: ['PROVIDER_B'] }), /^providers: PROVIDER_B does not match resource type PROVA\.S3\.Bucket/);
        await expectError(400, 'POST', '/v0/rules', bucketRule({ provider: 'PROVIDER_A', providers: ['PROVIDER_A_GOV'] }), /^provider: 'PROVIDER_A' must be one of providers/);
        await expectError(400, 'POST', '/v0/rules', bucketRule({ resource_type: 'PROVA.Made.Up' }), /^resource_type: 'PROVA\.Made\.Up' is not a supported resource type of provider_a/);
        await expectError(400, 'POST', '/v0/rules', bucketRule({ families: ['CISPROVB'] }), /^families: 'CISPROVB' is not a family of PROVIDER_A/);
        await expectError(400, 'POST', '/v0/rules', bucketRule({ name: '   ' }), /^name: must not be blank$/);
        await expectError(400, 'POST', '/v0/rules', bucketRule({ severity: 'Severe' }), /^severity: must be equal to one of the allowed values/);
        await expectError(400, 'POST', '/v0/rules', bucketRule({ colour: 'red' }), /colour/);
        await expectError(400, 'POST', '/v0/rules', { name: 'x', resource_type: 'PROVA.S3.Bucket' }, /^rule_text: is required$/);
        const created = await create();
        await expectError(400, 'PATCH', `/v0/rules/${created.id}`, { resource_type: 'PROVB.Storage.Account' }, /^providers: PROVIDER_A does not match resource type PROVB\.Storage\.Account/);
        await expectError(400, 'PATCH', `/v0/rules/${created.id}`, { status: 'INVALID' }, /^status: must be equal to one of the allowed values/);
      });

      it('refuses a malformed query and an unknown query prefix', async () => {
        await expectError(400, 'GET', `/v0/rules?query=${encodeURIComponent('not json')}`, undefined, /^query: must be a JSON array of strings/);
        await expectError(400, 'GET', `/v0/rules?query=${encodeURIComponent('["colour:red"]')}`, undefined, /^query: unknown prefix 'colour:'/);
      });

      it('warns about fields no resource document has, with their position', async () => {
        const created = await create(bucketRule({ rule_text: 'has(resource.versioning) && resource.properties.mfa_delete' }));
        expect(created.errors).toEqual([
          {
            severity: 'warning',
            text: "resource has no field 'versioning'; a resource's settings are under resource.properties (resource.properties.versioning)",
            line: 1,
            column: 14,
          },
        ]);
      });
    });

    describe('testing a rule against a scan', () => {
      it('returns exactly the documents of the type that the scan stored', async () => {
        const env = await createEnvironment();
        const done = await scan(env.id);
        const documents = await bucketDocuments(done.id);
        const types = await server.request('GET', `/v0/scans/${done.id}/compliance_by_resource_types?resource_type=PROVA.S3.Bucket`);
        expect(documents.length).toBe(types.body.items[0].total);
        expect(documents.length).toBeGreaterThan(2);
        const ids = documents.map((d) => d.id);
        expect(ids).toEqual([...ids].sort());
        const stored = await db().handle.db.selectFrom('scan_resources').select(['resource_id', 'document']).where('scan_id', '=', done.id).where('resource_type', '=', 'PROVA.S3.Bucket').execute();
        expect(new Map(documents.map((d) => [d.id, d]))).toEqual(new Map(stored.map((r) => [r.resource_id, JSON.parse(r.document)])));
        for (const document of documents) {
          expect(document).toMatchObject({ type: 'PROVA.S3.Bucket', properties: expect.any(Object), tags: expect.any(Object) });
        }
        const input = await server.request('GET', `/v0/rules/test/input?scan_id=${done.id}&resource_type=PROVA.EC2.Instance`);
        expect(input.body).toEqual({ scan_id: done.id, resource_type: 'PROVA.EC2.Instance', resources: [], is_truncated: false });
      });

      it('with via_download keeps the answer for an hour, where links.output downloads it; 20 per organization, the newest', async () => {
        await server.useNewTenant();
        const env = await createEnvironment();
        const done = await scan(env.id);
        const test = async (ruleText = VERSIONING, query = '?via_download=true') => {
          const res = await server.request('POST', `/v0/rules/test${query}`, { body: { scan_id: done.id, rule_text: ruleText, resource_type: 'PROVA.S3.Bucket' } });
          expect(res.status, res.text).toBe(200);
          return res.body;
        };
        const download = (link: string) => server.request('GET', link);

        const plain = await test(VERSIONING, '');
        expect(plain.links).toBeUndefined();
        const asked = await test();
        expect(asked.links.output).toMatch(/^\/v0\/rules\/test\/outputs\/[0-9a-f-]{36}$/);
        const { links, ...answer } = asked;
        expect(answer).toEqual(plain);
        const downloaded = await download(links.output);
        expect(downloaded.status, downloaded.text).toBe(200);
        expect(downloaded.body).toEqual(plain);

        // Another organization's credentials find nothing there.
        const other = await server.services.organizations.ensure(`other than ${server.orgId}`);
        const { client, secret } = await server.services.apiClients.createWithSecret(other.id, 'other');
        const otherAuth = `Basic ${Buffer.from(`${client.clientId}:${secret}`).toString('base64')}`;
        expect((await server.request('GET', links.output, { auth: otherAuth })).status).toBe(404);

        // An hour later it is gone.
        server.clock.advanceSeconds(3_599);
        expect((await download(links.output)).status).toBe(200);
        server.clock.advanceSeconds(2);
        const expired = await download(links.output);
        expect(expired.status).toBe(404);
        expect(expired.body).toEqual({ type: 'NotFound', code: 404, message: `rule test output ${links.output.split('/').pop()} not found` });

        // The 20 newest are kept: the 21st replaces the oldest.
        const outputs: string[] = [];
        for (let index = 0; index < 21; index += 1) {
          outputs.push((await test(`resource.properties.versioning != "${index}"`)).links.output);
          server.clock.advanceSeconds(1);
        }
        expect((await download(outputs[0]!)).status).toBe(404);
        for (const output of outputs.slice(1)) expect((await download(output)).status).toBe(200);
        const kept = await db().handle.db.selectFrom('rule_test_outputs').select((eb) => eb.fn.countAll().as('n')).where('org_id', '=', server.orgId).executeTakeFirstOrThrow();
        expect(Number(kept.n)).toBe(20);

        // Outputs go with the environment of the scan they tested.
        expect((await server.request('DELETE', `/v0/environments/${env.id}`)).status).toBe(204);
        expect((await download(outputs[20]!)).status).toBe(404);
      });

      it('evaluates the rule on every resource: PASS, FAIL, UNKNOWN for a missing field, ERROR otherwise', async () => {
        const env = await createEnvironment();
        const done = await scan(env.id);
        const documents = await bucketDocuments(done.id);
        const test = async (ruleText: string) => {
          const res = await server.request('POST', '/v0/rules/test', { body: { scan_id: done.id, rule_text: ruleText, resource_type: 'PROVA.S3.Bucket' } });
          expect(res.status, res.text).toBe(200);
          return res.body;
        };

        const older = olderThanMedian(documents);
        const split = await test(older.ruleText);
        const expected = documents.map((d) => ({ id: d.id, type: 'PROVA.S3.Bucket', result: older.passes(d) ? 'PASS' : 'FAIL', message: null }));
        expect(split.resources).toEqual(expected);
        expect(split).toMatchObject({ result: 'FAIL', resource_count: documents.length, is_truncated: false, errors: [] });
        expect(new Set(expected.map((r) => r.result))).toEqual(new Set(['PASS', 'FAIL']));

        const versioning = await test(VERSIONING);
        expect(versioning.resources.map((r: any) => r.result)).toEqual(documents.map((d) => (d.properties.versioning === 'Enabled' ? 'PASS' : 'FAIL')));

        expect((await test('resource.type == "PROVA.S3.Bucket"')).result).toBe('PASS');

        const owner = await test('resource.tags.owner != ""');
        for (const [i, document] of documents.entries()) {
          expect(owner.resources[i]).toEqual(
            'owner' in document.tags
              ? { id: document.id, type: 'PROVA.S3.Bucket', result: 'PASS', message: null }
              : { id: document.id, type: 'PROVA.S3.Bucket', result: 'UNKNOWN', message: 'No such key: owner' },
          );
        }

        const notBool = await test('resource.properties.versioning');
        expect(notBool.result).toBe('ERROR');
        expect(notBool.resources[0]).toMatchObject({ result: 'ERROR', message: 'the rule yielded string, not a bool' });

        const none = await server.request('POST', '/v0/rules/test', { body: { scan_id: done.id, rule_text: 'true', resource_type: 'PROVA.EC2.Instance' } });
        expect(none.body).toEqual({ result: 'UNKNOWN', resource_count: 0, is_truncated: false, resources: [], errors: [] });
      });

      it('evaluates a regular expression that backtracks in JavaScript with RE2, and the server answers meanwhile', async () => {
        const done = await scan((await createEnvironment()).id);
        const evaluated = jest.spyOn(server.services.evaluation, 'test');
        try {
          const [tested, health] = await Promise.all([
            server.request('POST', '/v0/rules/test', { body: { scan_id: done.id, rule_text: BACKTRACKING, resource_type: 'PROVA.S3.Bucket' } }),
            server.request('GET', '/healthz', { auth: null }),
          ]);
          expect(health.status).toBe(200);
          // Handed to the evaluation threads, so the request thread stays free for /healthz.
          expect(evaluated).toHaveBeenCalledTimes(1);
          // Every resource evaluated to FAIL, none stopped by its time budget: a backtracking engine would spend
          // minutes on the first match, and the metered second match would then stop the evaluation as over budget.
          expect(tested.status, tested.text).toBe(200);
          expect(tested.body.resource_count).toBeGreaterThan(0);
          expect(tested.body).toMatchObject({ result: 'FAIL', errors: [] });
          expect(new Set(tested.body.resources.map((r: any) => r.result))).toEqual(new Set(['FAIL']));
        } finally {
          evaluated.mockRestore();
        }
      }, 20_000);

      it('refuses a rule that exceeds its evaluation budget, and one whose regular expression is not RE2', async () => {
        const done = await scan((await createEnvironment()).id);
        const body = (ruleText: string) => ({ scan_id: done.id, rule_text: ruleText, resource_type: 'PROVA.S3.Bucket' });
        await expectError(400, 'POST', '/v0/rules/test', body(OVER_BUDGET), /^rule_text: the rule exceeded its evaluation budget of \d+ units on resource \S+$/);
        await expectError(400, 'POST', '/v0/rules/test', body('resource.name.matches("(a)\\\\1")'), /^rule_text: 1:23: invalid regular expression /);
      }, 20_000);

      it('refuses text that does not compile, unknown scans, scans of other organizations, unfinished scans and unsupported types', async () => {
        const env = await createEnvironment();
        const done = await scan(env.id);
        const body = (overrides: Record<string, unknown>) => ({ scan_id: done.id, rule_text: VERSIONING, resource_type: 'PROVA.S3.Bucket', ...overrides });
        await expectError(400, 'POST', '/v0/rules/test', body({ rule_text: 'resource.properties.versioning = "x"' }), /^rule_text: 1:\d+: /);
        await expectError(404, 'POST', '/v0/rules/test', body({ scan_id: newId() }), /^scan_id: scan [0-9a-f-]{36} not found$/);
        await expectError(404, 'GET', `/v0/rules/test/input?scan_id=${newId()}&resource_type=PROVA.S3.Bucket`, undefined, /^scan_id: scan .* not found$/);
        await expectError(400, 'POST', '/v0/rules/test', body({ resource_type: 'PROVB.Storage.Account' }), /^resource_type: 'PROVB\.Storage\.Account' is not a supported resource type of provider_a/);
        await expectError(400, 'GET', `/v0/rules/test/input?scan_id=${done.id}&resource_type=PROVA`, undefined, /resource_type: must match pattern/);

        const running = await server.request('POST', `/v0/scans?environment_id=${env.id}`);
        await expectError(400, 'POST', '/v0/rules/test', body({ scan_id: running.body.id }), /^scan_id: scan .* has status IN_PROGRESS; only a SUCCESS scan/);
        await expectError(400, 'GET', `/v0/rules/test/input?scan_id=${running.body.id}&resource_type=PROVA.S3.Bucket`, undefined, /has status IN_PROGRESS/);
        while (await server.services.jobs.runOnce());

        await server.useNewTenant();
        await expectError(404, 'POST', '/v0/rules/test', body({}), /not found/);
        await expectError(404, 'GET', `/v0/rules/test/input?scan_id=${done.id}&resource_type=PROVA.S3.Bucket`, undefined, /not found/);
      });
    });

    describe('custom rules in scans', () => {
      const rulesOfScan = async (scanId: string, query = '') => {
        const res = await server.request('GET', `/v0/scans/${scanId}/compliance_by_rules?max_items=1000${query}`);
        expect(res.status, res.text).toBe(200);
        expect(res.body.is_truncated).toBe(false);
        return res.body.items as Array<Record<string, any>>;
      };

      it('evaluates enabled rules in later scans and reports them with their real results', async () => {
        const env = await createEnvironment();
        const before = await bucketDocuments((await scan(env.id)).id);
        const older = olderThanMedian(before);
        const versioning = await create(bucketRule({ name: 'Old buckets', rule_text: older.ruleText, description: 'Bucket is too young' }));
        const everywhere = await create(bucketRule({ name: 'Buckets exist', rule_text: 'resource.type == "PROVA.S3.Bucket"', families: [], description: '' }));
        const done = await scan(env.id);
        const tested = await server.request('POST', '/v0/rules/test', { body: { scan_id: done.id, rule_text: older.ruleText, resource_type: 'PROVA.S3.Bucket' } });
        const failing = tested.body.resources.filter((r: any) => r.result === 'FAIL').map((r: any) => r.id);
        expect(failing.length).toBeGreaterThan(0);

        const items = await rulesOfScan(done.id);
        const ofVersioning = items.filter((i) => i.rule_id === versioning.id);
        expect(ofVersioning).toHaveLength(1);
        expect(ofVersioning[0]).toMatchObject({
          family: 'CIS',
          rule: 'CIS CUSTOM Old buckets',
          severity: 'Medium',
          result: 'FAIL',
          failed_resource_count: failing.length,
          unsurveyed_resource_types: [],
        });
        expect(ofVersioning[0]!.failed_resources.map((f: any) => f.resource.resource_id)).toEqual(failing.slice(0, 100));
        expect(ofVersioning[0]!.failed_resources[0].messages).toEqual(['Bucket is too young']);

        // A rule without families is reported in every family of the scan.
        const ofEverywhere = items.filter((i) => i.rule_id === everywhere.id);
        expect(ofEverywhere.map((i) => [i.family, i.rule, i.result])).toEqual([
          ['CIS', 'CIS CUSTOM Buckets exist', 'PASS'],
          ['NIST', 'NIST CUSTOM Buckets exist', 'PASS'],
        ]);
        expect((await rulesOfScan(done.id, '&family=NIST')).some((i) => i.rule_id === versioning.id)).toBe(false);

        const types = await server.request('GET', `/v0/scans/${done.id}/compliance_by_resource_types?resource_type=PROVA.S3.Bucket`);
        const buckets = types.body.items[0];
        const withCustomFailure = buckets.noncompliant.filter((r: any) => r.failed_rules.some((f: any) => f.rule === versioning.id));
        // Every failing bucket is listed (there are fewer than the 100 a page lists), each with the custom rule.
        expect(buckets.noncompliant_count).toBeLessThanOrEqual(100);
        expect(withCustomFailure.map((r: any) => r.resource_id).sort()).toEqual([...failing].sort());
        for (const resource of withCustomFailure) {
          expect(resource.failed_rules).toContainEqual({ family: 'CIS', rule: versioning.id, messages: ['Bucket is too young'] });
        }
      });

      it('finishes a scan with a rule whose regular expression backtracks in JavaScript, and reports a rule over budget as not evaluated', async () => {
        const env = await createEnvironment();
        const backtracking = await create(bucketRule({ name: 'Backtracking', rule_text: BACKTRACKING, description: 'Name does not match' }));
        const overBudget = await create(bucketRule({ name: 'Over budget', rule_text: OVER_BUDGET }));
        const done = await scan(env.id);
        const buckets = (await bucketDocuments(done.id)).length;
        expect(buckets).toBeGreaterThan(0);

        const items = await rulesOfScan(done.id);
        const ofBacktracking = items.filter((i) => i.rule_id === backtracking.id);
        expect(ofBacktracking).toHaveLength(1);
        expect(ofBacktracking[0]).toMatchObject({ result: 'FAIL', failed_resource_count: buckets });
        expect(ofBacktracking[0]!.failed_resources[0].messages).toEqual(['Name does not match']);
        const ofOverBudget = items.filter((i) => i.rule_id === overBudget.id);
        expect(ofOverBudget).toHaveLength(1);
        // The report counts a resource the rule could not evaluate as failed, with the reason as its message.
        expect(ofOverBudget[0]).toMatchObject({ failed_resource_count: buckets });
        expect(ofOverBudget[0]!.failed_resources[0].messages).toEqual([
          expect.stringMatching(/^the rule could not be evaluated: the rule exceeded its evaluation budget of \d+ units$/),
        ]);
      }, 30_000);

      it('keeps a scan’s results as evaluated when the rule is later renamed, disabled or deleted', async () => {
        const env = await createEnvironment();
        const rule = await create(bucketRule({ name: 'Named once', rule_text: 'resource.type == "PROVA.S3.Bucket"' }));
        const done = await scan(env.id);
        const before = (await rulesOfScan(done.id)).filter((i) => i.rule_id === rule.id);
        expect(before.length).toBeGreaterThan(0);
        await server.request('PATCH', `/v0/rules/${rule.id}`, { body: { name: 'Renamed', status: 'DISABLED' } });
        expect((await rulesOfScan(done.id)).filter((i) => i.rule_id === rule.id)).toEqual(before);
        await server.request('DELETE', `/v0/rules/${rule.id}`);
        expect((await rulesOfScan(done.id)).filter((i) => i.rule_id === rule.id)).toEqual(before);
      });

      it('leaves DISABLED rules and rules of other providers out of scans', async () => {
        const env = await createEnvironment();
        const disabled = await create(bucketRule({ name: 'disabled' }));
        await server.request('PATCH', `/v0/rules/${disabled.id}`, { body: { status: 'DISABLED' } });
        const govOnly = await create(bucketRule({ name: 'gov only', providers: ['PROVIDER_A_GOV'] }));
        const enabled = await create(bucketRule({ name: 'enabled', rule_text: 'false', description: '' }));
        const done = await scan(env.id);
        const items = await rulesOfScan(done.id);
        const ofEnabled = items.find((i) => i.rule_id === enabled.id)!;
        expect(ofEnabled).toMatchObject({ result: 'FAIL', failed_resource_count: (await bucketDocuments(done.id)).length });
        expect(ofEnabled.failed_resources[0].messages).toEqual(['Custom rule enabled failed']);
        const ruleIds = new Set(items.map((i) => i.rule_id));
        expect(ruleIds.has(enabled.id)).toBe(true);
        expect(ruleIds.has(disabled.id)).toBe(false);
        expect(ruleIds.has(govOnly.id)).toBe(false);
        const evaluated = await db().handle.db.selectFrom('scan_rule_results').select('rule_id').where('scan_id', '=', done.id).execute();
        expect(evaluated.map((r) => r.rule_id)).toContain(enabled.id);
        expect(evaluated.map((r) => r.rule_id)).not.toContain(disabled.id);
      });

      it("does not evaluate another organization's rules", async () => {
        const foreign = await create();
        await server.useNewTenant();
        const env = await createEnvironment();
        const done = await scan(env.id);
        expect((await rulesOfScan(done.id)).some((i) => i.rule_id === foreign.id)).toBe(false);
      });
    });
  },
  'suite',
);
