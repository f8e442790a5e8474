import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, it } from '@jest/globals';
import { QUOTA_SETTINGS, type QuotaName, type Quotas } from '../src/domain/quotas.js';
import { createEnvironment, customRuleBody, nextAccount as nextCloudAccount } from './compliance.js';
import { compositionTar, conductorClient } from './conductor.js';
import { describeEachDatabase, type TestDatabase } from './databases.js';
import { useTestServer, type TestServer } from './server.js';
import { expect } from './expect.js';

const run = promisify(execFile);

/** Small, so that reaching each quota takes a few creates; each kind its own number, so a message names the right one. */
const QUOTAS: Quotas = { environments: 3, customRules: 4, customRuleText: 1_000, notifications: 2, groups: 3, apiClients: 4, processesPerAccount: 3 };
/** Creates sent at once against an empty owner: more than any quota above. */
const AT_ONCE = 8;

type Answer = Awaited<ReturnType<TestServer['request']>>;
type OrganizationQuota = Exclude<QuotaName, 'processesPerAccount' | 'customRuleText'>;
type OrganizationTable = 'environments' | 'custom_rules' | 'notifications' | 'groups' | 'api_clients';

/** What creates of one kind need in the current organization, how to make the n-th, and how to delete one made. */
interface Creator {
  create(index: number): Promise<Answer>;
  remove(created: Answer): Promise<void>;
}

interface OrganizationKind {
  quota: OrganizationQuota;
  table: OrganizationTable;
  prepare(server: TestServer, db: () => TestDatabase): Promise<Creator>;
}

let counter = 0;
const unique = (prefix: string) => `${prefix} ${process.pid}-${(counter += 1)}`;

/** A console user of the current organization, signed in: its cookie and CSRF token. */
async function consoleSession(server: TestServer): Promise<{ cookie: string; csrf: string }> {
  const email = `quota-${process.pid}-${(counter += 1)}@example.com`;
  const password = 'a long enough password';
  await server.services.consoleAuth.createUser(server.orgId, email, password);
  const signedIn = await server.request('POST', '/console/api/session', { body: { email, password }, auth: null });
  expect(signedIn.status, signedIn.text).toBe(200);
  return { cookie: signedIn.headers.get('set-cookie')!.split(';')[0]!, csrf: signedIn.body.csrf_token as string };
}

const KINDS: OrganizationKind[] = [
  {
    quota: 'environments',
    table: 'environments',
    prepare: async (server) => ({
      create: () =>
        server.request('POST', '/v0/environments', {
          body: { name: unique('env'), provider: 'provider_a', provider_options: { provider_a: { role_arn: `arn:prova:iam::${nextCloudAccount()}:role/scanner`, regions: ['*'] } } },
        }),
      remove: async (created) => {
        expect((await server.request('DELETE', `/v0/environments/${created.body.id}`)).status).toBe(204);
      },
    }),
  },
  {
    quota: 'customRules',
    table: 'custom_rules',
    prepare: async (server) => ({
      create: () => server.request('POST', '/v0/rules', { body: customRuleBody(unique('Bucket versioning')) }),
      remove: async (created) => {
        expect((await server.request('DELETE', `/v0/rules/${created.body.id}`)).status).toBe(204);
      },
    }),
  },
  {
    quota: 'notifications',
    table: 'notifications',
    prepare: async (server) => {
      const env = await createEnvironment(server);
      return {
        // Each with as many recipients as the spec lets one notification have (emails: maxItems 100).
        create: () =>
          server.request('POST', '/v0/notifications', {
            body: { name: unique('Drift'), events: ['drift'], environments: [env.id], emails: Array.from({ length: 100 }, (_, i) => `ops${i}@example.com`) },
          }),
        remove: async (created) => {
          expect((await server.request('DELETE', `/v0/notifications/${created.body.notification_id}`)).status).toBe(204);
        },
      };
    },
  },
  {
    quota: 'groups',
    table: 'groups',
    prepare: async (server, db) => ({
      create: () => server.request('POST', '/v0/groups', { body: { name: unique('Auditors'), policy: 'builtin:AUDITOR', environment_ids: ['*'] } }),
      // No operation deletes a group: the row goes directly, to show the count is of the groups there are now.
      remove: async (created) => {
        await db().handle.db.deleteFrom('groups').where('id', '=', created.body.id as string).execute();
      },
    }),
  },
  {
    quota: 'apiClients',
    table: 'api_clients',
    prepare: async (server) => {
      const session = await consoleSession(server);
      const headers = { cookie: session.cookie, 'x-csrf-token': session.csrf };
      return {
        // Every other one with its first secret at once, as the console's own page creates them.
        create: (index) => server.request('POST', '/console/api/api-clients', { body: { name: unique('ci'), ...(index % 2 === 1 && { with_secret: true }) }, auth: null, headers }),
        remove: async (created) => {
          expect((await server.request('DELETE', `/console/api/api-clients/${created.body.client_id}`, { auth: null, headers })).status).toBe(204);
        },
      };
    },
  },
];

