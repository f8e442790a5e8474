import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { parse } from 'yaml';
import { PROJECT_ROOT } from '../../server/src/paths.js';
import { createEnvironment, customRuleBody, runScan } from '../../server/test/compliance.js';
import { compositionTar, conductorClient } from '../../server/test/conductor.js';
import { filesTar, HOSTILE_ARCHIVES } from '../../server/test/fixtures/archives.js';
import { basic, type TestServer } from '../../server/test/server.js';
import type { ArbitraryOptions } from './operations.js';

/**
 * Records that exist, made through the API before each operation is exercised, so generated path ids cover both
 * the 404 and the success branches; the credentials each API wants; and a read-back of each API's state.
 */
export interface ApiFixture {
  /** Headers of a properly authenticated call. */
  headers: Record<string, string>;
  /** Broken credentials, by name, with the statuses they must get (operations with security only). */
  badCredentials: Record<string, { headers: Record<string, string>; expected: number[]; csrfOnly?: boolean }>;
  options: ArbitraryOptions;
  /** Everything the API lets its caller read, to show a refused request changed nothing. */
  snapshot(): Promise<string>;
}

let counter = 0;
const unique = () => `${process.pid}-${(counter += 1)}`;

const example = (dir: string, file: string) => readFileSync(join(PROJECT_ROOT, 'examples', 'conductor', dir, file), 'utf8');

/**
 * The example composition's resources: they pass the example validation library, which the property runs may
 * upload at any time (libraries apply to every later process), so every process the fixtures create uses them.
 */
const exampleResources = (): unknown[] => (parse(example('composition', 'composition.yaml')) as { resources: unknown[] }).resources;

let archives: Promise<{ valid: Buffer[]; hostile: Record<string, Buffer> }> | undefined;
/** Valid example archives (composition, validation library, rbac policy) and every hostile archive, built once. */
export function exampleArchives(): Promise<{ valid: Buffer[]; hostile: Record<string, Buffer> }> {
  archives ??= (async () => {
    const valid = [
      await compositionTar(exampleResources()),
      await filesTar({ 'composition.yaml': example('composition', 'composition.yaml') }),
      await filesTar({ 'rules.yaml': example('validation', 'rules.yaml') }),
      await filesTar({ 'policy.yaml': example('policy', 'policy.yaml') }),
    ];
    const hostile: Record<string, Buffer> = {};
    for (const [name, make] of Object.entries(HOSTILE_ARCHIVES)) hostile[name] = await make();
    return { valid, hostile };
  })();
  return archives;
}

/** Mostly the archive an operation takes (by its index in `valid`), sometimes another valid one, sometimes a hostile one. */
async function binaryBodies(index: number): Promise<fc.Arbitrary<Buffer>> {
  const { valid, hostile } = await exampleArchives();
  return fc.oneof(
    { arbitrary: fc.constant(valid[index]!), weight: 4 },
    { arbitrary: fc.constantFrom(...valid), weight: 1 },
    { arbitrary: fc.constantFrom(...Object.values(hostile)), weight: 2 },
  );
}

/** Pools of existing ids, refusing a fixture whose id was not where expected (an empty path would test nothing). */
function definedPools(pools: Record<string, unknown[]>): Record<string, string[]> {
  for (const [name, values] of Object.entries(pools)) {
    if (values.some((v) => typeof v !== 'string' || v === '')) throw new Error(`fixture pool ${name} has a missing id: ${JSON.stringify(values)}`);
  }
  return pools as Record<string, string[]>;
}

const read = async (server: TestServer, path: string, headers: Record<string, string>) => {
  const res = await server.request('GET', path, { auth: null, headers });
  return `${path} ${res.status} ${res.text}`;
};

