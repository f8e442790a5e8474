import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { filesTar } from '../../server/test/fixtures/archives.js';
import { invitationTokenIn } from '../mailbox.js';
import { BASE_PATHS, type MockApi } from '../prism/mocks.js';
import { exampleArchive, responseExample, type ExampleRequest, type Spec } from './examples.js';

/**
 * Records on the real server that the examples refer to, made through the API before each example is sent. The
 * example's ids are swapped for the records' ids, and the same request then goes to the mock (which accepts any id)
 * and to the server. Operations that change or delete a record get one of their own; names the server keeps unique
 * (groups, custom rules, invitee emails, accounts, API clients) get a number, since the Dredd run before used the
 * example's own. The same choices as the Dredd hooks (contract-tests/dredd/), for the same reasons.
 */
export interface ServerAccess {
  url: string;
  /** Authorization header of an API client of the organization (compliance). */
  complianceAuth: string;
  /** Authorization header of the conductor's root user. */
  conductorAuth: string;
  /** The console's admin, created by the server at first start. */
  consoleAdmin: { email: string; password: string };
  /** Where the server's email lands (contract-tests/mailbox.ts): the invitation links. */
  mailboxFile: string;
}

type Fixture = (request: ExampleRequest) => Promise<void>;

let made = 0;
const unique = (stem: string) => `${stem}-${process.pid}-${(made += 1)}`;

/** Sets a query parameter, replacing the example's value. */
function setQuery(request: ExampleRequest, name: string, value: string): void {
  request.query = [...request.query.filter(([key]) => key !== name), [name, value]];
}

/** A JSON body as an object, for a fixture to change some of its fields. */
const jsonBody = (request: ExampleRequest): Record<string, unknown> => ({ ...(request.json as Record<string, unknown>) });

export class ServerFixtures {
  private consoleSession?: Promise<{ cookie: string; csrf: string }>;
  private history?: Promise<{ environmentId: string; scanId: string; notificationId: string }>;
  private exampleAccount?: Promise<void>;
  private exampleProcess?: Promise<{ fid: string }>;
  readonly fixtures: Record<MockApi, Record<string, Fixture>>;

  constructor(
    private readonly root: string,
    private readonly access: ServerAccess,
  ) {
    this.fixtures = { compliance: this.complianceFixtures(), conductor: this.conductorFixtures(), console: this.consoleFixtures() };
  }

  /** The credentials of every call to the server (and through the proxy to it) for `api`. */
  async headers(api: MockApi): Promise<Record<string, string>> {
    if (api === 'compliance') return { authorization: this.access.complianceAuth };
    if (api === 'conductor') return { authorization: this.access.conductorAuth };
    const { cookie, csrf } = await (this.consoleSession ??= this.signIn());
    return { cookie, 'x-csrf-token': csrf };
  }

  /** Makes the records `request` refers to exist on the server and points the request at them. */
  async prepare(request: ExampleRequest): Promise<ExampleRequest> {
    const prepared: ExampleRequest = structuredClone(request);
    await this.fixtures[request.api][request.operationId]?.(prepared);
    return prepared;
  }

  /**
   * Calls the server as the API's usual caller (`anonymous`: without credentials, as an invited person's browser);
   * any status but 2xx (or one of `accepted`) is an error.
   */
  async call(api: MockApi, method: string, path: string, body: { json?: unknown; archive?: Buffer } = {}, accepted: number[] = [], anonymous = false): Promise<any> {
    const contentType = body.archive ? 'application/x-tar' : body.json === undefined ? undefined : 'application/json';
    const res = await fetch(`${this.access.url}${BASE_PATHS[api]}${path}`, {
      method,
      headers: { ...(anonymous ? {} : await this.headers(api)), ...(contentType && { 'content-type': contentType }) },
      body: body.archive ?? (body.json === undefined ? undefined : JSON.stringify(body.json)),
    });
    const text = await res.text();
    if (!res.ok && !accepted.includes(res.status)) throw new Error(`fixture ${method} ${BASE_PATHS[api]}${path} answered ${res.status}: ${text}`);
    return text ? JSON.parse(text) : undefined;
  }