/** A client nobody here wrote: Python's urllib POSTs `body` as JSON with the server's credentials; the status and body it read. */
const PYTHON_POST = `
import json, sys, urllib.request, urllib.error
url, authorization, body = sys.argv[1:4]
request = urllib.request.Request(url, data=body.encode(), method="POST",
                                 headers={"Authorization": authorization, "Content-Type": "application/json"})
try:
    with urllib.request.urlopen(request, timeout=30) as answer:
        print(json.dumps({"status": answer.status, "body": json.load(answer)}))
except urllib.error.HTTPError as refused:
    print(json.dumps({"status": refused.code, "body": json.load(refused)}))
`;
async function postFromPython(server: TestServer, path: string, body: unknown): Promise<{ status: number; body: unknown }> {
  const { stdout } = await run('python3', ['-c', PYTHON_POST, `${server.baseUrl}${path}`, server.auth, JSON.stringify(body)], { timeout: 60_000 });
  return JSON.parse(stdout) as { status: number; body: unknown };
}

/** A rule whose text is `length` characters long: a comparison with a string of x's. */
const TEXT_PREFIX = 'resource.properties.versioning != "';
const ruleOfLength = (length: number) => ({ ...customRuleBody(unique('Sized')), rule_text: `${TEXT_PREFIX}${'x'.repeat(length - TEXT_PREFIX.length - 1)}"` });

/** `this organization would have 1200 characters of rule text, more than the 1000 it may have (MAX_CUSTOM_RULE_TEXT_PER_ORG=1000)` */
const textRefusal = (would: number) =>
  `this organization would have ${would} characters of rule text, more than the ${QUOTAS.customRuleText} it may have (MAX_CUSTOM_RULE_TEXT_PER_ORG=${QUOTAS.customRuleText})`;

/** `this organization has 3 environments, the most it may have (MAX_ENVIRONMENTS_PER_ORG=3)` */
const refusal = (quota: QuotaName, owner: string) => {
  const { variable, many } = QUOTA_SETTINGS[quota];
  return `${owner} has ${QUOTAS[quota]} ${many}, the most it may have (${variable}=${QUOTAS[quota]})`;
};