export async function complianceFixture(server: TestServer): Promise<ApiFixture> {
  const environment = await createEnvironment(server);
  const scan = await runScan(server, environment.id);
  const ok = async (method: string, path: string, body?: unknown) => {
    const res = await server.request(method, `/v0${path}`, { body });
    if (res.status >= 300) throw new Error(`fixture ${method} ${path}: ${res.status} ${res.text}`);
    return res.body;
  };
  const group = await ok('POST', '/groups', { name: `Auditors ${unique()}`, policy: 'builtin:AUDITOR', environment_ids: ['*'] });
  const notification = await ok('POST', '/notifications', { name: 'Drift', events: ['drift'], environments: [environment.id], emails: ['secops@example.com'] });
  const rule = await ok('POST', '/rules', customRuleBody(`Bucket versioning ${unique()}`));
  const invite = await ok('POST', '/invites', { email: `invitee-${unique()}@example.com`, group_ids: [group.id], expires: true });
  const user = await server.services.consoleAuth.createUser(server.orgId, `person-${unique()}@example.com`, 'a long enough password');
  const [clientId] = Buffer.from(server.auth.slice('Basic '.length), 'base64').toString().split(':');
  const headers = { authorization: server.auth };
  return {
    headers,
    badCredentials: {
      'no credentials': { headers: {}, expected: [401] },
      'malformed Basic credentials': { headers: { authorization: 'Basic %%%not-base64%%%' }, expected: [401] },
      'a Bearer token': { headers: { authorization: 'Bearer abc.def.ghi' }, expected: [401] },
      'a wrong secret': { headers: { authorization: basic(clientId!, 'wrong-secret') }, expected: [401] },
      'an unknown client': { headers: { authorization: basic('cl_unknown_client', 'whatever') }, expected: [401] },
    },
    options: {
      pools: definedPools({
        environment_id: [environment.id],
        scan_id: [scan.id],
        notification_id: [notification.notification_id],
        rule_id: [rule.id],
        invite_id: [invite.id],
        user_id: [user.id],
        resource_type: ['PROVA.S3.Bucket'],
      }),
      bodies: {
        createEnvironment: fc.integer({ min: 0, max: 9999 }).map((n) => ({
          name: `env ${n}`,
          provider: 'provider_a',
          provider_options: { provider_a: { role_arn: `arn:prova:iam::${String(300_000_000_000 + n)}:role/scanner`, regions: ['*'] } },
        })),
        createCustomRule: fc.integer({ min: 0, max: 1_000_000 }).map((n) => ({
          name: `rule ${n}`,
          providers: ['PROVIDER_A'],
          resource_type: 'PROVA.S3.Bucket',
          rule_text: 'resource.properties.versioning == "Enabled"',
          severity: 'Low',
          source: 'CUSTOM',
          families: ['CIS'],
        })),
        testCustomRule: fc.constantFrom(
          { scan_id: scan.id, rule_text: 'resource.properties.versioning == "Enabled"', resource_type: 'PROVA.S3.Bucket' },
          { scan_id: scan.id, rule_text: 'resource.properties.(', resource_type: 'PROVA.S3.Bucket' },
        ),
        createNotification: fc.constant({ name: 'Ops', events: ['drift', 'remediation'], environments: [environment.id], emails: ['ops@example.com'] }),
        createGroup: fc.constant({ name: 'Editors', policy: 'builtin:EDITOR', environment_ids: [environment.id] }),
        createInvite: fc.constant({ email: 'new.person@example.com', group_ids: [group.id], expires: false }),
        editUsersGroupAssignments: fc.constant({ user_ids: [user.id], group_ids: [group.id] }),
      },
    },
    snapshot: async () => {
      const paths = [
        '/environments', '/notifications', '/rules', '/invites', '/groups', '/users',
        `/environments/${environment.id}`, `/scans/${scan.id}`, `/scans?environment_id=${environment.id}`, `/notifications/${notification.notification_id}`,
        `/rules/${rule.id}`, `/invites/${invite.id}`, `/users/${user.id}`,
        `/events?environment_id=${environment.id}`, `/notifications/${notification.notification_id}/deliveries`,
        `/scans/${scan.id}/compliance_by_rules?max_items=5`,
      ];
      return (await Promise.all(paths.map((p) => read(server, `/v0${p}`, headers)))).join('\n');
    },
  };
}