  /** A console session of the admin; each call is a new session. */
  async signIn(): Promise<{ cookie: string; csrf: string }> {
    const res = await fetch(`${this.access.url}${BASE_PATHS.console}/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(this.access.consoleAdmin),
    });
    if (!res.ok) throw new Error(`console sign-in answered ${res.status}: ${await res.text()}`);
    const { csrf_token: csrf } = (await res.json()) as { csrf_token: string };
    return { cookie: res.headers.get('set-cookie')!.split(';')[0]!, csrf };
  }

  private complianceFixtures(): Record<string, Fixture> {
    const call = (method: string, path: string, json?: unknown) => this.call('compliance', method, path, { json });
    const newEnvironment = async (): Promise<{ id: string }> => {
      const { json } = this.exampleOf('createEnvironment');
      return call('POST', '/environments', json);
    };
    /** Starts a scan and waits for the server's job worker to finish it. */
    const finishedScan = async (environmentId: string): Promise<{ id: string }> => {
      const started = await call('POST', `/scans?environment_id=${environmentId}`);
      for (let waited = 0; waited < 60_000; waited += 200) {
        const scan = await call('GET', `/scans/${started.id}`);
        if (scan.status !== 'IN_PROGRESS') return scan;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      throw new Error(`scan ${started.id} did not finish within a minute`);
    };
    /**
     * One environment with history serves every operation that only reads it: a notification watching it, a first
     * scan made its baseline with remediation on, and more scans, between which the simulated cloud drifts
     * (SIM_DRIFT_RATE), until the environment has every type of event the listEvents example shows (at most six
     * scans); the notification then has deliveries.
     */
    const history = () =>
      (this.history ??= (async () => {
        const env = await newEnvironment();
        const notification: { notification_id: string } = await call('POST', '/notifications', {
          name: unique('parity drift'),
          events: ['drift', 'compliance', 'remediation'],
          environments: [env.id],
          emails: ['secops@example.com'],
        });
        const baseline = await finishedScan(env.id);
        await call('PATCH', `/environments/${env.id}`, { baseline_id: baseline.id, remediation: true });
        const listed = this.answerOf('compliance', 'listEvents') as { items: Array<{ event_type: string }> };
        const wanted = new Set(listed.items.map((event) => event.event_type));
        let scan = baseline;
        for (let round = 0; round < 6; round += 1) {
          scan = await finishedScan(env.id);
          const events: { items: Array<{ event_type: string }> } = await call('GET', `/events?environment_id=${env.id}&max_items=1000`);
          const seen = new Set(events.items.map((event) => event.event_type));
          if ([...wanted].every((type) => seen.has(type))) break;
        }
        return { environmentId: env.id, scanId: scan.id, notificationId: notification.notification_id };
      })());
    const watchingNewEnvironment = async (request: ExampleRequest) => ({ ...jsonBody(request), environments: [(await newEnvironment()).id] });
    const newNotification = async (): Promise<{ notification_id: string }> =>
      call('POST', '/notifications', { ...(this.exampleOf('createNotification').json as object), environments: [(await newEnvironment()).id] });
    const newGroup = async (): Promise<{ id: string }> =>
      call('POST', '/groups', { ...(this.exampleOf('createGroup').json as object), name: unique('fixture group') });
    const newRule = async (): Promise<{ id: string }> =>
      call('POST', '/rules', { ...(this.exampleOf('createCustomRule').json as object), name: unique('fixture rule') });
    const newInvite = async (): Promise<{ id: string }> =>
      call('POST', '/invites', { email: `${unique('invitee')}@example.com`, group_ids: [(await newGroup()).id] });
    /** Users join through the web console; the organization's first user (its admin) serves the user examples. */
    const someUser = async (): Promise<{ id: string }> => {
      const users = await call('GET', '/users?max_items=1&order_direction=asc');
      if (users.items.length === 0) throw new Error('the organization has no user; the user examples need its first admin');
      return users.items[0];
    };
    return {
      listEnvironments: async (request) => {
        // The example is a truncated page of a provider_a and a provider_b environment: three environments of the
        // suite's own (the provider_b one as the example lists it), found by name, two per page in name order.
        const stem = unique('parity-list');
        const { json } = this.exampleOf('createEnvironment');
        const listed = this.answerOf('compliance', 'listEnvironments') as { items: Array<Record<string, unknown>> };
        const providerB = listed.items.find((item) => item.provider === 'provider_b');
        if (!providerB) throw new Error('the listEnvironments example lists no provider_b environment');
        const fields = ['provider', 'provider_options', 'compliance_families', 'survey_resource_types', 'survey_resource_groups', 'remediate_resource_types'];
        await call('POST', '/environments', { ...(json as object), name: `${stem}-a` });
        await call('POST', '/environments', { ...Object.fromEntries(fields.map((field) => [field, providerB[field]])), name: `${stem}-b` });
        await call('POST', '/environments', { ...(json as object), name: `${stem}-c` });
        for (const [name, value] of [['query', JSON.stringify([`name:${stem}`])], ['order_by', 'name'], ['order_direction', 'asc'], ['max_items', '2']]) {
          setQuery(request, name!, value!);
        }
      },
      async getEnvironment(request) {
        request.path.environment_id = (await newEnvironment()).id;
      },
      async updateEnvironment(request) {
        // The example sets a baseline: it must be a successful scan of the environment.
        const env = await newEnvironment();
        request.path.environment_id = env.id;
        request.json = { ...jsonBody(request), baseline_id: (await finishedScan(env.id)).id };
      },
      async deleteEnvironment(request) {
        request.path.environment_id = (await newEnvironment()).id;
      },
      async createScan(request) {
        setQuery(request, 'environment_id', (await newEnvironment()).id);
      },
      async listScans(request) {
        setQuery(request, 'environment_id', (await history()).environmentId);
      },
      async listEvents(request) {
        setQuery(request, 'environment_id', (await history()).environmentId);
      },
      async getScan(request) {
        request.path.scan_id = (await history()).scanId;
      },
      async getComplianceByRules(request) {
        request.path.scan_id = (await history()).scanId;
      },
      async getComplianceByResourceTypes(request) {
        request.path.scan_id = (await history()).scanId;
      },
      async listNotifications() {
        await history();
      },
      async createNotification(request) {
        request.json = await watchingNewEnvironment(request);
      },
      async updateNotification(request) {
        request.path.notification_id = (await newNotification()).notification_id;
        request.json = await watchingNewEnvironment(request);
      },
      async deleteNotification(request) {
        request.path.notification_id = (await newNotification()).notification_id;
      },
      async listNotificationDeliveries(request) {
        const { notificationId } = await history();
        request.path.notification_id = notificationId;
        // Deliveries are sent by a job after the scan; the example lists some.
        for (let waited = 0; waited < 30_000; waited += 200) {
          if ((await call('GET', `/notifications/${notificationId}/deliveries`)).items.length > 0) return;
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
        throw new Error(`notification ${notificationId} has no delivery 30 s after the scan`);
      },
      async listCustomRules() {
        await newRule();
      },
      async createCustomRule(request) {
        request.json = { ...jsonBody(request), name: unique('Bucket versioning enabled') };
      },
      async testCustomRule(request) {
        request.json = { ...jsonBody(request), scan_id: (await history()).scanId };
      },
      async testCustomRuleInput(request) {
        setQuery(request, 'scan_id', (await history()).scanId);
      },
      async getCustomRuleTestOutput(request) {
        const rule = { scan_id: (await history()).scanId, rule_text: 'resource.properties.versioning == "Enabled"', resource_type: 'PROVA.S3.Bucket' };
        const tested = (await call('POST', '/rules/test?via_download=true', rule)) as { links: { output: string } };
        request.path.output_id = tested.links.output.split('/').pop()!;
      },
      async getCustomRule(request) {
        request.path.rule_id = (await newRule()).id;
      },
      async updateCustomRule(request) {
        request.path.rule_id = (await newRule()).id;
      },
      async deleteCustomRule(request) {
        request.path.rule_id = (await newRule()).id;
      },
      async createInvite(request) {
        request.json = { ...jsonBody(request), email: `${unique('dana.lee')}@example.com`, group_ids: [(await newGroup()).id] };
      },
      async listInvites() {
        await newInvite();
      },
      listGroups: async () => {
        // The example's groups have members: a user and an API client of their own (the suite's own client stays
        // in no group, so that no group policy narrows what it may do).
        const client: { client_id: string } = await this.call('console', 'POST', '/api-clients', { json: { name: unique('grouped-client') } });
        const group = await call('POST', '/groups', { ...(this.exampleOf('createGroup').json as object), name: unique('Auditors'), api_client_ids: [client.client_id] });
        await call('PATCH', '/users', { user_ids: [(await someUser()).id], group_ids: [group.id] });
      },
      async getInviteById(request) {
        request.path.invite_id = (await newInvite()).id;
      },
      async createGroup(request) {
        request.json = { ...jsonBody(request), name: unique('Auditors') };
      },
      async editUsersGroupAssignments(request) {
        request.json = { user_ids: [(await someUser()).id], group_ids: [(await newGroup()).id] };
      },
      async getUserById(request) {
        request.path.user_id = (await someUser()).id;
      },
    };
  }

  private conductorFixtures(): Record<string, Fixture> {
    const call = (method: string, path: string, body?: { json?: unknown; archive?: Buffer }, accepted?: number[]) =>
      this.call('conductor', method, path, body, accepted);
    const exampleAccount = () => this.exampleOf('removeAccount').path.account!;
    const exampleProcessName = () => this.exampleOf('getProcess').path.process!;
    const exampleLibrary = () => this.exampleOf('getValidation').path.name!;
    // Account numbers are unique in the conductor too.
    const accountNumber = () => String(600_000_000_000 + (process.pid % 10_000) * 10_000 + (made += 1));
    const newAccount = async (): Promise<{ name: string }> =>
      call('POST', '/accounts', { json: { name: unique('fixture-account'), provider: 'provider_a', account_id: accountNumber() } });
    const ensureExampleAccount = () =>
      (this.exampleAccount ??= call('GET', '/accounts').then(async ({ items }: { items: Array<{ name: string }> }) => {
        if (items.some((account) => account.name === exampleAccount())) return;
        await call('POST', '/accounts', { json: { name: exampleAccount(), provider: 'provider_a', account_id: accountNumber() } });
      }));
    const composition = () => exampleArchive(this.root, 'createProcess');
    const newProcess = async (alias?: string): Promise<{ fid: string }> => {
      await ensureExampleAccount();
      const query = `account=${exampleAccount()}${alias ? `&alias=${alias}` : ''}`;
      return call('POST', `/processes?${query}`, { archive: await composition() });
    };
    /** The process the read-only examples name by its alias: found, or created. */
    const ensureExampleProcess = () =>
      (this.exampleProcess ??= call('GET', `/processes/${exampleProcessName()}`, {}, [404]).then((found: { fid?: string; code?: number }) =>
        found.fid ? (found as { fid: string }) : newProcess(exampleProcessName()),
      ));
    const untaggedComposition = () => {
      const composition = parse(readFileSync(join(this.root, 'examples', 'conductor', 'composition', 'composition.yaml'), 'utf8'));
      for (const resource of composition.resources) delete resource.tags;
      return filesTar({ 'composition.yaml': stringify(composition) });
    };
    const attachExamplePolicy = async () => {
      await call('POST', '/rbac', { archive: await exampleArchive(this.root, 'attachRbacPolicy') });
    };
    const ensureExampleLibrary = async () => {
      await call('POST', `/validations?name=${exampleLibrary()}`, { archive: await exampleArchive(this.root, 'addValidation') }, [409]);
    };
    return {
      listAccounts: ensureExampleAccount,
      async addAccount(request) {
        request.json = { ...jsonBody(request), name: unique('fixture-account'), account_id: accountNumber() };
      },
      async removeAccount(request) {
        request.path.account = (await newAccount()).name;
      },
      async createDryRun(request) {
        // The example dry-runs an UPDATE, which names the process to update.
        setQuery(request, 'process', (await newProcess()).fid);
      },
      async getDryRun(request) {
        // The example is an UPDATE refused by a validation library: the example library, and the example
        // composition without its owner tags, which the library's rule owner-tag requires.
        await ensureExampleLibrary();
        const target = await newProcess();
        const dryRun = await call('POST', `/dry-run?command=UPDATE&process=${target.fid}`, { archive: await untaggedComposition() });
        // The example shows the finished dry-run: wait for its result (the rules run on the evaluation threads).
        const finished = await call('GET', `/dry-run/${dryRun.id}?timeout=60`);
        if (finished.status !== 'FAILED') throw new Error(`the fixture dry-run ended ${finished.status}, not FAILED`);
        request.path.id = dryRun.id;
      },
      async listProcesses() {
        await ensureExampleProcess();
      },
      async createProcess() {
        await ensureExampleAccount();
      },
      async getProcess() {
        await ensureExampleProcess();
      },
      async getProcessHistory() {
        await ensureExampleProcess();
      },
      async listProcessOps() {
        await ensureExampleProcess();
      },
      async listProcessJobOps(request) {
        const { fid } = await ensureExampleProcess();
        const history = await call('GET', `/processes/${fid}/history`);
        request.path.job_id = history.items[0].job_id;
      },
      async updateProcess(request) {
        request.path.process = (await newProcess()).fid;
        // The example's alias belongs to the example process.
        request.json = { ...jsonBody(request), alias: unique('fixture-process') };
      },
      async deleteProcess(request) {
        request.path.process = (await newProcess()).fid;
      },
      async updateProcessComposition(request) {
        request.path.process = (await newProcess()).fid;
      },
      detachRbacPolicy: attachExamplePolicy,
      getRbacArchive: attachExamplePolicy,
      // The example user alice is declared by the example policy.
      resetRbacUserSecret: attachExamplePolicy,
      async addValidation() {
        await call('DELETE', `/validations/${exampleLibrary()}`, {}, [404]);
      },
      listValidations: ensureExampleLibrary,
      getValidation: ensureExampleLibrary,
      deleteValidation: ensureExampleLibrary,
      getValidationArchive: ensureExampleLibrary,
    };
  }

  private consoleFixtures(): Record<string, Fixture> {
    const newClient = async (): Promise<{ client_id: string }> => this.call('console', 'POST', '/api-clients', { json: { name: unique('parity-client') } });
    /** A pending invitation's token, read from the email the server sent for it (the example's groups: AUDITOR). */
    const newInvitation = async (): Promise<string> => {
      const group: { id: string } = await this.call('compliance', 'POST', '/groups', { json: { name: unique('parity invited'), policy: 'builtin:AUDITOR', environment_ids: ['*'] } });
      const email = `${unique('parity-invitee')}@example.com`;
      await this.call('compliance', 'POST', '/invites', { json: { email, group_ids: [group.id] } });
      return invitationTokenIn(this.access.mailboxFile, email);
    };
    return {
      getInvitation: async (request) => {
        request.path.token = await newInvitation();
        request.headers = {};
      },
      acceptInvitation: async (request) => {
        request.path.token = await newInvitation();
        // As the invited person's browser, without a session: accepting ends the session its cookie names.
        request.headers = {};
      },
      listApiClients: async (request) => {
        // The example is a truncated page: eleven clients at least, asked for the smallest page, ten.
        for (let count = 0; count < 11; count += 1) await newClient();
        setQuery(request, 'max_items', '10');
      },
      signIn: async (request) => {
        request.json = { ...this.access.consoleAdmin };
        // As a browser without a session: signing in ends the session its cookie names, the one the others use.
        request.headers = {};
      },
      signOut: async (request) => {
        // A session of its own: signing out must not end the one the other requests use.
        const own = await this.signIn();
        request.headers = { cookie: own.cookie, 'x-csrf-token': own.csrf };
      },
      async createApiClient(request) {
        request.json = { ...jsonBody(request), name: unique('ci-pipeline') };
      },
      async getApiClient(request) {
        request.path.client_id = (await newClient()).client_id;
      },
      async deleteApiClient(request) {
        request.path.client_id = (await newClient()).client_id;
      },
      async generateApiClientSecret(request) {
        request.path.client_id = (await newClient()).client_id;
      },
      revokeApiClientSecret: async (request) => {
        const client = await newClient();
        await this.call('console', 'POST', `/api-clients/${client.client_id}/secret`);
        request.path.client_id = client.client_id;
      },
    };
  }

  private examples = new Map<string, ExampleRequest>();
  private specs = new Map<MockApi, Spec>();
  /** The spec and its example requests, for fixtures that build their records from the spec's examples. */
  useExamples(spec: Spec, requests: ExampleRequest[]): void {
    this.specs.set(spec.api, spec);
    for (const request of requests) this.examples.set(request.operationId, request);
  }
  /** The example answer of an operation's success. */
  private answerOf(api: MockApi, operationId: string): unknown {
    const example = this.examples.get(operationId);
    const spec = this.specs.get(api);
    const answer = example && spec ? responseExample(spec, operationId, example.expectedStatus) : undefined;
    if (answer === undefined) throw new Error(`no example answer of ${api}.${operationId}`);
    return answer;
  }
  private exampleOf(operationId: string): ExampleRequest {
    const example = this.examples.get(operationId);
    if (!example) throw new Error(`no example request of ${operationId}`);
    return example;
  }
}