describeEachDatabase(
  'quotas',
  (db) => {
    const server = useTestServer(db, { quotas: QUOTAS });
    const held = async (table: OrganizationTable, orgId = server().orgId) => {
      const row = await db().handle.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).where('org_id', '=', orgId).executeTakeFirstOrThrow();
      return Number(row.n);
    };

    for (const kind of KINDS) {
      const { variable } = QUOTA_SETTINGS[kind.quota];

      it(`${kind.quota}: an organization creates up to ${variable}, the next is refused with 409 naming it, and a delete makes room for one`, async () => {
        const creator = await kind.prepare(server(), db);
        // The test server's own API client counts among the organization's clients.
        const before = await held(kind.table);
        const made: Answer[] = [];
        for (let index = before; index < QUOTAS[kind.quota]; index += 1) {
          const created = await creator.create(index);
          expect(created.status, created.text).toBe(201);
          made.push(created);
        }
        const refused = await creator.create(QUOTAS[kind.quota]);
        expect(refused.status, refused.text).toBe(409);
        expect(refused.body).toEqual({ type: 'Conflict', code: 409, message: refusal(kind.quota, 'this organization') });
        expect(await held(kind.table)).toBe(QUOTAS[kind.quota]);

        await creator.remove(made[0]!);
        const again = await creator.create(QUOTAS[kind.quota] + 1);
        expect(again.status, again.text).toBe(201);
        expect((await creator.create(QUOTAS[kind.quota] + 2)).status).toBe(409);
        expect(await held(kind.table)).toBe(QUOTAS[kind.quota]);
      });

      it(`${kind.quota}: another organization is not held to the first one's count`, async () => {
        const full = await kind.prepare(server(), db);
        for (let index = await held(kind.table); index < QUOTAS[kind.quota]; index += 1) expect((await full.create(index)).status).toBe(201);
        expect((await full.create(QUOTAS[kind.quota])).status).toBe(409);
        const fullOrg = server().orgId;

        await server().useNewTenant();
        const other = await kind.prepare(server(), db);
        const created = await other.create(0);
        expect(created.status, created.text).toBe(201);
        expect(await held(kind.table)).toBe(kind.quota === 'apiClients' ? 2 : 1);
        expect(await held(kind.table, fullOrg)).toBe(QUOTAS[kind.quota]);
      });

      it(`${kind.quota}: creates sent at once end with exactly ${variable} stored, the others refused`, async () => {
        const creator = await kind.prepare(server(), db);
        const before = await held(kind.table);
        const answers = await Promise.all(Array.from({ length: AT_ONCE }, (_, index) => creator.create(index)));
        const statuses = answers.map((answer) => answer.status).sort();
        const admitted = QUOTAS[kind.quota] - before;
        expect(statuses, answers.map((answer) => answer.text).join('\n')).toEqual([...Array(admitted).fill(201), ...Array(AT_ONCE - admitted).fill(409)]);
        expect(await held(kind.table)).toBe(QUOTAS[kind.quota]);
      });
    }

    describe('characters of rule text per organization', () => {
      const textHeld = async () => {
        const row = await db()
          .handle.db.selectFrom('custom_rules')
          .select((eb) => eb.fn.sum<number | string | null>(eb.fn('length', ['rule_text'])).as('chars'))
          .where('org_id', '=', server().orgId)
          .executeTakeFirstOrThrow();
        return Number(row.chars ?? 0);
      };
      const create = (length: number) => server().request('POST', '/v0/rules', { body: ruleOfLength(length) });
      const resize = (id: string, length: number) => server().request('PATCH', `/v0/rules/${id}`, { body: { rule_text: ruleOfLength(length).rule_text } });

      it('rules hold up to MAX_CUSTOM_RULE_TEXT_PER_ORG characters together: a create or a change past it is a 409 naming it, a change that shrinks is not, a delete makes room', async () => {
        await server().useNewTenant();
        const made = [];
        for (let index = 0; index < 3; index += 1) {
          const created = await create(300);
          expect(created.status, created.text).toBe(201);
          made.push(created.body.id as string);
        }
        const refused = await create(101);
        expect(refused.status, refused.text).toBe(409);
        expect(refused.body).toEqual({ type: 'Conflict', code: 409, message: textRefusal(1_001) });
        expect(await textHeld()).toBe(900);
        // Exactly at the limit is admitted.
        expect((await create(100)).status).toBe(201);
        expect(await textHeld()).toBe(1_000);

        const grown = await resize(made[0]!, 301);
        expect(grown.status, grown.text).toBe(409);
        expect(grown.body.message).toBe(textRefusal(1_001));
        expect((await server().request('GET', `/v0/rules/${made[0]}`)).body.rule_text).toHaveLength(300);
        // Changes that leave the text as long as it was pass, as do those that shrink it.
        expect((await server().request('PATCH', `/v0/rules/${made[0]}`, { body: { description: 'unchanged text' } })).status).toBe(200);
        expect((await resize(made[0]!, 250)).status).toBe(200);
        expect((await resize(made[1]!, 350)).status).toBe(200);
        expect(await textHeld()).toBe(1_000);

        expect((await server().request('DELETE', `/v0/rules/${made[2]}`)).status).toBe(204);
        expect((await create(300)).status).toBe(201);
        expect(await textHeld()).toBe(1_000);

        await server().useNewTenant();
        expect((await create(1_000)).status).toBe(201);
      });

      it('creates and changes sent at once end within MAX_CUSTOM_RULE_TEXT_PER_ORG, the others refused', async () => {
        await server().useNewTenant();
        const creates = await Promise.all(Array.from({ length: AT_ONCE }, () => create(300)));
        expect(creates.map((answer) => answer.status).sort(), creates.map((answer) => answer.text).join('\n')).toEqual([201, 201, 201, ...Array(AT_ONCE - 3).fill(409)]);
        expect(await textHeld()).toBe(900);

        // Three rules of 100 grown to 400 at once: two fit in 1 000, the third would make 1 200.
        await server().useNewTenant();
        const small = [];
        for (let index = 0; index < 3; index += 1) small.push((await create(100)).body.id as string);
        const changes = await Promise.all(small.map((id) => resize(id, 400)));
        expect(changes.map((answer) => answer.status).sort(), changes.map((answer) => answer.text).join('\n')).toEqual([200, 200, 409]);
        expect(await textHeld()).toBe(900);
      });

      it("a client nobody here wrote (Python's urllib) is refused a rule past the text quota, with the limit named", async () => {
        await server().useNewTenant();
        expect((await create(900)).status).toBe(201);
        const answer = await postFromPython(server(), '/v0/rules', ruleOfLength(200));
        expect(answer).toEqual({ status: 409, body: { type: 'Conflict', code: 409, message: textRefusal(1_100) } });
        expect(await textHeld()).toBe(900);
      });
    });

    describe('processes per conductor account', () => {
      const conductor = conductorClient(server);
      const RESOURCES = [{ name: 'assets', type: 'PROVA.S3.Bucket', properties: { versioning: 'Enabled' }, tags: { env: 'prod' } }];
      const createRaw = async (account: string) => conductor.call('POST', `/processes?account=${account}`, await compositionTar(RESOURCES));
      const live = async (account: string) => (await conductor.call('GET', `/processes?account=${account}`)).body.items.length as number;

      it('an account holds up to MAX_PROCESSES_PER_ACCOUNT; the next is a 409 naming it, and a release or a finished kill makes room', async () => {
        const account = await conductor.addAccount();
        const made = [];
        for (let index = 0; index < QUOTAS.processesPerAccount; index += 1) made.push(await conductor.createProcess(account.name, RESOURCES));
        const refused = await createRaw(account.name);
        expect(refused.status, refused.text).toBe(409);
        const message = refusal('processesPerAccount', `account '${account.name}'`);
        expect(refused.body).toEqual({ code: 409, message: 'Process quota reached', errors: [{ code: 'process.quota_reached', message, location: 'query.account' }] });
        // By account ID too: the quota is the account's, whichever name the request uses.
        expect((await createRaw(account.account_id)).status).toBe(409);

        const other = await conductor.addAccount();
        expect((await createRaw(other.name)).status).toBe(201);

        expect((await conductor.call('DELETE', `/processes/${made[0]!.fid}`)).status).toBe(200);
        expect((await createRaw(account.name)).status).toBe(201);
        expect((await createRaw(account.name)).status).toBe(409);

        // A process being killed still holds its place; once KILLED it no longer does.
        expect((await conductor.call('DELETE', `/processes/${made[1]!.fid}?kill=true`)).status).toBe(202);
        expect((await createRaw(account.name)).status).toBe(409);
        await conductor.runJobs();
        expect((await conductor.getProcess(made[1]!.fid)).state).toBe('KILLED');
        expect((await createRaw(account.name)).status).toBe(201);
        expect(await live(account.name)).toBe(QUOTAS.processesPerAccount);
      });

      it('creates sent at once end with exactly MAX_PROCESSES_PER_ACCOUNT processes, the others refused', async () => {
        const account = await conductor.addAccount();
        const answers = await Promise.all(Array.from({ length: AT_ONCE }, () => createRaw(account.name)));
        const statuses = answers.map((answer) => answer.status).sort();
        expect(statuses, answers.map((answer) => answer.text).join('\n')).toEqual([
          ...Array(QUOTAS.processesPerAccount).fill(201),
          ...Array(AT_ONCE - QUOTAS.processesPerAccount).fill(409),
        ]);
        expect(await live(account.name)).toBe(QUOTAS.processesPerAccount);
        await conductor.runJobs();
      });
    });

    it("a client nobody here wrote (Python's urllib) is refused the environment past the quota, with the limit named", async () => {
      for (let index = 0; index < QUOTAS.environments; index += 1) await createEnvironment(server());
      const answer = await postFromPython(server(), '/v0/environments', {
        name: 'one-too-many',
        provider: 'provider_a',
        provider_options: { provider_a: { role_arn: `arn:prova:iam::${nextCloudAccount()}:role/scanner`, regions: ['*'] } },
      });
      expect(answer).toEqual({ status: 409, body: { type: 'Conflict', code: 409, message: refusal('environments', 'this organization') } });
      expect(await held('environments')).toBe(QUOTAS.environments);
    });
  },
  'suite',
);
