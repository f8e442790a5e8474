import { beforeEach, describe, it } from '@jest/globals';
import { parse } from 'yaml';
import { newId } from '../src/domain/ids.js';
import type { Scan } from '../src/domain/scans/types.js';
import { KyselyScanRepository } from '../src/storage/repositories/scans.js';
import { describeEachDatabase } from './databases.js';
import { basic, useTestServer, type TestServer } from './server.js';
import { expect } from './expect.js';

const ARN = 'arn:prova:iam::123456789012:role/compliance-scanner';
const GOV_ARN = 'arn:prova-us-gov:iam::123456789012:role/compliance-scanner';
const SUBSCRIPTION = '8f14e45f-ceea-4e7a-9c3b-0d5e2f1a6b7c';

const providerA = (overrides: Record<string, unknown> = {}) => ({
  name: 'prod',
  provider: 'provider_a',
  provider_options: { provider_a: { role_arn: ARN, regions: ['us-east-1'] } },
  ...overrides,
});

describeEachDatabase('environments API', (db) => {
  const testServer = useTestServer(db);
  let server: TestServer;
  beforeEach(() => {
    server = testServer();
  });

  const create = async (body: Record<string, unknown> = providerA()) => {
    const res = await server.request('POST', '/v0/environments', { body });
    expect(res.status, res.text).toBe(201);
    return res.body as Record<string, any>;
  };

  const expectInvalid = async (method: string, path: string, body: unknown, message: RegExp) => {
    const res = await server.request(method, path, { body });
    expect(res.status, res.text).toBe(400);
    expect(res.body).toEqual({ type: expect.stringMatching(/^(InvalidParameterValue|MissingParameter|BadRequest|InvalidJSON)$/), code: 400, message: expect.stringMatching(message) });
    return res.body;
  };

  /** Stores a scan as though it had run: its job is already finished, so no worker takes it up. */
  const storeScan = async (scan: Scan) => {
    const at = server.clock.nowMs();
    const job = { id: newId(), kind: 'scan', payload: {}, status: 'succeeded' as const, attempts: 1, maxAttempts: 1, runAt: at, leaseOwner: null, leaseExpiresAt: null, lastError: null, createdAt: at, updatedAt: at, finishedAt: at, requestId: null };
    expect(await new KyselyScanRepository(db().handle.db).insert({ ...scan, jobId: job.id }, job)).toBe(true);
  };

  describe('create', () => {
    it('creates an environment with the documented defaults', async () => {
      const env = await create();
      const now = server.clock.nowSeconds();
      expect(env).toMatchObject({
        name: 'prod',
        provider: 'provider_a',
        tenant_id: server.orgId,
        provider_options: { provider_a: { role_arn: ARN, regions: ['us-east-1'] } },
        compliance_families: [],
        baseline_id: null,
        drift: false,
        remediation: false,
        scan_interval: 86400,
        scan_schedule_enabled: true,
        scan_status: null,
        last_scan_at: null,
        next_scan_at: now + 86400,
        created_at: now,
      });
      expect(env.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(env.survey_resource_types).toContain('PROVA.S3.Bucket');
    });

    it('accepts scan_interval and scan_schedule_enabled as strings and answers integers and booleans', async () => {
      const env = await create(providerA({ scan_interval: '3600', scan_schedule_enabled: 'false' }));
      expect(env).toMatchObject({ scan_interval: 3600, scan_schedule_enabled: false, next_scan_at: null });
    });

    it('refuses a scan_interval under 600 seconds, as integer or as string', async () => {
      await expectInvalid('POST', '/v0/environments', providerA({ scan_interval: '599' }), /^scan_interval: must be at least 600 seconds$/);
      await expectInvalid('POST', '/v0/environments', providerA({ scan_interval: 599 }), /^scan_interval: must be >= 600$/);
      await expectInvalid('POST', '/v0/environments', providerA({ scan_interval: '10m' }), /^scan_interval: must match pattern/);
      await expectInvalid('POST', '/v0/environments', providerA({ scan_interval: true }), /^scan_interval: must be integer or string$/);
    });

    it('refuses a scan_schedule_enabled that is neither a boolean nor its string', async () => {
      await expectInvalid('POST', '/v0/environments', providerA({ scan_schedule_enabled: 'yes' }), /scan_schedule_enabled/);
    });

    it('refuses provider_options that do not match the provider', async () => {
      await expectInvalid(
        'POST',
        '/v0/environments',
        providerA({ provider_options: { provider_b: { subscription_id: SUBSCRIPTION } } }),
        /provider_options\.provider_b: does not match provider 'provider_a'/,
      );
      await expectInvalid(
        'POST',
        '/v0/environments',
        providerA({ provider_options: { provider_a_gov: { role_arn: GOV_ARN, regions: ['us-gov-east-1'] } } }),
        /standard and government/,
      );
    });

    it('requires the role and the regions of a provider_a environment', async () => {
      await expectInvalid('POST', '/v0/environments', providerA({ provider_options: { provider_a: { regions: ['us-east-1'] } } }), /provider_options\.provider_a\.role_arn: is required/);
      await expectInvalid('POST', '/v0/environments', providerA({ provider_options: { provider_a: { role_arn: ARN } } }), /provider_options\.provider_a\.regions: is required/);
      await expectInvalid('POST', '/v0/environments', { name: 'x', provider: 'provider_a' }, /provider_options/);
    });

    it('refuses government regions for provider_a and standard ones for provider_a_gov', async () => {
      await expectInvalid('POST', '/v0/environments', providerA({ provider_options: { provider_a: { role_arn: ARN, regions: ['us-gov-west-1'] } } }), /government region/);
      await expectInvalid(
        'POST',
        '/v0/environments',
        { name: 'gov', provider: 'provider_a_gov', provider_options: { provider_a_gov: { role_arn: GOV_ARN, regions: ['us-east-1'] } } },
        /standard region/,
      );
    });

    it('refuses a role in the wrong partition for the provider', async () => {
      await expectInvalid(
        'POST',
        '/v0/environments',
        { name: 'gov', provider: 'provider_a_gov', provider_options: { provider_a_gov: { role_arn: ARN, regions: ['*'] } } },
        /must use the 'prova-us-gov' partition/,
      );
    });

    it("refuses '*' mixed with named regions and duplicate regions", async () => {
      await expectInvalid('POST', '/v0/environments', providerA({ provider_options: { provider_a: { role_arn: ARN, regions: ['*', 'us-east-1'] } } }), /'\*' stands for all/);
      await expectInvalid('POST', '/v0/environments', providerA({ provider_options: { provider_a: { role_arn: ARN, regions: ['us-east-1', 'us-east-1'] } } }), /twice|duplicate/);
    });

    it("refuses families and resource types of another provider", async () => {
      await expectInvalid('POST', '/v0/environments', providerA({ compliance_families: ['CISPROVB'] }), /'CISPROVB' is not a family of provider_a/);
      await expectInvalid('POST', '/v0/environments', providerA({ survey_resource_types: ['PROVB.Storage.Account'] }), /not a supported resource type of provider_a/);
    });

    it('refuses unknown and server-filled fields, naming the field', async () => {
      await expectInvalid('POST', '/v0/environments', providerA({ colour: 'blue' }), /colour/);
      await expectInvalid('POST', '/v0/environments', providerA({ id: newId() }), /\bid\b/);
      await expectInvalid('POST', '/v0/environments', providerA({ tenant_id: newId() }), /tenant_id/);
    });

    it('accepts the baseline fields of an environment in the state a new one can have', async () => {
      const env = await create(providerA({ baseline_id: null, drift: false, remediation: true }));
      expect(env).toMatchObject({ baseline_id: null, drift: false, remediation: true });
      expect(await create(providerA({ baseline_id: '', drift: false, remediation: false }))).toMatchObject({ baseline_id: null, drift: false, remediation: false });
      await expectInvalid('POST', '/v0/environments', providerA({ baseline_id: newId() }), /^baseline_id: a new environment has no scans yet/);
      await expectInvalid('POST', '/v0/environments', providerA({ drift: true }), /^drift: drift detection is on exactly while a baseline is set/);
      const providerB = { name: 'b', provider: 'provider_b', provider_options: { provider_b: { subscription_id: SUBSCRIPTION } } };
      await expectInvalid('POST', '/v0/environments', { ...providerB, remediation: true }, /^remediation: baseline enforcement is available only for provider_a and provider_a_gov/);
    });

    it('surveys every supported resource type by default, not only the recommended ones', async () => {
      for (const [provider, options, region] of [
        ['provider_a', { provider_a: { role_arn: ARN, regions: ['*'] } }, '?region=*'],
        ['provider_b', { provider_b: { subscription_id: SUBSCRIPTION } }, ''],
      ] as const) {
        const env = await create({ name: provider, provider, provider_options: options });
        const metadata = await server.request('GET', `/v0/metadata/${provider}/resource_types${region}`);
        expect([...env.survey_resource_types].sort()).toEqual([...metadata.body.resource_types].sort());
        expect(metadata.body.resource_types.length).toBeGreaterThan(metadata.body.recommended_types.length);
      }
    });

    it('names every problem of the request in the message, not only the first', async () => {
      const body = await expectInvalid(
        'POST',
        '/v0/environments',
        { name: '', provider: 'provider_c', provider_options: { provider_a: { role_arn: ARN, regions: ['us-east-1'] } }, scan_interval: 5, colour: 'blue' },
        /./,
      );
      for (const field of ['name', 'provider', 'scan_interval', 'colour']) expect(body.message).toContain(field);
    });

    it('names unknown query parameters and empty values beside the other problems', async () => {
      const res = await server.request('GET', '/v0/environments?max_items=0&colour=blue&order_by=');
      expect(res.status, res.text).toBe(400);
      expect(res.body.message).toContain('max_items');
      expect(res.body.message).toContain("Unknown query parameter 'colour'");
      expect(res.body.message).toContain("Empty value found for query parameter 'order_by'");
    });

    it('answers InvalidJSON for a body that is not JSON', async () => {
      const res = await server.request('POST', '/v0/environments', { body: '{"name": ', headers: { 'content-type': 'application/json' } });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ type: 'InvalidJSON', code: 400 });
    });

    it('keeps the deprecated region and shows it as region', async () => {
      const env = await create(providerA({ provider_options: { provider_a: { role_arn: ARN, region: 'eu-west-1' } } }));
      expect(env.provider_options).toEqual({ provider_a: { role_arn: ARN, region: 'eu-west-1' } });
    });

    it("accepts the deprecated region '*' for every region, and never changes it", async () => {
      const env = await create(providerA({ provider_options: { provider_a: { role_arn: ARN, region: '*' } } }));
      expect(env.provider_options).toEqual({ provider_a: { role_arn: ARN, region: '*' } });
      await expectInvalid('PATCH', `/v0/environments/${env.id}`, { provider_options: { provider_a: { regions: ['us-east-1'] } } }, /deprecated region '\*' and its region cannot change/);
    });

    it('creates provider_b environments with resource groups and never shows the client secret', async () => {
      const env = await create({
        name: 'analytics',
        provider: 'provider_b',
        provider_options: { provider_b: { subscription_id: SUBSCRIPTION, client_secret: 's3cr3t-value', survey_resource_groups: ['rg-a'] } },
        compliance_families: ['CISPROVB', 'CSACCM'],
      });
      expect(env.survey_resource_groups).toEqual(['rg-a']);
      expect(env.provider_options.provider_b).toEqual({ subscription_id: SUBSCRIPTION, survey_resource_groups: ['rg-a'] });
      expect(JSON.stringify(env)).not.toContain('s3cr3t-value');
    });

    it("defaults provider_b resource groups to '*' and refuses them on provider_a", async () => {
      const env = await create({ name: 'b', provider: 'provider_b', provider_options: { provider_b: { subscription_id: SUBSCRIPTION } } });
      expect(env.survey_resource_groups).toEqual(['*']);
      await expectInvalid('POST', '/v0/environments', providerA({ survey_resource_groups: ['rg'] }), /provider_b environments only/);
    });
  });

  describe('update', () => {
    it('changes only the fields sent', async () => {
      const env = await create(providerA({ compliance_families: ['CIS'] }));
      server.clock.advanceSeconds(60);
      const res = await server.request('PATCH', `/v0/environments/${env.id}`, { body: { name: 'renamed' } });
      expect(res.status, res.text).toBe(200);
      expect(res.body).toEqual({ ...env, name: 'renamed', updated_at: env.updated_at + 60 });
    });

    it('replaces the whole region list', async () => {
      const env = await create(providerA({ provider_options: { provider_a: { role_arn: ARN, regions: ['us-east-1', 'us-west-2'] } } }));
      const res = await server.request('PATCH', `/v0/environments/${env.id}`, { body: { provider_options: { provider_a: { regions: ['eu-west-1'] } } } });
      expect(res.body.provider_options).toEqual({ provider_a: { role_arn: ARN, regions: ['eu-west-1'] } });
    });

    it('never changes the region of an environment created with the deprecated region', async () => {
      const env = await create(providerA({ provider_options: { provider_a: { role_arn: ARN, region: 'eu-west-1' } } }));
      await expectInvalid('PATCH', `/v0/environments/${env.id}`, { provider_options: { provider_a: { regions: ['us-east-1'] } } }, /deprecated region 'eu-west-1' and its region cannot change/);
    });

    it('changes regions only of environments created after 28 April 2020, as the spec says', async () => {
      const change = { provider_options: { provider_a: { regions: ['eu-west-1'] } } };
      server.clock.set(Date.UTC(2020, 3, 27, 23, 59));
      const older = await create();
      server.clock.set(Date.UTC(2020, 3, 28));
      const newer = await create();
      await expectInvalid('PATCH', `/v0/environments/${older.id}`, change, /created before 28 April 2020 cannot change their regions/);
      expect((await server.request('PATCH', `/v0/environments/${newer.id}`, { body: change })).status).toBe(200);
      const spec = await server.request('GET', '/v0/swagger');
      const rule = /created after 28 April 2020/;
      const definitions = parse(spec.text).definitions;
      expect(definitions.UpdateEnvironmentInput.description).toMatch(rule);
      expect(definitions.ProviderAOptionsUpdateInput.properties.regions.description).toMatch(rule);
    });

    it('accepts drift in an update only when it agrees with the baseline the update leaves', async () => {
      const env = await create();
      const at = server.clock.nowSeconds();
      const scan = { id: newId(), orgId: server.orgId, environmentId: env.id, status: 'SUCCESS' as const, message: null, remediationError: false, createdAt: at, updatedAt: at, finishedAt: at, summary: null, resourceTypeErrors: [], families: [], jobId: null };
      await storeScan(scan);

      expect((await server.request('PATCH', `/v0/environments/${env.id}`, { body: { drift: false } })).status).toBe(200);
      await expectInvalid('PATCH', `/v0/environments/${env.id}`, { drift: true }, /^drift: drift detection is on exactly while a baseline is set, and this environment has none/);
      const set = await server.request('PATCH', `/v0/environments/${env.id}`, { body: { baseline_id: scan.id, drift: true } });
      expect(set.status, set.text).toBe(200);
      expect(set.body).toMatchObject({ baseline_id: scan.id, drift: true });
      await expectInvalid('PATCH', `/v0/environments/${env.id}`, { drift: false }, /send baseline_id "" to clear the baseline/);
      const cleared = await server.request('PATCH', `/v0/environments/${env.id}`, { body: { baseline_id: '', drift: false } });
      expect(cleared.body).toMatchObject({ baseline_id: null, drift: false });
    });

    it('refuses moves between standard and government regions', async () => {
      const env = await create();
      await expectInvalid('PATCH', `/v0/environments/${env.id}`, { provider: 'provider_a_gov' }, /between standard and government regions/);
      await expectInvalid('PATCH', `/v0/environments/${env.id}`, { provider_options: { provider_a_gov: { regions: ['us-gov-east-1'] } } }, /between standard and government regions/);
      await expectInvalid('PATCH', `/v0/environments/${env.id}`, { provider_options: { provider_a: { regions: ['us-gov-east-1'] } } }, /government region/);
      await expectInvalid('PATCH', `/v0/environments/${env.id}`, { provider: 'provider_b' }, /provider of an environment cannot change/);
    });

    it('keeps the role in the same account', async () => {
      const env = await create();
      const renamed = await server.request('PATCH', `/v0/environments/${env.id}`, { body: { provider_options: { provider_a: { role_arn: 'arn:prova:iam::123456789012:role/other' } } } });
      expect(renamed.status).toBe(200);
      await expectInvalid('PATCH', `/v0/environments/${env.id}`, { provider_options: { provider_a: { role_arn: 'arn:prova:iam::999999999999:role/x' } } }, /must stay in account 123456789012/);
    });

    it('turns remediation on and off for provider_a only', async () => {
      const env = await create();
      const on = await server.request('PATCH', `/v0/environments/${env.id}`, { body: { remediation: true } });
      expect(on.body.remediation).toBe(true);
      const b = await create({ name: 'b', provider: 'provider_b', provider_options: { provider_b: { subscription_id: SUBSCRIPTION } } });
      await expectInvalid('PATCH', `/v0/environments/${b.id}`, { remediation: true }, /only for provider_a and provider_a_gov/);
    });

    it('sets a baseline from a successful scan, which turns drift detection on; an empty string clears both', async () => {
      const env = await create();
      const at = server.clock.nowSeconds();
      const scan = { id: newId(), orgId: server.orgId, environmentId: env.id, status: 'SUCCESS' as const, message: null, remediationError: false, createdAt: at, updatedAt: at, finishedAt: at, summary: null, resourceTypeErrors: [], families: [], jobId: null };
      await storeScan(scan);

      const set = await server.request('PATCH', `/v0/environments/${env.id}`, { body: { baseline_id: scan.id } });
      expect(set.body).toMatchObject({ baseline_id: scan.id, drift: true });
      const cleared = await server.request('PATCH', `/v0/environments/${env.id}`, { body: { baseline_id: '' } });
      expect(cleared.body).toMatchObject({ baseline_id: null, drift: false });
    });

    it('refuses a baseline that is not a successful scan of this environment', async () => {
      const env = await create();
      const other = await create(providerA({ name: 'other' }));
      const at = server.clock.nowSeconds();
      const running = { id: newId(), orgId: server.orgId, environmentId: env.id, status: 'IN_PROGRESS' as const, message: null, remediationError: false, createdAt: at, updatedAt: at, finishedAt: null, summary: null, resourceTypeErrors: [], families: [], jobId: null };
      const foreign = { ...running, id: newId(), environmentId: other.id, status: 'SUCCESS' as const };
      await storeScan(running);
      await storeScan(foreign);

      await expectInvalid('PATCH', `/v0/environments/${env.id}`, { baseline_id: running.id }, /has status IN_PROGRESS; only a SUCCESS scan can be a baseline/);
      await expectInvalid('PATCH', `/v0/environments/${env.id}`, { baseline_id: foreign.id }, /is not a scan of environment/);
      await expectInvalid('PATCH', `/v0/environments/${env.id}`, { baseline_id: newId() }, /is not a scan of environment/);
    });

    it('restarts the schedule one new interval after an interval change', async () => {
      const env = await create(providerA({ scan_interval: 3600 }));
      server.clock.advanceSeconds(1800);
      const res = await server.request('PATCH', `/v0/environments/${env.id}`, { body: { scan_interval: 1200 } });
      expect(res.body.next_scan_at).toBe(server.clock.nowSeconds() + 1200);
      const off = await server.request('PATCH', `/v0/environments/${env.id}`, { body: { scan_schedule_enabled: 'false' } });
      expect(off.body).toMatchObject({ scan_schedule_enabled: false, next_scan_at: null });
    });

    it('answers 404 for an unknown environment', async () => {
      const res = await server.request('PATCH', `/v0/environments/${newId()}`, { body: { name: 'x' } });
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ type: 'NotFound', code: 404 });
    });
  });

  describe('get, list and delete', () => {
    it('gets one environment with its (still empty) resource summary', async () => {
      const env = await create();
      const res = await server.request('GET', `/v0/environments/${env.id}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ ...env, resource_summary: null });
    });

    it('answers 404 with the error body for an unknown id and 400 for a malformed one', async () => {
      const missing = await server.request('GET', `/v0/environments/${newId()}`);
      expect(missing.status).toBe(404);
      expect(missing.body).toEqual({ type: 'NotFound', code: 404, message: expect.stringMatching(/^environment .* not found$/) });
      const malformed = await server.request('GET', '/v0/environments/not-an-id');
      expect(malformed.status).toBe(400);
      expect(malformed.body).toMatchObject({ code: 400, message: expect.stringMatching(/environment_id/) });
    });

    it('pages through the list with next_offset', async () => {
      for (let i = 0; i < 5; i += 1) {
        await create(providerA({ name: `env-${i}` }));
        server.clock.advanceSeconds(1);
      }
      const first = await server.request('GET', '/v0/environments?max_items=2');
      expect(first.body).toMatchObject({ count: 2, is_truncated: true, next_offset: 2 });
      expect(first.body.items.map((e: any) => e.name)).toEqual(['env-4', 'env-3']);
      const middle = await server.request('GET', '/v0/environments?max_items=2&offset=1');
      expect(middle.body).toMatchObject({ count: 2, is_truncated: true, next_offset: 3 });
      const last = await server.request('GET', '/v0/environments?max_items=2&offset=4');
      expect(last.body).toMatchObject({ count: 1, is_truncated: false });
      expect(last.body).not.toHaveProperty('next_offset');
      const byName = await server.request('GET', '/v0/environments?order_by=name&order_direction=asc&max_items=3');
      expect(byName.body.items.map((e: any) => e.name)).toEqual(['env-0', 'env-1', 'env-2']);
    });

    it('lists environments and scans created in the same second in creation order', async () => {
      const envs: string[] = [];
      for (let i = 0; i < 12; i++) envs.push((await create(providerA({ name: `same-second-${i}` }))).id);
      const oldestFirst = await server.request('GET', '/v0/environments?order_by=created_at&order_direction=asc');
      expect(oldestFirst.body.items.map((e: { id: string }) => e.id)).toEqual(envs);
      const newestFirst = await server.request('GET', '/v0/environments');
      expect(newestFirst.body.items.map((e: { id: string }) => e.id)).toEqual([...envs].reverse());

      const at = server.clock.nowSeconds();
      const started: string[] = [];
      for (let i = 0; i < 12; i++) {
        const scan = { id: newId(), orgId: server.orgId, environmentId: envs[0]!, status: 'SUCCESS' as const, message: null, remediationError: false, createdAt: at, updatedAt: at, finishedAt: at, summary: null, resourceTypeErrors: [], families: [], jobId: null };
        await storeScan(scan);
        started.push(scan.id);
      }
      const listed = await server.request('GET', `/v0/scans?environment_id=${envs[0]}`);
      expect(listed.body.items.map((s: { id: string }) => s.id)).toEqual([...started].reverse());
      const latest = await server.request('GET', `/v0/scans?environment_id=${envs[0]}&status=SUCCESS&max_items=1`);
      expect(latest.body.items.map((s: { id: string }) => s.id)).toEqual([started.at(-1)]);
    });

    it('lists every change at once: an edit, a scan starting and ending, a deletion', async () => {
      const env = await create(providerA({ name: 'listed' }));
      const listed = async () => (await server.request('GET', '/v0/environments')).body.items.map((e: any) => [e.name, e.scan_status, e.last_scan_at]);
      expect(await listed()).toEqual([['listed', null, null]]);
      await server.request('PATCH', `/v0/environments/${env.id}`, { body: { name: 'renamed' } });
      expect(await listed()).toEqual([['renamed', null, null]]);
      const started = await server.request('POST', `/v0/scans?environment_id=${env.id}`);
      expect(started.status, started.text).toBe(201);
      expect(await listed()).toEqual([['renamed', 'IN_PROGRESS', started.body.created_at]]);
      while (await server.services.jobs.runOnce());
      expect(await listed()).toEqual([['renamed', 'SUCCESS', started.body.created_at]]);
      await server.request('DELETE', `/v0/environments/${env.id}`);
      expect(await listed()).toEqual([]);
    });

    it('shows every change of one environment at once: an edit, scans starting and ending with their summaries', async () => {
      const env = await create(providerA({ name: 'shown' }));
      const shown = async () => {
        const res = await server.request('GET', `/v0/environments/${env.id}`);
        expect(res.status, res.text).toBe(200);
        return res.body;
      };
      expect(await shown()).toMatchObject({ name: 'shown', scan_status: null, resource_summary: null });
      await server.request('PATCH', `/v0/environments/${env.id}`, { body: { name: 'renamed' } });
      expect(await shown()).toMatchObject({ name: 'renamed' });
      const first = await server.request('POST', `/v0/scans?environment_id=${env.id}`);
      expect(await shown()).toMatchObject({ scan_status: 'IN_PROGRESS', last_scan_at: first.body.created_at, resource_summary: null });
      while (await server.services.jobs.runOnce());
      const firstSummary = (await server.request('GET', `/v0/scans/${first.body.id}`)).body.resource_summary;
      expect(firstSummary).toMatchObject({ total: expect.any(Number) });
      expect(await shown()).toMatchObject({ scan_status: 'SUCCESS', resource_summary: firstSummary });
      // While the next scan runs, the summary is the last successful scan's.
      const second = await server.request('POST', `/v0/scans?environment_id=${env.id}`);
      expect(await shown()).toMatchObject({ scan_status: 'IN_PROGRESS', resource_summary: firstSummary });
      while (await server.services.jobs.runOnce());
      const secondSummary = (await server.request('GET', `/v0/scans/${second.body.id}`)).body.resource_summary;
      expect(await shown()).toMatchObject({ scan_status: 'SUCCESS', last_scan_at: second.body.created_at, resource_summary: secondSummary });
      await server.request('DELETE', `/v0/environments/${env.id}`);
      expect((await server.request('GET', `/v0/environments/${env.id}`)).status).toBe(404);
    });

    it('filters the list by the query search terms', async () => {
      await create(providerA({ name: 'prod-east' }));
      await create({ name: 'analytics', provider: 'provider_b', provider_options: { provider_b: { subscription_id: SUBSCRIPTION } } });
      const byProvider = await server.request('GET', `/v0/environments?query=${encodeURIComponent('["provider:provider_b"]')}`);
      expect(byProvider.body.items.map((e: any) => e.name)).toEqual(['analytics']);
      const byText = await server.request('GET', `/v0/environments?query=${encodeURIComponent('["PROD"]')}`);
      expect(byText.body.items.map((e: any) => e.name)).toEqual(['prod-east']);
      const bad = await server.request('GET', '/v0/environments?query=notjson');
      expect(bad.status).toBe(400);
    });

    it('refuses paging parameters out of range and unknown parameters', async () => {
      for (const query of ['max_items=0', 'max_items=1001', 'offset=-1', 'order_direction=up', 'order_by=colour', 'colour=blue']) {
        const res = await server.request('GET', `/v0/environments?${query}`);
        expect(res.status, query).toBe(400);
        expect(res.body.code).toBe(400);
      }
    });

    it('deletes an environment: 204, then 404', async () => {
      const env = await create();
      const deleted = await server.request('DELETE', `/v0/environments/${env.id}`);
      expect(deleted.status).toBe(204);
      expect(deleted.text).toBe('');
      expect((await server.request('GET', `/v0/environments/${env.id}`)).status).toBe(404);
      expect((await server.request('DELETE', `/v0/environments/${env.id}`)).status).toBe(404);
    });

    it("never shows one organization's environments to another's client", async () => {
      const env = await create();
      const other = await server.services.organizations.ensure('other-org');
      const { client, secret } = await server.services.apiClients.createWithSecret(other.id, 'other');
      const auth = basic(client.clientId, secret);
      expect((await server.request('GET', `/v0/environments/${env.id}`, { auth })).status).toBe(404);
      expect((await server.request('GET', '/v0/environments', { auth })).body.items).toEqual([]);
      expect((await server.request('DELETE', `/v0/environments/${env.id}`, { auth })).status).toBe(404);
    });
  });
}, 'suite');
