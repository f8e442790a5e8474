import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, it } from '@jest/globals';
import { PROJECT_ROOT } from '../src/paths.js';
import { createEnvironment, customRuleBody, runScan } from './compliance.js';
import { describeEachDatabase } from './databases.js';
import { expect } from './expect.js';
import { useTestServer } from './server.js';

const run = promisify(execFile);
const SCRIPT = join(PROJECT_ROOT, 'contract-tests/outside/public_service_requests.py');

/**
 * Requests a client written for the public service sends (issue 27): `null` for lists it did not set, `via_download`
 * and a rule test input without `resource_type`, `remediated` on events, `beta_resources` on resource types, and the
 * refusals that service answers 400 with its BadRequestError types. Python's standard library sends them.
 */
describeEachDatabase('requests of a public-service client', (db) => {
  const server = useTestServer(db);

  /** An environment with a baseline, remediation on and REMEDIATION events of both outcomes. */
  async function remediatedEnvironment() {
    const env = await createEnvironment(server(), { compliance_families: ['CIS'] });
    const baseline = await runScan(server(), env.id);
    await server().request('PATCH', `/v0/environments/${env.id}`, { body: { baseline_id: baseline.id, remediation: true } });
    const account = env.provider_options.provider_a.role_arn.split(':')[4];
    const resources = await db()
      .handle.db.selectFrom('cloud_resources')
      .select(['resource_id', 'revertible'])
      .where('account_key', '=', `provider_a:${account}`)
      .where('type', 'in', env.survey_resource_types)
      .orderBy('resource_id')
      .execute();
    // One change that can be reverted and one another system manages, which cannot.
    for (const revertible of [0, 1]) {
      const resource = resources.find((r) => Number(r.revertible) === revertible)!;
      await server().services.cloud.driftResource('provider_a', account, resource.resource_id, { changed_by_hand: true });
    }
    const scan = await runScan(server(), env.id);
    expect(scan.status).toBe('SUCCESS');
    return { env, scan };
  }

  it('are answered as the public service answers them, sent from Python', async () => {
    const { env, scan } = await remediatedEnvironment();
    const idle = await createEnvironment(server());
    const group = await server().request('POST', '/v0/groups', { body: { name: 'Auditors', policy: 'builtin:AUDITOR', environment_ids: ['*'] } });
    expect(group.status, group.text).toBe(201);
    const rule = await server().request('POST', '/v0/rules', { body: customRuleBody('Versioned buckets') });
    expect(rule.status, rule.text).toBe(201);
    const credentials = Buffer.from(server().auth.replace(/^Basic /, ''), 'base64').toString();

    const args = [
      SCRIPT,
      '--base-url', server().baseUrl,
      '--credentials', credentials,
      '--environment', env.id,
      '--scan', scan.id,
      '--idle-environment', idle.id,
      '--group-id', group.body.id,
      '--group-name', 'AUDITORS',
      '--rule', rule.body.id,
    ];
    // Asynchronously: the server answers the script from this process.
    const { stdout } = await run('python3', args, { timeout: 60_000 });
    const results = JSON.parse(stdout);

    const typesOfScan = [...new Set(((await server().request('GET', `/v0/rules/test/input?scan_id=${scan.id}`)).body.resources as { type: string }[]).map((r) => r.type))];
    expect(typesOfScan.length, 'types in the scan').toBeGreaterThan(1);
    const remediations = (await server().request('GET', `/v0/events?environment_id=${env.id}&event_type=REMEDIATION&max_items=1000`)).body.items as { remediated: boolean }[];
    const reverted = remediations.filter((e) => e.remediated).length;
    expect(reverted, 'reverted').toBeGreaterThan(0);
    expect(remediations.length - reverted, 'not reverted').toBeGreaterThan(0);

    expect(results).toEqual({
      'update environment with null lists': {
        status: 200,
        name: 'renamed by a public-service client',
        compliance_families: ['CIS'],
        survey_resource_types: env.survey_resource_types.length,
        remediate_resource_types: env.remediate_resource_types,
      },
      'create rule with null lists': { status: 201, providers: ['PROVIDER_A', 'PROVIDER_A_GOV'], families: [] },
      'update rule with null lists': { status: 200, description: 'Still versioned.', providers: ['PROVIDER_A'], families: ['CIS'] },
      'rule test input via download': {
        status: 200,
        link: `/v0/rules/test/input?scan_id=${scan.id}&resource_type=PROVA.S3.Bucket`,
        download: { status: 200, 'same document': true },
        'download without credentials': { status: 401, type: 'AuthenticationError' },
      },
      'rule test via download': {
        status: 200,
        link: true,
        download: { status: 200, 'same document': true },
        'download without credentials': { status: 401, type: 'AuthenticationError' },
        'without via_download': { status: 200, links: false },
      },
      'rule test input of the whole scan': { status: 200, resource_type: null, types: [...typesOfScan].sort(), is_truncated: expect.any(Boolean) },
      'events remediated=true': { status: 200, outcomes: ['REMEDIATION true'], count: reverted },
      'events remediated=false': { status: 200, outcomes: ['REMEDIATION false'], count: remediations.length - reverted },
      'events remediated=both': { status: 200, outcomes: ['REMEDIATION false', 'REMEDIATION true'], count: remediations.length },
      'resource types with beta_resources': { status: 200, 'same as without': true },
      'first scan': { status: 201, type: null },
      'scan while one runs': { status: 400, type: 'WorkAlreadyStartedException' },
      'first invite': { status: 201, type: null },
      'second invite to one address': { status: 400, type: 'AlreadyInvitedError' },
      'group name taken': { status: 400, type: 'BadRequest' },
    });
  }, 120_000);

  describe('on the same server, in its own words', () => {
    it('an address that is already a user of the organization is a 400 AlreadyAttachedToTenantError', async () => {
      const group = await server().request('POST', '/v0/groups', { body: { name: 'Readers', policy: 'builtin:READONLY', environment_ids: ['*'] } });
      const user = await server().services.consoleAuth.createUser(server().orgId, 'dana@example.com', 'a long enough password');
      const res = await server().request('POST', '/v0/invites', { body: { email: 'Dana@example.com', group_ids: [group.body.id] } });
      expect(res.status, res.text).toBe(400);
      expect(res.body).toEqual({ type: 'AlreadyAttachedToTenantError', code: 400, message: `email: dana@example.com already belongs to user ${user.id}` });
    });
  });
}, 'suite');
