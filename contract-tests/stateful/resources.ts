import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { PROJECT_ROOT } from '../../server/src/paths.js';
import type { ApiName } from '../../server/src/http/apis.js';
import { nextAccount as nextComplianceAccount } from '../../server/test/compliance.js';
import { compositionTar, nextAccount as nextConductorAccount } from '../../server/test/conductor.js';
import { filesTar } from '../../server/test/fixtures/archives.js';
import type { ChainContext, ResourceDeclaration } from './chain.js';
import { exampleBody, operationById } from './spec.js';

/**
 * The resources of the three APIs and how their create → get → update → list → delete chains run. Bodies are the
 * spec's examples where those work as they are; a factory replaces one where the example refers to records that
 * do not exist or holds a name that must be unique (every chain makes two records: a neighbour, then its own).
 */

const example = (dir: string, file: string) => readFileSync(join(PROJECT_ROOT, 'examples', 'conductor', dir, file), 'utf8');
/** The example composition's resources (its imports are for import_resources runs): they pass the example library. */
export const exampleResources = (): unknown[] => (parse(example('composition', 'composition.yaml')) as { resources: unknown[] }).resources;
export const examplePolicy = (): string => example('policy', 'policy.yaml');
export const exampleRules = (): string => example('validation', 'rules.yaml');

const ok = async (ctx: ChainContext, api: ApiName, operationId: string, input: Parameters<ChainContext['client']['call']>[2]) => {
  const answer = await ctx.client.call(api, operationId, input);
  if (answer.status >= 300) throw new Error(`${operationId}: ${answer.status} ${answer.text.slice(0, 300)}`);
  return answer;
};

/** A provider_a environment of an account no other test scans. */
export const environmentBody = (name: string) => ({
  name,
  provider: 'provider_a',
  provider_options: { provider_a: { role_arn: `arn:prova:iam::${nextComplianceAccount()}:role/scanner`, regions: ['*'] } },
});

const createEnvironment = async (ctx: ChainContext) => (await ok(ctx, 'compliance', 'createEnvironment', { body: environmentBody(`env ${ctx.unique()}`) })).body;
const createGroup = async (ctx: ChainContext) =>
  (await ok(ctx, 'compliance', 'createGroup', { body: { ...exampleBody(operationById('compliance', 'createGroup')), name: `Auditors ${ctx.unique()}` } })).body;
const addAccount = async (ctx: ChainContext) => {
  const { name, accountId } = nextConductorAccount();
  return (await ok(ctx, 'conductor', 'addAccount', { body: { name, provider: 'provider_a', account_id: accountId } })).body as { name: string };
};

/** The example policy with one more user, so that replacing it shows in the users list. */
const widerPolicy = () => {
  const policy = parse(examplePolicy()) as { users: string[] };
  return stringify({ ...policy, users: [...policy.users, 'carol'] });
};

