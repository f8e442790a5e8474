import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { loadApiDocument } from '../src/http/apis.js';
import { PROJECT_ROOT } from '../src/paths.js';
import { readAccessDeclarations, type AccessDeclaration } from '../src/http/compliance/access-declarations.js';
import { createEnvironment, customRuleBody, nextAccount, runScan } from './compliance.js';
import { openTestDatabase } from './databases.js';
import { expect } from './expect.js';
import { basic, startTestServer, type TestServer } from './server.js';

/**
 * Every compliance operation × every builtin policy × the environment its request names: one the caller's group
 * covers, one it does not, and `*`. What each cell must answer follows from the operation's `x-access` in the spec
 * and the policies' order as the spec's "Access control" states it, written out again here; one server and one
 * data set serve every cell (SQLite).
 */

const run = promisify(execFile);
const api = loadApiDocument('compliance');
const { declarations, problems } = readAccessDeclarations(api.openapi);

/** The builtin policies and the level each grants, from least to most: "Access control" in the spec. */
const LEVELS = ['results', 'read', 'edit', 'contribute', 'manage'] as const;
const POLICY_LEVEL: Record<string, number> = {
  'builtin:ORGANIZATION_REPORT_VIEWER': 0,
  'builtin:IAC_SCANNER': 0,
  'builtin:READONLY': 1,
  'builtin:AUDITOR': 1,
  'builtin:EDITOR': 2,
  'builtin:CONTRIBUTOR': 3,
  'builtin:MANAGER': 4,
};
const POLICIES = Object.keys(POLICY_LEVEL);

/** What a request names: the environment the caller's group covers (A), one it does not (B), or all of them. */
type Target = 'A' | 'B' | '*';
interface Column {
  name: string;
  /** What the caller's group covers. */
  callerOver: 'A' | '*';
  /** What the request names; `*` where the operation can name all environments (else the column does not apply). */
  target: Target;
  /** For operations that cannot name `*`: what the request names instead (undefined: the column does not apply). */
  otherwise?: Target;
}
const COLUMNS: Column[] = [
  { name: 'granted', callerOver: 'A', target: 'A' },
  { name: 'not granted', callerOver: 'A', target: 'B' },
  { name: "'*' asked, not granted", callerOver: 'A', target: '*' },
  { name: "granted by '*'", callerOver: '*', target: '*', otherwise: 'B' },
];

interface Call {
  method: string;
  path: string;
  body?: unknown;
}

/** What one cell's request may use: records of its target, made once, or made for the cell. */
interface CellContext {
  target: Target;
  /** The environment id, or '*'. */
  environment: string;
  /** A SUCCESS scan of the environment (not for '*'). */
  scan: string;
  /** A notification watching the environment (or all of them). */
  notification: string;
  /** A builtin:READONLY group over the environment (or all of them). */
  group: string;
  unique(prefix: string): string;
  /** A request as the organization's unrestricted API client, which must succeed; its body. */
  admin(method: string, path: string, body?: unknown): Promise<any>;
  newUser(): Promise<string>;
}

interface MatrixCase {
  call(ctx: CellContext): Call | Promise<Call>;
  /** The request can name all environments (`*`). */
  all?: boolean;
  /** The request changes its environment for good (deletes it, starts its scan): each cell gets new environments. */
  freshEnvironment?: boolean;
}

const get = (path: string): Call => ({ method: 'GET', path: `/v0${path}` });
const send = (method: string, path: string, body?: unknown): Call => ({ method, path: `/v0${path}`, ...(body !== undefined && { body }) });
const watching = (ctx: CellContext) => ({ name: ctx.unique('watch'), events: ['drift'], environments: [ctx.environment], emails: ['secops@example.com'] });
const ruleTest = (ctx: CellContext) => ({ scan_id: ctx.scan, rule_text: 'resource.properties.versioning == "Enabled"', resource_type: 'PROVA.S3.Bucket' });

