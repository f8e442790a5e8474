import { randomUUID } from 'node:crypto';
import { expect } from '@jest/globals';
import { createEnvironment, customRuleBody, nextAccount, runScan } from '../../server/test/compliance.js';
import { must, send, type Answer, type Call, type Case, type OperationStatuses, type StatusContext } from './scenario.js';

/** The compliance API: every call as the current test's own organization (a new one per test). */

let counter = 0;
const unique = (prefix: string) => `${prefix} ${process.pid}-${(counter += 1)}`;

const get = (path: string): Call => ({ method: 'GET', path: `/v0${path}` });
const post = (path: string, body?: unknown): Call => ({ method: 'POST', path: `/v0${path}`, ...(body !== undefined && { body }) });
const patch = (path: string, body: unknown): Call => ({ method: 'PATCH', path: `/v0${path}`, body });
const put = (path: string, body: unknown): Call => ({ method: 'PUT', path: `/v0${path}`, body });
const del = (path: string): Call => ({ method: 'DELETE', path: `/v0${path}` });

const environment = (ctx: StatusContext) => createEnvironment(ctx.server);
const newStaging = () =>
  post('/environments', {
    name: 'staging',
    provider: 'provider_a',
    provider_options: { provider_a: { role_arn: `arn:prova:iam::${nextAccount()}:role/scanner`, regions: ['*'] } },
  });
/** An environment with one finished scan. */
async function scanned(ctx: StatusContext) {
  const env = await environment(ctx);
  return { env, scan: await runScan(ctx.server, env.id as string) };
}
/** An environment with a scan in progress (not run: cheaper, and enough to be found). */
async function scanStarted(ctx: StatusContext) {
  const env = await environment(ctx);
  return must(ctx, post(`/scans?environment_id=${env.id}`));
}

const notificationBody = (environmentId: string, name = unique('Drift')) => ({
  name,
  events: ['drift'],
  environments: [environmentId],
  emails: ['secops@example.com'],
});
async function notification(ctx: StatusContext): Promise<{ id: string; environmentId: string }> {
  const env = await environment(ctx);
  const created = await must(ctx, post('/notifications', notificationBody(env.id)));
  return { id: created.notification_id, environmentId: env.id };
}

const ruleBody = (name = unique('Bucket versioning')) => customRuleBody(name);
const rule = (ctx: StatusContext, name?: string) => must(ctx, post('/rules', ruleBody(name)));

const group = (ctx: StatusContext, name = unique('Auditors')) => must(ctx, post('/groups', { name, policy: 'builtin:AUDITOR', environment_ids: ['*'] }));
const inviteBody = (groupId: string, email = `invitee-${process.pid}-${(counter += 1)}@example.com`) => ({ email, group_ids: [groupId], expires: true });
const user = (ctx: StatusContext) =>
  ctx.server.services.consoleAuth.createUser(ctx.server.orgId, `person-${process.pid}-${(counter += 1)}@example.com`, 'a long enough password');

/** A 404 for an id nobody has: the message names what is missing. */
const unknownId = (what: string, call: (id: string) => Call, message: RegExp = new RegExp(`${what} .* not found`)): Case => ({
  how: `an unknown ${what} id`,
  run: async (ctx) => send(ctx, call(randomUUID())),
  check: ({ body }) => {
    expect(body.type).toBe('NotFound');
    expect(body.message).toMatch(message);
  },
});

const ids = (answer: Answer, field = 'id') => (answer.body.items as Array<Record<string, unknown>>).map((item) => item[field]);