export const RESOURCES: ResourceDeclaration[] = [
  // ── compliance ──
  {
    api: 'compliance',
    path: '/environments',
    create: () => {
      const body = exampleBody(operationById('compliance', 'createEnvironment'));
      // The example sends scan_interval and scan_schedule_enabled as strings, which the API answers as their values.
      return { body, shows: { ...body, scan_interval: Number(body.scan_interval), scan_schedule_enabled: body.scan_schedule_enabled === 'true' } };
    },
    // The example's baseline_id names a scan that does not exist here (400): the rest of it, without that.
    update: () => {
      const { baseline_id: _unknownScan, ...body } = exampleBody(operationById('compliance', 'updateEnvironment'));
      return { body: { ...body, name: 'production-eu' }, shows: { name: 'production-eu', remediation: true, scan_interval: 1800 } };
    },
  },
  {
    api: 'compliance',
    path: '/scans',
    skip: {
      update: 'scans are immutable records of a run: no PATCH or PUT on /scans/{scan_id}',
      delete: 'scans go only with their environment (DELETE /environments/{environment_id}); there is no DELETE /scans/{scan_id}',
    },
    prepare: async (ctx) => ({ environment: await createEnvironment(ctx) }),
    create: (refs) => ({ query: { environment_id: refs.environment.id }, shows: { environment_id: refs.environment.id, status: 'IN_PROGRESS' } }),
    listQuery: (refs) => ({ environment_id: refs.environment.id }),
    afterJobs: { status: 'SUCCESS', remediation_error: false },
  },
  {
    api: 'compliance',
    path: '/notifications',
    skip: { get: 'there is no GET /notifications/{notification_id}: a notification is read from the list' },
    prepare: async (ctx) => ({ environment: await createEnvironment(ctx) }),
    // The example names an environment that does not exist here: the same body, over a real one. Answers name
    // each environment as { id: name }.
    create: (refs) => {
      const body = exampleBody(operationById('compliance', 'createNotification'));
      const { webhook_secret: _secretNeverShown, ...shown } = body;
      return { body: { ...body, environments: [refs.environment.id] }, shows: { ...shown, environments: [{ [refs.environment.id]: refs.environment.name }] } };
    },
    update: (refs) => {
      const { webhook_secret: _secretKept, ...example } = exampleBody(operationById('compliance', 'updateNotification'));
      const body = { ...example, environments: [refs.environment.id], name: 'Production compliance', events: ['compliance'] };
      return { body, shows: { name: 'Production compliance', events: ['compliance'], environments: [{ [refs.environment.id]: refs.environment.name }] } };
    },
  },
  {
    api: 'compliance',
    path: '/rules',
    createOnly: { errors: 'the warnings about the rule text, answered by create and update only' },
    // Rule names are unique in an organization: each record gets its own.
    create: (_refs, ctx) => {
      const body = exampleBody(operationById('compliance', 'createCustomRule'));
      return { body: { ...body, name: `${body.name} ${ctx.unique()}` } };
    },
  },
  {
    api: 'compliance',
    path: '/invites',
    skip: {
      update: 'an invite cannot be changed: no PATCH or PUT on /invites/{invite_id}',
      delete: 'invites expire or are accepted; the API offers no DELETE /invites/{invite_id}',
    },
    prepare: async (ctx) => ({ group: await createGroup(ctx) }),
    create: (refs, ctx) => ({ body: { ...exampleBody(operationById('compliance', 'createInvite')), email: `invitee-${ctx.unique()}@example.com`, group_ids: [refs.group.id] } }),
  },
  {
    api: 'compliance',
    path: '/groups',
    skip: {
      get: 'the spec has no /groups/{group_id}: groups are read from the list',
      update: 'the spec has no /groups/{group_id}: a group cannot be changed',
      delete: 'the spec has no /groups/{group_id}: a group cannot be deleted',
    },
    create: (_refs, ctx) => ({ body: { ...exampleBody(operationById('compliance', 'createGroup')), name: `Auditors ${ctx.unique()}` } }),
  },
  {
    api: 'compliance',
    path: '/users',
    skip: {
      create: 'users join through invites accepted in the console; the compliance API only reads them and assigns groups',
      delete: 'users leave through the console; the compliance API offers no DELETE /users/{user_id}',
    },
    // Group assignments are edited in bulk on the collection: PATCH /users.
    operations: { update: 'editUsersGroupAssignments' },
    prepare: async (ctx) => ({ group: await createGroup(ctx) }),
    existing: (_refs, ctx) => ctx.createUser(`person-${ctx.unique()}@example.com`),
    update: (refs, id) => ({ body: { user_ids: [id], group_ids: [refs.group.id] }, shows: { groups: { [refs.group.id]: refs.group.name } } }),
  },
  // ── conductor ──
  {
    api: 'conductor',
    path: '/accounts',
    idField: 'name',
    skip: {
      get: 'the spec has no GET /accounts/{account}: accounts are read from the list',
      update: 'an account cannot be changed: no PATCH or PUT on /accounts/{account}',
    },
    // Names and account IDs are unique: each record gets its own.
    create: () => {
      const { name, accountId } = nextConductorAccount();
      return { body: { ...exampleBody(operationById('conductor', 'addAccount')), name, account_id: accountId } };
    },
  },
  {
    api: 'conductor',
    path: '/processes',
    idField: 'fid',
    // Each process gets an account of its own, so the two records never manage the same cloud resources.
    create: async (_refs, ctx) => ({
      query: { account: (await addAccount(ctx)).name, alias: `web-${ctx.unique()}` },
      body: await compositionTar(exampleResources()),
    }),
    // Once its creation job ran, the process's resources exist.
    afterJobs: { state: 'RUNNING', resources: exampleResources().map(() => ({ status: 'present' })) },
    update: (_refs, _id, ctx) => {
      const alias = `web-renamed-${ctx.unique()}`;
      return { body: { ...exampleBody(operationById('conductor', 'updateProcess')), alias, enforcement: false }, shows: { alias, enforcement: false, lock: false } };
    },
  },
  {
    api: 'conductor',
    path: '/validations',
    skip: { update: 'a library is replaced by deleting it and adding it again: no PUT on /validations/{name}' },
    create: async (_refs, ctx) => ({ query: { name: `library-${ctx.unique()}` }, body: await filesTar({ 'rules.yaml': exampleRules() }) }),
    afterJobs: { rule_count: (parse(exampleRules()) as { rules: unknown[] }).rules.length },
  },
  {
    api: 'conductor',
    path: '/dry-run',
    skip: {
      update: 'a dry-run is a finished computation: no PATCH or PUT on /dry-run/{id}',
      list: 'the spec has no GET /dry-run: a dry-run is read by the id its Location names',
      delete: 'dry-runs are kept as they are: no DELETE /dry-run/{id}',
    },
    prepare: async (ctx) => ({ account: await addAccount(ctx) }),
    create: async (refs) => ({ query: { command: 'run', account: refs.account.name }, body: await compositionTar(exampleResources()), shows: { status: 'PENDING' } }),
    afterJobs: { status: 'SUCCEEDED', errors: [] },
  },
  {
    api: 'conductor',
    path: '/rbac',
    kind: 'singleton',
    // One policy at /rbac: its archive is what reads it back, replacing it is another POST, its users are listed.
    operations: { get: 'getRbacArchive', update: 'attachRbacPolicy', list: 'listRbacUsers' },
    create: async () => ({ body: await filesTar({ 'policy.yaml': examplePolicy() }) }),
    update: async () => ({ body: await filesTar({ 'policy.yaml': widerPolicy() }) }),
    listMatch: (item) => ['alice', 'bob', 'carol'].includes(item.name),
  },
  // ── console ──
  {
    api: 'console',
    path: '/api-clients',
    idField: 'client_id',
    skip: { update: 'a client keeps its name; its secret changes through /api-clients/{client_id}/secret' },
    createOnly: { secret: 'shown once, in the create answer' },
    // Client names are unique in an organization: each record gets its own.
    create: (_refs, ctx) => ({ body: { name: `${exampleBody(operationById('console', 'createApiClient')).name}-${ctx.unique()}` } }),
  },
];