/** The links.output of one kept rule test per scan, shared by the cells of getCustomRuleTestOutput. */
const keptOutputs = new Map<string, Promise<string>>();

/** One valid request per operation, naming the cell's target. */
const CASES: Record<string, MatrixCase> = {
  listEnvironments: { call: () => get('/environments') },
  createEnvironment: {
    all: true,
    call: (ctx) =>
      send('POST', '/environments', {
        name: ctx.unique('new'),
        provider: 'provider_a',
        provider_options: { provider_a: { role_arn: `arn:prova:iam::${nextAccount()}:role/scanner`, regions: ['us-east-1'] } },
      }),
  },
  getEnvironment: { call: (ctx) => get(`/environments/${ctx.environment}`) },
  updateEnvironment: { call: (ctx) => send('PATCH', `/environments/${ctx.environment}`, { name: ctx.unique('renamed') }) },
  deleteEnvironment: { freshEnvironment: true, call: (ctx) => send('DELETE', `/environments/${ctx.environment}`) },
  listScans: { call: (ctx) => get(`/scans?environment_id=${ctx.environment}`) },
  createScan: { freshEnvironment: true, call: (ctx) => send('POST', `/scans?environment_id=${ctx.environment}`) },
  getScan: { call: (ctx) => get(`/scans/${ctx.scan}`) },
  getComplianceByRules: { call: (ctx) => get(`/scans/${ctx.scan}/compliance_by_rules?max_items=1`) },
  getComplianceByResourceTypes: { call: (ctx) => get(`/scans/${ctx.scan}/compliance_by_resource_types?max_items=1`) },
  getResourceTypes: { call: () => get('/metadata/provider_a/resource_types') },
  getPermissions: { call: () => get('/metadata/provider_a/permissions') },
  listEvents: { call: (ctx) => get(`/events?environment_id=${ctx.environment}&max_items=1`) },
  listNotifications: { call: () => get('/notifications') },
  createNotification: { all: true, call: (ctx) => send('POST', '/notifications', watching(ctx)) },
  updateNotification: { all: true, call: (ctx) => send('PUT', `/notifications/${ctx.notification}`, watching(ctx)) },
  deleteNotification: {
    all: true,
    call: async (ctx) => send('DELETE', `/notifications/${(await ctx.admin('POST', '/notifications', watching(ctx))).notification_id}`),
  },
  listNotificationDeliveries: { all: true, call: (ctx) => get(`/notifications/${ctx.notification}/deliveries`) },
  listCustomRules: { call: () => get('/rules') },
  createCustomRule: { call: (ctx) => send('POST', '/rules', customRuleBody(ctx.unique('rule'))) },
  getCustomRule: { call: async (ctx) => get(`/rules/${(await ctx.admin('GET', '/rules?max_items=1')).items[0].id}`) },
  updateCustomRule: {
    call: async (ctx) => send('PATCH', `/rules/${(await ctx.admin('GET', '/rules?max_items=1')).items[0].id}`, { description: ctx.unique('changed') }),
  },
  deleteCustomRule: { call: async (ctx) => send('DELETE', `/rules/${(await ctx.admin('POST', '/rules', customRuleBody(ctx.unique('rule')))).id}`) },
  testCustomRule: { call: (ctx) => send('POST', '/rules/test', ruleTest(ctx)) },
  testCustomRuleInput: { call: (ctx) => get(`/rules/test/input?scan_id=${ctx.scan}&resource_type=PROVA.S3.Bucket`) },
  // One kept answer per scan for every cell: an organization keeps only its 20 newest, fewer than the cells.
  getCustomRuleTestOutput: {
    call: async (ctx) => {
      let output = keptOutputs.get(ctx.scan);
      if (!output) keptOutputs.set(ctx.scan, (output = ctx.admin('POST', '/rules/test?via_download=true', ruleTest(ctx)).then((tested) => tested.links.output as string)));
      return get((await output).replace(/^\/v0/, ''));
    },
  },
  listInvites: { call: () => get('/invites') },
  createInvite: { all: true, call: (ctx) => send('POST', '/invites', { email: `${randomUUID()}@example.com`, group_ids: [ctx.group] }) },
  getInviteById: { call: async (ctx) => get(`/invites/${(await ctx.admin('GET', '/invites?max_items=1')).items[0].id}`) },
  listGroups: { call: () => get('/groups') },
  createGroup: {
    all: true,
    call: (ctx) => send('POST', '/groups', { name: ctx.unique('group'), policy: 'builtin:READONLY', environment_ids: [ctx.environment] }),
  },
  listUsers: { call: () => get('/users') },
  editUsersGroupAssignments: { all: true, call: async (ctx) => send('PATCH', '/users', { user_ids: [await ctx.newUser()], group_ids: [ctx.group] }) },
  getUserById: { call: async (ctx) => get(`/users/${(await ctx.admin('GET', '/users?max_items=1')).items[0].id}`) },
  getSwagger: { call: () => get('/swagger') },
};

