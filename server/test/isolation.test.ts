import { beforeAll, beforeEach, it } from '@jest/globals';
import { loadApiDocument } from '../src/http/apis.js';
import { describeEachDatabase } from './databases.js';
import { useTestServer, type TestServer } from './server.js';
import { expect } from './expect.js';

/**
 * product.md §7: one organization's credentials never see another's data — a record of another organization
 * answers 404, lists leave it out. Organization A creates one of everything; organization B then calls every
 * operation of the compliance API with A's ids. The table must name every operation of the spec.
 */
interface Records {
  orgId: string;
  environment: string;
  scan: string;
  notification: string;
  rule: string;
  /** A rule test's answer kept for its download. */
  ruleTestOutput: string;
  group: string;
  invite: string;
  user: string;
}

type Response = { status: number; body: any; text: string };
interface Case {
  call: (r: Records) => { method: string; path: string; body?: unknown };
  /** What B must see; by default 404. */
  expect?: (res: Response, r: Records) => void;
}

const notFound = (res: Response) => {
  expect(res.status, res.text).toBe(404);
  expect(res.body).toMatchObject({ type: 'NotFound', code: 404 });
};
/** A list of B's: whatever it holds, nothing of A's. */
const excludes = (field: string, key: keyof Records) => (res: Response, r: Records) => {
  expect(res.status, res.text).toBe(200);
  expect(res.body.items.map((item: any) => item[field])).not.toContain(r[key]);
};
/** A reference to A's record inside a body is an unknown id to B. */
const unknownReference = (res: Response) => {
  expect([400, 404], res.text).toContain(res.status);
  expect(res.body.code).toBe(res.status);
};

const CASES: Record<string, Case> = {
  listEnvironments: { call: () => ({ method: 'GET', path: '/environments' }), expect: excludes('id', 'environment') },
  createEnvironment: {
    call: () => ({ method: 'POST', path: '/environments', body: { name: 'b', provider: 'provider_a', provider_options: { provider_a: { role_arn: 'arn:prova:iam::999999999999:role/r', regions: ['*'] } } } }),
    expect: (res, r) => expect(res.body.tenant_id).not.toBe(r.orgId),
  },
  getEnvironment: { call: (r) => ({ method: 'GET', path: `/environments/${r.environment}` }) },
  updateEnvironment: { call: (r) => ({ method: 'PATCH', path: `/environments/${r.environment}`, body: { name: 'taken over' } }) },
  deleteEnvironment: { call: (r) => ({ method: 'DELETE', path: `/environments/${r.environment}` }) },
  listScans: { call: (r) => ({ method: 'GET', path: `/scans?environment_id=${r.environment}` }) },
  createScan: { call: (r) => ({ method: 'POST', path: `/scans?environment_id=${r.environment}` }) },
  getScan: { call: (r) => ({ method: 'GET', path: `/scans/${r.scan}` }) },
  getComplianceByRules: { call: (r) => ({ method: 'GET', path: `/scans/${r.scan}/compliance_by_rules` }) },
  getComplianceByResourceTypes: { call: (r) => ({ method: 'GET', path: `/scans/${r.scan}/compliance_by_resource_types` }) },
  getResourceTypes: { call: () => ({ method: 'GET', path: '/metadata/provider_a/resource_types' }), expect: (res) => expect(res.status).toBe(200) },
  getPermissions: {
    call: () => ({ method: 'GET', path: '/metadata/provider_a/permissions' }),
    // The trust relationship names the caller's organization, never another.
    expect: (res, r) => expect(JSON.stringify(res.body)).not.toContain(r.orgId),
  },
  listEvents: { call: (r) => ({ method: 'GET', path: `/events?environment_id=${r.environment}` }) },
  listNotifications: { call: () => ({ method: 'GET', path: '/notifications' }), expect: excludes('notification_id', 'notification') },
  createNotification: {
    call: (r) => ({ method: 'POST', path: '/notifications', body: { name: 'b', events: ['drift'], environments: [r.environment], emails: ['b@example.com'] } }),
    expect: unknownReference,
  },
  updateNotification: {
    call: (r) => ({ method: 'PUT', path: `/notifications/${r.notification}`, body: { name: 'b', events: ['drift'], environments: ['*'], emails: ['b@example.com'] } }),
  },
  deleteNotification: { call: (r) => ({ method: 'DELETE', path: `/notifications/${r.notification}` }) },
  listNotificationDeliveries: { call: (r) => ({ method: 'GET', path: `/notifications/${r.notification}/deliveries` }) },
  listCustomRules: { call: () => ({ method: 'GET', path: '/rules' }), expect: excludes('id', 'rule') },
  createCustomRule: {
    call: () => ({ method: 'POST', path: '/rules', body: { name: 'b rule', resource_type: 'PROVA.S3.Bucket', rule_text: 'true' } }),
    expect: (res) => expect(res.status).toBe(201),
  },
  getCustomRule: { call: (r) => ({ method: 'GET', path: `/rules/${r.rule}` }) },
  updateCustomRule: { call: (r) => ({ method: 'PATCH', path: `/rules/${r.rule}`, body: { status: 'DISABLED' } }) },
  deleteCustomRule: { call: (r) => ({ method: 'DELETE', path: `/rules/${r.rule}` }) },
  testCustomRule: {
    call: (r) => ({ method: 'POST', path: '/rules/test', body: { scan_id: r.scan, rule_text: 'true', resource_type: 'PROVA.S3.Bucket' } }),
  },
  testCustomRuleInput: { call: (r) => ({ method: 'GET', path: `/rules/test/input?scan_id=${r.scan}&resource_type=PROVA.S3.Bucket` }) },
  getCustomRuleTestOutput: { call: (r) => ({ method: 'GET', path: `/rules/test/outputs/${r.ruleTestOutput}` }) },
  listInvites: { call: () => ({ method: 'GET', path: '/invites' }), expect: excludes('id', 'invite') },
  createInvite: { call: (r) => ({ method: 'POST', path: '/invites', body: { email: 'someone@example.com', group_ids: [r.group] } }), expect: unknownReference },
  getInviteById: { call: (r) => ({ method: 'GET', path: `/invites/${r.invite}` }) },
  listGroups: { call: () => ({ method: 'GET', path: '/groups?max_items=100' }), expect: excludes('id', 'group') },
  createGroup: {
    call: (r) => ({ method: 'POST', path: '/groups', body: { name: 'b group', policy: 'builtin:READONLY', environment_ids: [r.environment] } }),
    expect: unknownReference,
  },
  editUsersGroupAssignments: { call: (r) => ({ method: 'PATCH', path: '/users', body: { user_ids: [r.user], group_ids: [r.group] } }), expect: unknownReference },
  listUsers: { call: () => ({ method: 'GET', path: '/users' }), expect: excludes('id', 'user') },
  getUserById: { call: (r) => ({ method: 'GET', path: `/users/${r.user}` }) },
};