/** Paths that look like resources to `resourceCandidates` but have no create → delete chain, and why. */
export const NOT_RESOURCES: Array<{ api: ApiName; path: string; why: string }> = [
  { api: 'compliance', path: '/rules/test', why: 'an action: evaluates a rule against a scan’s resources and stores nothing' },
  { api: 'conductor', path: '/processes/{process}/ops', why: 'the read-only log of a process’s jobs; the process lifecycle workflow reads it' },
  { api: 'console', path: '/session', why: 'a sign-in: the console session is set up by the test, not a stored resource of the API' },
  { api: 'console', path: '/api-clients/{client_id}/secret', why: 'an action on an API client (generate or revoke its secret), not a record of its own' },
];

/**
 * Disagreements between the table and the specs' resource candidates: a candidate the table does not mention
 * (the specs gained a resource), an entry the specs do not have, or an entry made twice.
 */
export function tableProblems(candidates: Array<{ api: ApiName; path: string }>, entries: Array<{ api: ApiName; path: string }> = [...RESOURCES, ...NOT_RESOURCES]): string[] {
  const key = (e: { api: ApiName; path: string }) => `${e.api} ${e.path}`;
  const declared = entries.map(key);
  const known = new Set(candidates.map(key));
  return [
    ...candidates.map(key).filter((k) => !declared.includes(k)).map((k) => `${k}: a resource the table does not mention`),
    ...declared.filter((k) => !known.has(k)).map((k) => `${k}: not a resource of the specs`),
    ...declared.filter((k, i) => declared.indexOf(k) !== i).map((k) => `${k}: declared twice`),
  ];
}