/**
 * What a cell must answer: the operation's success status, or a 403 and its type. Needs a level the policy lacks:
 * AuthorizationError. Names an environment the caller's group does not cover, or hands out a group over one:
 * EnvironmentAccessDenied, or AuthorizationError for all environments. (The groups the cases hand out grant
 * builtin:READONLY, which a caller with the level these operations need holds wherever its group covers.)
 */
function expected(declaration: AccessDeclaration, policy: string, callerOver: 'A' | '*', target: Target, success: string): string {
  if (declaration.public) return success;
  if (POLICY_LEVEL[policy]! < LEVELS.indexOf(declaration.level)) return '403 AuthorizationError';
  const handsOut = Object.keys(declaration.handsOut).length > 0;
  if (declaration.listing || (declaration.sources.length === 0 && !handsOut)) return success;
  const named = declaration.sources.some((source) => source.at === 'all') ? '*' : target;
  if (callerOver === '*' || named === 'A') return success;
  return named === '*' ? '403 AuthorizationError' : '403 EnvironmentAccessDenied';
}

const successStatus = (operationId: string) => api.operations.find((op) => op.operationId === operationId)!.statuses.find((s) => s.startsWith('2'))!;

describe('the access matrix of the compliance API', () => {
  let db: Awaited<ReturnType<typeof openTestDatabase>>;
  let server: TestServer;
  let orgAuth: string;
  /** Ids of A's and B's records, and of those over all environments. */
  const records: Record<Target, { environment: string; scan: string; notification: string; group: string }> = {} as never;
  /** An API client per policy, in a group over A or over '*'. */
  const callers = new Map<string, string>();
  let counter = 0;
  const unique = (prefix: string) => `${prefix} ${(counter += 1)}`;

  const admin = async (method: string, path: string, body?: unknown) => {
    const res = await server.request(method, path.startsWith('/v0') ? path : `/v0${path}`, { body, auth: orgAuth });
    expect(res.status, `${method} ${path}: ${res.text}`).toBeLessThan(300);
    return res.body;
  };

  /** A new API client of the organization in a new group granting `policy` over `environments`. */
  async function clientIn(policy: string, environments: string[]): Promise<string> {
    const { client, secret } = await server.services.apiClients.createWithSecret(server.orgId, unique(`caller ${policy}`));
    await admin('POST', '/groups', { name: unique(`${policy} group`), policy, environment_ids: environments, api_client_ids: [client.clientId] });
    return basic(client.clientId, secret);
  }

  beforeAll(async () => {
    db = await openTestDatabase({ name: 'sqlite', url: 'sqlite::memory:' });
    server = await startTestServer(db);
    orgAuth = server.auth;
    for (const [target, name] of [['A', 'granted'], ['B', 'not granted']] as const) {
      const environment = (await createEnvironment(server, { name })).id as string;
      const scan = (await runScan(server, environment)).id as string;
      const notification = (await admin('POST', '/notifications', { name, events: ['drift'], environments: [environment], emails: ['a@example.com'] })).notification_id;
      const group = (await admin('POST', '/groups', { name: `readers of ${name}`, policy: 'builtin:READONLY', environment_ids: [environment] })).id;
      records[target] = { environment, scan, notification, group };
    }
    records['*'] = {
      environment: '*',
      scan: 'no scan covers every environment',
      notification: (await admin('POST', '/notifications', { name: 'all', events: ['drift'], environments: ['*'], emails: ['a@example.com'] })).notification_id,
      group: (await admin('POST', '/groups', { name: 'readers of all', policy: 'builtin:READONLY', environment_ids: ['*'] })).id,
    };
    await admin('POST', '/rules', customRuleBody('shared rule'));
    await admin('POST', '/invites', { email: 'invited@example.com', group_ids: [records.A.group] });
    await server.services.consoleAuth.createUser(server.orgId, 'member@example.com', 'a long enough password');
    for (const policy of POLICIES) {
      callers.set(`${policy} A`, await clientIn(policy, [records.A.environment]));
      callers.set(`${policy} *`, await clientIn(policy, ['*']));
    }
  }, 60_000);

  afterAll(async () => {
    await server?.close();
    await db?.dispose();
  });

  it('has a valid x-access declaration and a matrix case for every operation of the spec', () => {
    expect(problems).toEqual([]);
    expect(Object.keys(CASES).sort()).toEqual(api.operations.map((op) => op.operationId).sort());
    // A new builtin policy needs its place in the order above.
    const policyEnum = (api.openapi as any).components.schemas.CreateGroupInput.properties.policy.enum;
    expect([...policyEnum].sort()).toEqual([...POLICIES].sort());
  });

  for (const { operationId } of api.operations) {
    it(`${operationId} answers every builtin policy over a granted environment, one not granted and '*' as its x-access says`, async () => {
      const declaration = declarations.get(operationId);
      const matrixCase = CASES[operationId];
      expect(declaration, `${operationId} has no x-access declaration`).toBeDefined();
      expect(matrixCase, `${operationId} has no case in the access matrix`).toBeDefined();
      const want: Record<string, string> = {};
      const got: Record<string, string> = {};
      const cells = POLICIES.flatMap((policy) => COLUMNS.map((column) => ({ policy, column })));
      await Promise.all(
        cells.map(async ({ policy, column }) => {
          const target = column.target === '*' && !matrixCase!.all ? column.otherwise : column.target;
          if (target === undefined) return;
          const key = `${policy} | ${column.name}`;
          let auth = callers.get(`${policy} ${column.callerOver}`)!;
          let record = records[target];
          if (matrixCase!.freshEnvironment) {
            // A new environment of its own: covered by the caller's group in the 'granted' column only.
            const environment = (await createEnvironment(server, { name: unique('fresh') })).id as string;
            record = { ...record, environment };
            if (column.callerOver === 'A' && target === 'A') auth = await clientIn(policy, [environment]);
          }
          const call = await matrixCase!.call({
            target,
            ...record,
            unique,
            admin,
            newUser: async () => (await server.services.consoleAuth.createUser(server.orgId, `${randomUUID()}@example.com`, 'a long enough password')).id,
          });
          const res = await server.request(call.method, call.path, { body: call.body, auth });
          want[key] = expected(declaration!, policy, column.callerOver, target, successStatus(operationId));
          got[key] = res.status === 403 ? `403 ${res.body?.type}` : String(res.status);
          if (res.status === 403) expect(res.body).toEqual({ type: res.body.type, code: 403, message: expect.any(String) });
          else if (got[key] !== want[key]) got[key] += `: ${res.text.slice(0, 200)}`;
        }),
      );
      expect(got).toEqual(want);
    });
  }

  describe('the reported escalations, by API clients in groups over A only', () => {
    const denied = (res: { status: number; body: any }, type: string) => {
      expect(res.status, JSON.stringify(res.body)).toBe(403);
      expect(res.body).toEqual({ type, code: 403, message: expect.any(String) });
    };
    const as = (auth: string) => (method: string, path: string, body?: unknown) => server.request(method, `/v0${path}`, { body, auth });

    it("an EDITOR over A reads neither the resources nor the rule results of B's scans", async () => {
      const editor = as(await clientIn('builtin:EDITOR', [records.A.environment]));
      const input = (scan: string) => `/rules/test/input?scan_id=${scan}&resource_type=PROVA.S3.Bucket`;
      expect((await editor('GET', input(records.A.scan))).status).toBe(200);
      denied(await editor('GET', input(records.B.scan)), 'EnvironmentAccessDenied');
      denied(await editor('GET', `/scans/${records.B.scan}`), 'EnvironmentAccessDenied');
      const test = (scan: string) => ({ scan_id: scan, rule_text: 'true', resource_type: 'PROVA.S3.Bucket' });
      expect((await editor('POST', '/rules/test', test(records.A.scan))).status).toBe(200);
      denied(await editor('POST', '/rules/test', test(records.B.scan)), 'EnvironmentAccessDenied');
    });

    it("an EDITOR over A cannot have B's events, or every environment's, delivered to it", async () => {
      const editor = as(await clientIn('builtin:EDITOR', [records.A.environment]));
      const before = (await admin('GET', '/notifications?max_items=1000')).items;
      const watch = (environments: string[]) => ({ name: unique('mine'), events: ['drift'], environments, webhook_url: 'https://hooks.example.com/mine', webhook_secret: 'a secret of sixteen or more' });
      denied(await editor('POST', '/notifications', watch([records.B.environment])), 'EnvironmentAccessDenied');
      denied(await editor('POST', '/notifications', watch([records.A.environment, records.B.environment])), 'EnvironmentAccessDenied');
      denied(await editor('POST', '/notifications', watch(['*'])), 'AuthorizationError');
      // Nor by redirecting a notification that watches B, or turning one of A's to B.
      denied(await editor('PUT', `/notifications/${records.B.notification}`, watch([records.B.environment])), 'EnvironmentAccessDenied');
      denied(await editor('PUT', `/notifications/${records.A.notification}`, watch([records.B.environment])), 'EnvironmentAccessDenied');
      denied(await editor('PUT', `/notifications/${records['*'].notification}`, watch([records.A.environment])), 'AuthorizationError');
      denied(await editor('DELETE', `/notifications/${records.B.notification}`), 'EnvironmentAccessDenied');
      expect((await admin('GET', '/notifications?max_items=1000')).items).toEqual(before);
      expect((await editor('POST', '/notifications', watch([records.A.environment]))).status).toBe(201);
    });

    it('a MANAGER over A gives neither itself nor anyone groups beyond A: groups, invites and users\' groups', async () => {
      const auth = await clientIn('builtin:MANAGER', [records.A.environment]);
      const manager = as(auth);
      const self = Buffer.from(auth.slice('Basic '.length), 'base64').toString().split(':')[0]!;
      const groupsBefore = (await admin('GET', '/groups?max_items=1000')).items;
      const group = (policy: string, environment_ids: string[]) => ({ name: unique('takeover'), policy, environment_ids, api_client_ids: [self] });
      denied(await manager('POST', '/groups', group('builtin:MANAGER', ['*'])), 'AuthorizationError');
      denied(await manager('POST', '/groups', group('builtin:READONLY', ['*'])), 'AuthorizationError');
      denied(await manager('POST', '/groups', group('builtin:MANAGER', [records.A.environment, records.B.environment])), 'EnvironmentAccessDenied');
      expect((await admin('GET', '/groups?max_items=1000')).items).toEqual(groupsBefore);
      denied(await manager('GET', `/environments/${records.B.environment}`), 'EnvironmentAccessDenied');

      const everywhere = (await admin('POST', '/groups', { name: unique('managers of all'), policy: 'builtin:MANAGER', environment_ids: ['*'] })).id;
      const invite = (groupIds: string[]) => ({ email: `${randomUUID()}@example.com`, group_ids: groupIds });
      denied(await manager('POST', '/invites', invite([everywhere])), 'AuthorizationError');
      denied(await manager('POST', '/invites', invite([records.B.group])), 'EnvironmentAccessDenied');
      denied(await manager('POST', '/invites', invite([records.A.group, records.B.group])), 'EnvironmentAccessDenied');
      expect((await manager('POST', '/invites', invite([records.A.group]))).status).toBe(201);

      const user = (await server.services.consoleAuth.createUser(server.orgId, `${randomUUID()}@example.com`, 'a long enough password')).id;
      const groupsOf = async () => Object.keys((await admin('GET', `/users/${user}`)).groups).sort();
      const assign = (groupIds: string[]) => manager('PATCH', '/users', { user_ids: [user], group_ids: groupIds });
      denied(await assign([everywhere]), 'AuthorizationError');
      denied(await assign([records.A.group, records.B.group]), 'EnvironmentAccessDenied');
      expect(await groupsOf()).toEqual([]);
      expect((await assign([records.A.group])).status).toBe(200);
      expect(await groupsOf()).toEqual([records.A.group]);
      // Taking a user out of a group over B changes who may reach B: also beyond A.
      await admin('PATCH', '/users', { user_ids: [user], group_ids: [records.B.group] });
      denied(await assign([records.A.group]), 'EnvironmentAccessDenied');
      expect(await groupsOf()).toEqual([records.B.group]);
    });

    it('a MANAGER over no environment that reads every environment hands out reading, and no more', async () => {
      const { client, secret } = await server.services.apiClients.createWithSecret(server.orgId, unique('manager of nothing'));
      for (const [policy, environment_ids] of [['builtin:MANAGER', []], ['builtin:READONLY', ['*']]] as const) {
        await admin('POST', '/groups', { name: unique(policy), policy, environment_ids, api_client_ids: [client.clientId] });
      }
      const manager = as(basic(client.clientId, secret));
      const group = (policy: string, environment_ids: string[]) => manager('POST', '/groups', { name: unique('handed out'), policy, environment_ids });
      expect((await group('builtin:READONLY', ['*'])).status).toBe(201);
      expect((await group('builtin:AUDITOR', [records.B.environment])).status).toBe(201);
      expect((await group('builtin:MANAGER', [])).status).toBe(201);
      denied(await group('builtin:EDITOR', ['*']), 'AuthorizationError');
      denied(await group('builtin:EDITOR', [records.A.environment]), 'EnvironmentAccessDenied');
      const editorsOfA = (await admin('POST', '/groups', { name: unique('editors of A'), policy: 'builtin:EDITOR', environment_ids: [records.A.environment] })).id;
      denied(await manager('POST', '/invites', { email: `${randomUUID()}@example.com`, group_ids: [editorsOfA] }), 'EnvironmentAccessDenied');
      expect((await manager('POST', '/invites', { email: `${randomUUID()}@example.com`, group_ids: [records['*'].group] })).status).toBe(201);
    });

    it('refuses the three reported cases to a Python standard-library client too', async () => {
      const credentials = async (policy: string) => {
        const { client, secret } = await server.services.apiClients.createWithSecret(server.orgId, unique(`outside ${policy}`));
        await admin('POST', '/groups', { name: unique(`outside ${policy}`), policy, environment_ids: [records.A.environment], api_client_ids: [client.clientId] });
        return `${client.clientId}:${secret}`;
      };
      const everywhere = (await admin('POST', '/groups', { name: unique('managers of all'), policy: 'builtin:MANAGER', environment_ids: ['*'] })).id;
      const user = (await server.services.consoleAuth.createUser(server.orgId, `${randomUUID()}@example.com`, 'a long enough password')).id;
      const args = [
        '--base-url', server.baseUrl,
        '--editor', await credentials('builtin:EDITOR'),
        '--manager', await credentials('builtin:MANAGER'),
        '--environment-a', records.A.environment,
        '--environment-b', records.B.environment,
        '--scan-a', records.A.scan,
        '--scan-b', records.B.scan,
        '--manager-group-everywhere', everywhere,
        '--user', user,
      ];
      // Asynchronously: the server answers the script from this process.
      const { stdout } = await run('python3', [join(PROJECT_ROOT, 'contract-tests/outside/group_escalations.py'), ...args], { timeout: 60_000 });
      const ead = { status: 403, type: 'EnvironmentAccessDenied' };
      const refused = { status: 403, type: 'AuthorizationError' };
      expect(JSON.parse(stdout)).toEqual({
        "rule test input of A's scan": { status: 200, type: null },
        "rule test input of B's scan": ead,
        "B's scan": ead,
        "rule test on B's scan": ead,
        'notification watching A': { status: 201, type: null },
        'notification watching B': ead,
        'notification watching *': refused,
        'group MANAGER over * holding itself': refused,
        'B after that': ead,
        'invite into MANAGER over *': refused,
        'user into MANAGER over *': refused,
        // Only A: neither B nor '*' (nor the environment ids of the notifications and groups over them).
        'environments named by /notifications': ['A'],
        'environments named by /groups': ['A'],
      });
    });
  });

  it('lists, for every policy that may read them, only the notifications and groups over environments its group covers, page by page', async () => {
    const LISTS = [
      { path: '/notifications', id: (item: any) => item.notification_id as string, record: 'notification' as const },
      { path: '/groups', id: (item: any) => item.id as string, record: 'group' as const },
    ];
    for (const policy of POLICIES.filter((p) => POLICY_LEVEL[p]! >= LEVELS.indexOf('read'))) {
      for (const over of ['A', '*'] as const) {
        const auth = callers.get(`${policy} ${over}`)!;
        for (const list of LISTS) {
          const res = await server.request('GET', `/v0${list.path}?max_items=100`, { auth });
          expect(res.status, res.text).toBe(200);
          const listed: string[] = res.body.items.map(list.id);
          const [a, b, all] = [records.A[list.record], records.B[list.record], records['*'][list.record]];
          if (over === '*') expect(listed, `${policy} over * lists ${list.path}`).toEqual(expect.arrayContaining([a, b, all]));
          else {
            expect(listed, `${policy} over A lists ${list.path}`).toContain(a);
            expect(listed, `${policy} over A lists ${list.path}`).not.toContain(b);
            expect(listed, `${policy} over A lists ${list.path}`).not.toContain(all);
            // Offsets count only what the caller sees: one at a time, the same items in the same order.
            const paged: string[] = [];
            for (let offset = 0; ; offset += 1) {
              const one = await server.request('GET', `/v0${list.path}?max_items=1&offset=${offset}`, { auth });
              paged.push(...one.body.items.map(list.id));
              if (one.body.items.length === 0 || paged.length > listed.length) break;
            }
            expect(paged, `${policy} over A pages ${list.path}`).toEqual(listed);
          }
        }
      }
    }
  });

  it('lists, for every policy, only the environments its group covers', async () => {
    for (const policy of POLICIES) {
      for (const over of ['A', '*'] as const) {
        const res = await server.request('GET', '/v0/environments?max_items=1000', { auth: callers.get(`${policy} ${over}`)! });
        const listed = res.body.items.map((env: { id: string }) => env.id);
        expect(listed, `${policy} over ${over}`).toContain(records.A.environment);
        if (over === 'A') expect(listed, `${policy} over A`).toEqual([records.A.environment]);
        else expect(listed, `${policy} over *`).toContain(records.B.environment);
      }
    }
  });
});