/** Operations anyone may call, with no data of an organization. */
const PUBLIC = new Set(['getSwagger']);

it('names every operation of the compliance API', () => {
  const operations = loadApiDocument('compliance').operations.map((o) => o.operationId).filter((id) => !PUBLIC.has(id));
  expect(Object.keys(CASES).sort()).toEqual(operations.sort());
});

describeEachDatabase(
  'organization isolation',
  (db) => {
    const testServer = useTestServer(db);
    let server: TestServer;
    let records: Records;

    // Organization A creates one of everything, through the API and its services.
    beforeAll(async () => {
      const a = testServer();
      const ok = async (method: string, path: string, body?: unknown) => {
        const res = await a.request(method, `/v0${path}`, { body });
        expect(res.status, `${method} ${path}: ${res.text}`).toBeLessThan(300);
        return res.body;
      };
      const environment = await ok('POST', '/environments', {
        name: 'a',
        provider: 'provider_a',
        provider_options: { provider_a: { role_arn: 'arn:prova:iam::123456789000:role/r', regions: ['us-east-1'] } },
      });
      const scan = await ok('POST', `/scans?environment_id=${environment.id}`);
      while (await a.services.jobs.runOnce());
      const notification = await ok('POST', '/notifications', { name: 'a', events: ['drift'], environments: [environment.id], emails: ['a@example.com'] });
      const rule = await ok('POST', '/rules', { name: 'a rule', resource_type: 'PROVA.S3.Bucket', rule_text: 'true' });
      const tested = await ok('POST', '/rules/test?via_download=true', { scan_id: scan.id, rule_text: 'true', resource_type: 'PROVA.S3.Bucket' });
      const group = await ok('POST', '/groups', { name: 'a group', policy: 'builtin:READONLY', environment_ids: [environment.id] });
      const invite = await ok('POST', '/invites', { email: 'new.person@example.com', group_ids: [group.id] });
      const user = await a.services.consoleAuth.createUser(a.orgId, `a${Date.now()}@example.com`, 'a password long enough');
      records = { orgId: a.orgId, environment: environment.id, scan: scan.id, notification: notification.notification_id, rule: rule.id,
        ruleTestOutput: (tested.links.output as string).split('/').pop()!,
        group: group.id,
        invite: invite.id,
        user: user.id,
      };
    });
    beforeEach(() => {
      server = testServer(); // a new organization B for every test
    });

    for (const [operationId, { call, expect: check = notFound }] of Object.entries(CASES)) {
      it(`${operationId} shows organization B nothing of organization A`, async () => {
        const { method, path, body } = call(records);
        check(await server.request(method, `/v0${path}`, { body }), records);
      });
    }
  },
  'suite',
);