export const COMPLIANCE_OPERATIONS: OperationStatuses[] = [
  {
    api: 'compliance',
    operationId: 'listEnvironments',
    valid: async (ctx) => {
      await environment(ctx);
      return get('/environments');
    },
    success: { status: 200, check: (answer) => expect(answer.body).toMatchObject({ count: 1, items: [{ provider: 'provider_a' }] }) },
  },
  {
    api: 'compliance',
    operationId: 'createEnvironment',
    valid: async () => newStaging(),
    success: { status: 201, check: ({ body }) => expect(body).toMatchObject({ id: expect.any(String), name: 'staging', provider: 'provider_a' }) },
    cases: {
      409: {
        how: 'an organization that has its quota of environments (MAX_ENVIRONMENTS_PER_ORG, small on the test server)',
        run: async (ctx) => {
          const { environments } = ctx.server.services.quotas;
          for (let made = 0; made < environments; made += 1) await environment(ctx);
          return send(ctx, newStaging());
        },
        check: ({ body }, ctx) => {
          expect(body.type).toBe('Conflict');
          expect(body.message).toContain(`the most it may have (MAX_ENVIRONMENTS_PER_ORG=${ctx.server.services.quotas.environments})`);
        },
      },
    },
  },
  {
    api: 'compliance',
    operationId: 'getEnvironment',
    valid: async (ctx) => get(`/environments/${(await environment(ctx)).id}`),
    success: { status: 200, check: ({ body }) => expect(body).toMatchObject({ name: 'prod', resource_summary: expect.any(Object) }) },
    cases: { 404: unknownId('environment', (id) => get(`/environments/${id}`)) },
  },
  {
    api: 'compliance',
    operationId: 'updateEnvironment',
    valid: async (ctx) => patch(`/environments/${(await environment(ctx)).id}`, { name: 'renamed' }),
    success: { status: 200, check: ({ body }) => expect(body.name).toBe('renamed') },
    cases: { 404: unknownId('environment', (id) => patch(`/environments/${id}`, { name: 'renamed' })) },
  },
  {
    api: 'compliance',
    operationId: 'deleteEnvironment',
    valid: async (ctx) => del(`/environments/${(await environment(ctx)).id}`),
    success: { status: 204, check: ({ text }) => expect(text).toBe('') },
    cases: { 404: unknownId('environment', (id) => del(`/environments/${id}`)) },
  },
  {
    api: 'compliance',
    operationId: 'listScans',
    valid: async (ctx) => get(`/scans?environment_id=${(await scanStarted(ctx)).environment_id}`),
    success: { status: 200, check: (answer) => expect(answer.body).toMatchObject({ count: 1, items: [{ status: 'IN_PROGRESS' }] }) },
    cases: { 404: unknownId('environment', (id) => get(`/scans?environment_id=${id}`)) },
  },
  {
    api: 'compliance',
    operationId: 'createScan',
    valid: async (ctx) => post(`/scans?environment_id=${(await environment(ctx)).id}`),
    success: { status: 201, check: ({ body }) => expect(body).toMatchObject({ id: expect.any(String), status: 'IN_PROGRESS' }) },
    cases: { 404: unknownId('environment', (id) => post(`/scans?environment_id=${id}`)) },
  },
  {
    api: 'compliance',
    operationId: 'getScan',
    valid: async (ctx) => get(`/scans/${(await scanStarted(ctx)).id}`),
    success: { status: 200, check: ({ body }) => expect(body).toMatchObject({ id: expect.any(String), status: 'IN_PROGRESS' }) },
    cases: { 404: unknownId('scan', (id) => get(`/scans/${id}`)) },
  },
  {
    api: 'compliance',
    operationId: 'getComplianceByRules',
    valid: async (ctx) => get(`/scans/${(await scanned(ctx)).scan.id}/compliance_by_rules`),
    success: { status: 200, check: ({ body }) => expect(body.items.length).toBeGreaterThan(0) },
    cases: { 404: unknownId('scan', (id) => get(`/scans/${id}/compliance_by_rules`)) },
  },
  {
    api: 'compliance',
    operationId: 'getComplianceByResourceTypes',
    valid: async (ctx) => get(`/scans/${(await scanned(ctx)).scan.id}/compliance_by_resource_types`),
    success: { status: 200, check: ({ body }) => expect(body.items.length).toBeGreaterThan(0) },
    cases: { 404: unknownId('scan', (id) => get(`/scans/${id}/compliance_by_resource_types`)) },
  },
  {
    api: 'compliance',
    operationId: 'getResourceTypes',
    // A static catalog: no database to fail.
    fault: 'handler',
    valid: async () => get('/metadata/provider_a/resource_types'),
    success: { status: 200, check: ({ body }) => expect(body.resource_types).toContain('PROVA.S3.Bucket') },
  },
  {
    api: 'compliance',
    operationId: 'getPermissions',
    fault: 'handler',
    valid: async () => get('/metadata/provider_a/permissions'),
    success: { status: 200, check: ({ body }) => expect(body.provider_a.survey_actions.length).toBeGreaterThan(0) },
  },
  {
    api: 'compliance',
    operationId: 'listEvents',
    valid: async (ctx) => get(`/events?environment_id=${(await environment(ctx)).id}`),
    success: { status: 200, check: ({ body }) => expect(body).toMatchObject({ count: 0, items: [] }) },
    cases: { 404: unknownId('environment', (id) => get(`/events?environment_id=${id}`)) },
  },
  {
    api: 'compliance',
    operationId: 'listNotifications',
    valid: async (ctx) => {
      await notification(ctx);
      return get('/notifications');
    },
    success: { status: 200, check: ({ body }) => expect(body).toMatchObject({ count: 1, items: [{ events: ['drift'] }] }) },
  },
  {
    api: 'compliance',
    operationId: 'createNotification',
    valid: async (ctx) => post('/notifications', notificationBody((await environment(ctx)).id, 'Ops')),
    success: { status: 201, check: ({ body }) => expect(body).toMatchObject({ notification_id: expect.any(String), name: 'Ops' }) },
    cases: {
      409: {
        how: 'an organization that has its quota of notifications (MAX_NOTIFICATIONS_PER_ORG, small on the test server)',
        run: async (ctx) => {
          const env = await environment(ctx);
          for (let made = 0; made < ctx.server.services.quotas.notifications; made += 1) await must(ctx, post('/notifications', notificationBody(env.id)));
          return send(ctx, post('/notifications', notificationBody(env.id, 'Ops')));
        },
        check: ({ body }, ctx) => {
          expect(body.type).toBe('Conflict');
          expect(body.message).toContain(`the most it may have (MAX_NOTIFICATIONS_PER_ORG=${ctx.server.services.quotas.notifications})`);
        },
      },
    },
  },
  {
    api: 'compliance',
    operationId: 'updateNotification',
    valid: async (ctx) => {
      const { id, environmentId } = await notification(ctx);
      return put(`/notifications/${id}`, notificationBody(environmentId, 'Renamed'));
    },
    success: { status: 200, check: ({ body }) => expect(body.name).toBe('Renamed') },
    cases: {
      404: {
        how: 'an unknown notification id',
        run: async (ctx) => send(ctx, put(`/notifications/${randomUUID()}`, notificationBody((await environment(ctx)).id))),
        check: ({ body }) => expect(body.message).toMatch(/notification .* not found/),
      },
    },
  },
  {
    api: 'compliance',
    operationId: 'deleteNotification',
    valid: async (ctx) => del(`/notifications/${(await notification(ctx)).id}`),
    success: { status: 204, check: ({ text }) => expect(text).toBe('') },
    cases: { 404: unknownId('notification', (id) => del(`/notifications/${id}`)) },
  },
  {
    api: 'compliance',
    operationId: 'listNotificationDeliveries',
    valid: async (ctx) => get(`/notifications/${(await notification(ctx)).id}/deliveries`),
    success: { status: 200, check: ({ body }) => expect(body).toMatchObject({ count: 0, items: [] }) },
    cases: { 404: unknownId('notification', (id) => get(`/notifications/${id}/deliveries`)) },
  },
  {
    api: 'compliance',
    operationId: 'listCustomRules',
    valid: async (ctx) => {
      await rule(ctx);
      return get('/rules');
    },
    success: { status: 200, check: ({ body }) => expect(body).toMatchObject({ count: 1, items: [{ source: 'CUSTOM' }] }) },
  },
  {
    api: 'compliance',
    operationId: 'createCustomRule',
    valid: async () => post('/rules', ruleBody('Versioned buckets')),
    success: { status: 201, check: ({ body }) => expect(body).toMatchObject({ name: 'Versioned buckets', status: expect.any(String), errors: [] }) },
    cases: {
      409: {
        how: 'a name another custom rule has',
        run: async (ctx) => {
          const { name } = await rule(ctx);
          return send(ctx, post('/rules', ruleBody(name)));
        },
        check: ({ body }) => {
          expect(body.type).toBe('Conflict');
          expect(body.message).toMatch(/^name: a custom rule named '.*' already exists$/);
        },
      },
    },
  },
  {
    api: 'compliance',
    operationId: 'testCustomRule',
    valid: async (ctx) => {
      const { scan } = await scanned(ctx);
      return post('/rules/test', { scan_id: scan.id, rule_text: 'resource.properties.versioning == "Enabled"', resource_type: 'PROVA.S3.Bucket' });
    },
    success: { status: 200, check: ({ body }) => expect(body).toMatchObject({ result: expect.any(String), resource_count: expect.any(Number), errors: [] }) },
    cases: {
      404: {
        how: 'an unknown scan id',
        run: async (ctx) =>
          send(ctx, post('/rules/test', { scan_id: randomUUID(), rule_text: 'resource.properties.versioning == "Enabled"', resource_type: 'PROVA.S3.Bucket' })),
        check: ({ body }) => expect(body.message).toMatch(/^scan_id: scan .* not found$/),
      },
    },
  },
  {
    api: 'compliance',
    operationId: 'testCustomRuleInput',
    valid: async (ctx) => get(`/rules/test/input?scan_id=${(await scanned(ctx)).scan.id}&resource_type=PROVA.S3.Bucket`),
    success: { status: 200, check: ({ body }) => expect(body).toMatchObject({ resource_type: 'PROVA.S3.Bucket', resources: expect.any(Array) }) },
    cases: {
      404: {
        how: 'an unknown scan id',
        run: async (ctx) => send(ctx, get(`/rules/test/input?scan_id=${randomUUID()}&resource_type=PROVA.S3.Bucket`)),
        check: ({ body }) => expect(body.message).toMatch(/^scan_id: scan .* not found$/),
      },
    },
  },
  {
    api: 'compliance',
    operationId: 'getCustomRuleTestOutput',
    valid: async (ctx) => {
      const tested = await must(ctx, post('/rules/test?via_download=true', { scan_id: (await scanned(ctx)).scan.id, rule_text: 'true', resource_type: 'PROVA.S3.Bucket' }));
      return { method: 'GET', path: tested.links.output as string };
    },
    success: { status: 200, check: ({ body }) => expect(body).toMatchObject({ result: 'PASS', errors: [] }) },
    cases: { 404: unknownId('rule test output', (id) => get(`/rules/test/outputs/${id}`)) },
  },
  {
    api: 'compliance',
    operationId: 'getCustomRule',
    valid: async (ctx) => get(`/rules/${(await rule(ctx, 'Readable rule')).id}`),
    success: { status: 200, check: ({ body }) => expect(body.name).toBe('Readable rule') },
    cases: { 404: unknownId('custom rule', (id) => get(`/rules/${id}`)) },
  },
  {
    api: 'compliance',
    operationId: 'updateCustomRule',
    valid: async (ctx) => patch(`/rules/${(await rule(ctx)).id}`, { description: 'Versioning stays on.' }),
    success: { status: 200, check: ({ body }) => expect(body.description).toBe('Versioning stays on.') },
    cases: {
      404: unknownId('custom rule', (id) => patch(`/rules/${id}`, { description: 'Versioning stays on.' })),
      409: {
        how: 'renaming to the name of another custom rule',
        run: async (ctx) => {
          const first = await rule(ctx);
          const second = await rule(ctx);
          return send(ctx, patch(`/rules/${second.id}`, { name: first.name }));
        },
        check: ({ body }) => expect(body).toMatchObject({ type: 'Conflict', message: expect.stringMatching(/already exists$/) }),
      },
    },
  },
  {
    api: 'compliance',
    operationId: 'deleteCustomRule',
    valid: async (ctx) => del(`/rules/${(await rule(ctx)).id}`),
    success: { status: 204, check: ({ text }) => expect(text).toBe('') },
    cases: { 404: unknownId('custom rule', (id) => del(`/rules/${id}`)) },
  },
  {
    api: 'compliance',
    operationId: 'listInvites',
    valid: async (ctx) => {
      await must(ctx, post('/invites', inviteBody((await group(ctx)).id, 'listed@example.com')));
      return get('/invites');
    },
    success: { status: 200, check: ({ body }) => expect(body).toMatchObject({ count: 1, items: [{ email: 'listed@example.com', status: 'PENDING' }] }) },
  },
  {
    api: 'compliance',
    operationId: 'createInvite',
    valid: async (ctx) => post('/invites', inviteBody((await group(ctx)).id, 'new.person@example.com')),
    success: { status: 201, check: ({ body }) => expect(body).toMatchObject({ email: 'new.person@example.com', status: 'PENDING', resource_type: 'invite' }) },
    cases: {
      404: {
        how: 'an unknown group id',
        run: async (ctx) => send(ctx, post('/invites', inviteBody(randomUUID()))),
        check: ({ body }) => expect(body.message).toMatch(/^group_ids: group .* not found$/),
      },
    },
  },
  {
    api: 'compliance',
    operationId: 'getInviteById',
    valid: async (ctx) => get(`/invites/${(await must(ctx, post('/invites', inviteBody((await group(ctx)).id)))).id}`),
    success: { status: 200, check: ({ body }) => expect(body).toMatchObject({ status: 'PENDING', resource_type: 'invite' }) },
    cases: { 404: unknownId('invite', (id) => get(`/invites/${id}`)) },
  },
  {
    api: 'compliance',
    operationId: 'listGroups',
    valid: async (ctx) => {
      await group(ctx, 'Listed auditors');
      return get('/groups');
    },
    success: { status: 200, check: (answer) => expect(answer.body.items.map((g: { name: string }) => g.name)).toContain('Listed auditors') },
  },
  {
    api: 'compliance',
    operationId: 'createGroup',
    valid: async (ctx) => post('/groups', { name: 'Editors', policy: 'builtin:EDITOR', environment_ids: [(await environment(ctx)).id] }),
    success: { status: 201, check: ({ body }) => expect(body).toMatchObject({ name: 'Editors', policy: 'builtin:EDITOR' }) },
    cases: {
      404: {
        how: 'an unknown environment id',
        run: async (ctx) => send(ctx, post('/groups', { name: 'Editors', policy: 'builtin:EDITOR', environment_ids: [randomUUID()] })),
        check: ({ body }) => expect(body.message).toMatch(/^environment_ids: environment .* not found$/),
      },
      409: {
        how: 'an organization that has its quota of groups (MAX_GROUPS_PER_ORG, small on the test server)',
        run: async (ctx) => {
          for (let made = 0; made < ctx.server.services.quotas.groups; made += 1) await group(ctx);
          return send(ctx, post('/groups', { name: unique('Editors'), policy: 'builtin:EDITOR', environment_ids: ['*'] }));
        },
        check: ({ body }, ctx) => {
          expect(body.type).toBe('Conflict');
          expect(body.message).toContain(`the most it may have (MAX_GROUPS_PER_ORG=${ctx.server.services.quotas.groups})`);
        },
      },
    },
  },
  {
    api: 'compliance',
    operationId: 'listUsers',
    valid: async (ctx) => {
      await user(ctx);
      return get('/users');
    },
    success: { status: 200, check: (answer) => expect(ids(answer).length).toBeGreaterThan(0) },
  },
  {
    api: 'compliance',
    operationId: 'editUsersGroupAssignments',
    valid: async (ctx) => patch('/users', { user_ids: [(await user(ctx)).id], group_ids: [(await group(ctx)).id] }),
    success: { status: 200, check: ({ text }) => expect(text).toBe('') },
    cases: {
      404: {
        how: 'an unknown user id',
        run: async (ctx) => send(ctx, patch('/users', { user_ids: [randomUUID()], group_ids: [(await group(ctx)).id] })),
        check: ({ body }) => expect(body.message).toMatch(/^user_ids: user .* not found$/),
      },
    },
  },
  {
    api: 'compliance',
    operationId: 'getUserById',
    valid: async (ctx) => get(`/users/${(await user(ctx)).id}`),
    success: { status: 200, check: ({ body }) => expect(body).toMatchObject({ email: expect.stringMatching(/^person-/), resource_type: 'user' }) },
    cases: { 404: unknownId('user', (id) => get(`/users/${id}`)) },
  },
  {
    api: 'compliance',
    operationId: 'getSwagger',
    // The bundle is served from memory: no database to fail.
    fault: 'handler',
    valid: async () => ({ ...get('/swagger'), auth: null }),
    success: { status: 200, check: ({ text }) => expect(text).toMatch(/^swagger: '2\.0'/m) },
  },
];