export async function conductorFixture(server: TestServer): Promise<ApiFixture> {
  const conductor = conductorClient(() => server);
  const account = await conductor.addAccount();
  const alias = `web-${unique()}`;
  const process_ = await conductor.createProcess(account.name, exampleResources(), { alias });
  const validation = `lib-${unique()}`;
  const { valid } = await exampleArchives();
  const added = await conductor.call('POST', `/validations?name=${validation}`, valid[2]);
  if (added.status !== 201) throw new Error(`fixture validation: ${added.status} ${added.text}`);
  const dryRun = await conductor.call('POST', `/dry-run?command=run&account=${account.name}`, valid[0]);
  if (dryRun.status !== 202) throw new Error(`fixture dry-run: ${dryRun.status} ${dryRun.text}`);
  const headers = { authorization: server.rootAuth };
  const ops = await conductor.call('GET', `/processes/${process_.fid}/ops`);
  const jobIds = [...new Set<string>((ops.body?.items ?? []).map((o: any) => o.job_id).filter(Boolean))];
  return {
    headers,
    badCredentials: {
      'no credentials': { headers: {}, expected: [401] },
      'malformed Basic credentials': { headers: { authorization: 'Basic %%%not-base64%%%' }, expected: [401] },
      'a Bearer token': { headers: { authorization: 'Bearer abc.def.ghi' }, expected: [401] },
      "a wrong root secret": { headers: { authorization: basic('root', 'not-the-root-secret') }, expected: [401] },
      'an unknown user': { headers: { authorization: basic('mallory', 'whatever-secret') }, expected: [401] },
    },
    options: {
      // A dry-run that is not finished would make a random timeout wait up to a minute: only ask for the answer now.
      pools: definedPools({
        account: [account.name],
        process: [process_.fid, alias],
        id: [dryRun.body.id],
        name: [validation, 'baseline'],
        user: ['root', 'alice'],
        job_id: jobIds,
        command: ['run'],
      }),
      // RUN needs an account: send the fixture's most of the time.
      overrides: { 'getDryRun.timeout': fc.constant(0), 'createDryRun.account': fc.constant(account.name) },
      binaryBodies: await binaryBodies(0),
      bodies: {
        addAccount: fc.constant({ name: `acct-prop-${unique()}`, provider: 'provider_a', account_id: '123456789012' }),
        addValidation: await binaryBodies(2),
        attachRbacPolicy: await binaryBodies(3),
      },
    },
    snapshot: async () => {
      const paths = [
        '/accounts', '/processes', '/validations', '/rbac/status', '/rbac/users', `/processes/${process_.fid}`, `/dry-run/${dryRun.body.id}`,
        `/validations/${validation}`, `/processes/${process_.fid}/history`, `/processes/${process_.fid}/ops`,
      ];
      return (await Promise.all(paths.map((p) => read(server, `/api/v0${p}`, headers)))).join('\n');
    },
  };
}

export async function consoleFixture(server: TestServer): Promise<ApiFixture> {
  const email = `console-${unique()}@example.com`;
  const password = 'correct horse battery staple';
  await server.services.consoleAuth.createUser(server.orgId, email, password);
  const signIn = await server.request('POST', '/console/api/session', { body: { email, password }, auth: null });
  if (signIn.status !== 200) throw new Error(`fixture sign-in: ${signIn.status} ${signIn.text}`);
  const cookie = signIn.headers.get('set-cookie')!.split(';')[0]!;
  const csrf = signIn.body.csrf_token as string;
  const headers = { cookie, 'x-csrf-token': csrf };
  const created = await server.request('POST', '/console/api/api-clients', { body: { name: `fixture ${unique()}` }, auth: null, headers });
  if (created.status !== 201) throw new Error(`fixture api client: ${created.status} ${created.text}`);
  // A pending invitation and its link's token, as its email would carry it.
  const group = await server.request('POST', '/v0/groups', { body: { name: `fixture invited ${unique()}`, policy: 'builtin:AUDITOR', environment_ids: ['*'] } });
  if (group.status !== 201) throw new Error(`fixture group: ${group.status} ${group.text}`);
  const invite = await server.request('POST', '/v0/invites', { body: { email: `invitee-${unique()}@example.com`, group_ids: [group.body.id] } });
  if (invite.status !== 201) throw new Error(`fixture invite: ${invite.status} ${invite.text}`);
  const token = await server.services.invitations.mintToken(server.orgId, invite.body.id);
  if (token === undefined) throw new Error('fixture invite: no token');
  const [testsClient] = Buffer.from(server.auth.slice('Basic '.length), 'base64').toString().split(':');
  return {
    headers,
    badCredentials: {
      'no session': { headers: {}, expected: [401] },
      'an unknown session': { headers: { cookie: 'console_session=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', 'x-csrf-token': csrf }, expected: [401] },
      'a malformed cookie': { headers: { cookie: 'console_session=%%%; other=1', 'x-csrf-token': csrf }, expected: [401] },
      'API client credentials instead of a session': { headers: { authorization: server.auth }, expected: [401] },
      'no CSRF token': { headers: { cookie }, expected: [403], csrfOnly: true },
      'a wrong CSRF token': { headers: { cookie, 'x-csrf-token': 'x'.repeat(43) }, expected: [403], csrfOnly: true },
    },
    options: {
      pools: definedPools({ client_id: [created.body.client_id, testsClient], token: [token] }),
      bodies: { signIn: fc.constantFrom({ email, password }, { email, password: 'wrong password!' }) },
    },
    snapshot: async () => {
      // The invitation reads 200 while it is pending: a refused request must not have accepted it.
      const paths = ['/api-clients?max_items=100', '/session', `/invitations/${token}`];
      return (await Promise.all(paths.map((p) => read(server, `/console/api${p}`, { cookie })))).join('\n');
    },
  };
}

export const FIXTURES = { compliance: complianceFixture, conductor: conductorFixture, console: consoleFixture } as const;
