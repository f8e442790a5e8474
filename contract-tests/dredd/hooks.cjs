// Dredd hooks for every API. Dredd replays each operation's documented example request and checks the answer
// against the spec. These hooks:
//   - authenticate every request (Basic for compliance and conductor, session cookie + CSRF token for the console);
//   - against the real server, skip the operations the spec still declares 501 and those listed in skipped.cjs, and
//     create the fixtures an example refers to (an environment whose id the example names, ...);
//   - against a Prism mock, only authenticate: the mock answers every operation from its examples.
// The runner (contract-tests/run.ts) passes what they need in the environment.
const hooks = require('hooks');
const { existsSync, readFileSync } = require('node:fs');
const { load } = require('js-yaml');

const api = process.env.CONTRACT_API;
const target = process.env.CONTRACT_TARGET; // 'server' | 'mock'
const endpoint = process.env.CONTRACT_ENDPOINT;
const authorization = process.env.CONTRACT_AUTHORIZATION || '';
const swagger = load(readFileSync(process.env.CONTRACT_SPEC, 'utf8'));

const SKIPPED = require('./skipped.cjs');
const CONDUCTOR_ACCESS_FIXTURES = require('./conductor-access-fixtures.cjs');
const CONDUCTOR_PROCESS_FIXTURES = require('./conductor-process-fixtures.cjs');

// Prism answers a binary (tar) example as text/plain, so downloads are checked against the real server only.
const BINARY = new Set(['application/x-tar', 'application/octet-stream']);
const downloadsBinary = (op) => (op.produces || swagger.produces || []).some((type) => BINARY.has(type));
const uploadsBinary = (op) => (op.consumes || []).some((type) => BINARY.has(type));

// A stand-in archive for operations that take a tar body: enough for the mock, which does not read it.
const PLACEHOLDER_ARCHIVE = Buffer.alloc(1024).toString('base64');

/** Operation of a transaction, found by method and path template (Dredd's resourceName carries the base path). */
const operations = new Map();
for (const [path, item] of Object.entries(swagger.paths)) {
  for (const [method, op] of Object.entries(item)) {
    if (op && op.operationId) operations.set(`${method.toUpperCase()} ${swagger.basePath}${path}`, op);
  }
}
const operationOf = (transaction) => operations.get(`${transaction.request.method} ${transaction.origin.resourceName}`);
const isPending = (op) => Object.prototype.hasOwnProperty.call(op.responses, '501');

async function call(method, path, body) {
  const res = await fetch(`${endpoint}${swagger.basePath}${path}`, {
    method,
    headers: { authorization, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`fixture ${method} ${path} answered ${res.status}: ${text}`);
  return text ? JSON.parse(text) : undefined;
}

const example = (name) => swagger.definitions[name].example;

/** Replaces a path parameter's example value with the id of a fixture. */
function usePathValue(transaction, exampleValue, value) {
  transaction.fullPath = transaction.fullPath.split(exampleValue).join(value);
  transaction.request.uri = transaction.request.uri.split(exampleValue).join(value);
}

// Example ids of the compliance spec (absent from the other specs).
const exampleOf = (parameter) => swagger.parameters?.[parameter]?.['x-example'];
const EXAMPLE_ENVIRONMENT = exampleOf('environment_id_path');
const EXAMPLE_SCAN = exampleOf('scan_id_path');

async function newEnvironment() {
  return call('POST', '/environments', example('CreateEnvironmentInput'));
}

/** Starts a scan and waits for the server's job worker to finish it. */
async function finishedScan(environmentId) {
  const started = await call('POST', `/scans?environment_id=${environmentId}`);
  for (let waited = 0; waited < 60_000; waited += 200) {
    const scan = await call('GET', `/scans/${started.id}`);
    if (scan.status !== 'IN_PROGRESS') return scan;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`scan ${started.id} did not finish within a minute`);
}

// One environment with a finished scan serves every operation that only reads them.
let scanned;
const scannedEnvironment = () =>
  (scanned ??= newEnvironment().then(async (env) => ({ env, scan: await finishedScan(env.id) })));

const EXAMPLE_NOTIFICATION = exampleOf('notification_id_path');

/** A notification example's body, watching a new environment instead of the example's environment id. */
async function watchingNewEnvironment(bodyText) {
  return { ...JSON.parse(bodyText), environments: [(await newEnvironment()).id] };
}

async function newNotification() {
  return call('POST', '/notifications', await watchingNewEnvironment(JSON.stringify(example('CreateNotificationInput'))));
}

// Custom rules, groups and invites made by fixtures carry a number, since names and pending emails are unique.
let fixtureCount = 0;
const fixtureName = (name) => `${name} ${(fixtureCount += 1)}`;
const EXAMPLE_RULE = exampleOf('rule_id_path');
const EXAMPLE_INVITE = exampleOf('invite_id_path');
const EXAMPLE_RULE_TEST_OUTPUT = swagger.paths?.['/rules/test/outputs/{output_id}']?.get.parameters.find((p) => p.name === 'output_id')['x-example'];
const EXAMPLE_USER = exampleOf('user_id_path');

async function newCustomRule() {
  return call('POST', '/rules', { ...example('CreateCustomRuleInput'), name: fixtureName('fixture rule') });
}

async function newGroup() {
  return call('POST', '/groups', { ...example('CreateGroupInput'), name: fixtureName('fixture group') });
}

async function newInvite() {
  return call('POST', '/invites', { email: `invitee-${(fixtureCount += 1)}@example.com`, group_ids: [(await newGroup()).id] });
}

/** Users join through the web console; the organization's first user (its admin) serves the user examples. */
async function someUser() {
  const users = await call('GET', '/users?max_items=1&order_direction=asc');
  if (users.items.length === 0) throw new Error('the organization has no user; the user examples need its first admin');
  return users.items[0];
}

// Fixtures per operation, for runs against the real server: each makes the ids in the example exist.
// The console, against the real server: a session of the configured admin, signed in once and shared, and
// fixtures for the console's example ids.
const consoleCredentials = { email: process.env.CONTRACT_CONSOLE_EMAIL, password: process.env.CONTRACT_CONSOLE_PASSWORD };
async function signInToConsole() {
  const res = await fetch(`${endpoint}${swagger.basePath}/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(consoleCredentials),
  });
  if (!res.ok) throw new Error(`console sign-in answered ${res.status}: ${await res.text()}`);
  const { csrf_token: csrf } = await res.json();
  return { cookie: res.headers.get('set-cookie').split(';')[0], csrf };
}
let sharedConsoleSession;
const consoleSession = () => (sharedConsoleSession ??= signInToConsole());

async function consoleCall(method, path, body) {
  const { cookie, csrf } = await consoleSession();
  const res = await fetch(`${endpoint}${swagger.basePath}${path}`, {
    method,
    headers: { cookie, 'x-csrf-token': csrf, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`fixture ${method} ${path} answered ${res.status}: ${await res.text()}`);
  return res.status === 204 ? undefined : res.json();
}

/**
 * A pending invitation's link token. Invites are made through the compliance API; the server emails each to the
 * run's mailbox (contract-tests/mailbox.ts: one JSON object `{to, text}` a line), where its link is read.
 */
let invitationCounter = 0;
async function newInvitationToken() {
  const compliance = async (path, body) => {
    const res = await fetch(`${endpoint}/v0${path}`, {
      method: 'POST',
      headers: { authorization: process.env.CONTRACT_COMPLIANCE_AUTHORIZATION, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`fixture POST /v0${path} answered ${res.status}: ${await res.text()}`);
    return res.json();
  };
  invitationCounter += 1;
  const group = await compliance('/groups', { name: `contract invited ${process.pid}-${invitationCounter}`, policy: 'builtin:AUDITOR', environment_ids: ['*'] });
  const email = `contract-invitee-${process.pid}-${invitationCounter}@example.com`;
  await compliance('/invites', { email, group_ids: [group.id] });
  const mailbox = process.env.CONTRACT_MAILBOX_FILE;
  for (let waited = 0; waited < 30_000; waited += 100) {
    const mails = existsSync(mailbox) ? readFileSync(mailbox, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line)) : [];
    const mail = mails.filter((m) => m.to.includes(email)).at(-1);
    const link = mail && /\/console\/invitation#([A-Za-z0-9_-]{43})/.exec(mail.text);
    if (link) return link[1];
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no invitation email to ${email} within 30 s`);
}
const EXAMPLE_TOKEN = exampleOf('token');

const EXAMPLE_CLIENT = exampleOf('client_id');
let clientCounter = 0;
const newApiClient = () => consoleCall('POST', '/api-clients', { name: `contract-fixture-${(clientCounter += 1)}` });

const CONSOLE_FIXTURES = {
  async signIn(transaction) {
    transaction.request.body = JSON.stringify(consoleCredentials);
    // As a browser without a session: signing in ends the session its cookie names, the one the others use.
    delete transaction.request.headers.Cookie;
    delete transaction.request.headers['X-CSRF-Token'];
  },
  async signOut(transaction) {
    // A session of its own: signing out must not end the one the other transactions use.
    const own = await signInToConsole();
    transaction.request.headers.Cookie = own.cookie;
    transaction.request.headers['X-CSRF-Token'] = own.csrf;
  },
  async getApiClient(transaction) {
    usePathValue(transaction, EXAMPLE_CLIENT, (await newApiClient()).client_id);
  },
  async generateApiClientSecret(transaction) {
    usePathValue(transaction, EXAMPLE_CLIENT, (await newApiClient()).client_id);
  },
  async revokeApiClientSecret(transaction) {
    const client = await newApiClient();
    await consoleCall('POST', `/api-clients/${client.client_id}/secret`);
    usePathValue(transaction, EXAMPLE_CLIENT, client.client_id);
  },
  async deleteApiClient(transaction) {
    usePathValue(transaction, EXAMPLE_CLIENT, (await newApiClient()).client_id);
  },
  async getInvitation(transaction) {
    usePathValue(transaction, EXAMPLE_TOKEN, await newInvitationToken());
  },
  async acceptInvitation(transaction) {
    usePathValue(transaction, EXAMPLE_TOKEN, await newInvitationToken());
    // As the invited person's browser, without a session: accepting ends the session its cookie names, the one the
    // other transactions use.
    delete transaction.request.headers.Cookie;
    delete transaction.request.headers['X-CSRF-Token'];
  },
};

const FIXTURES = {
  ...CONDUCTOR_ACCESS_FIXTURES,
  ...CONDUCTOR_PROCESS_FIXTURES,
  async createNotification(transaction) {
    transaction.request.body = JSON.stringify(await watchingNewEnvironment(transaction.request.body));
  },
  async updateNotification(transaction) {
    usePathValue(transaction, EXAMPLE_NOTIFICATION, (await newNotification()).notification_id);
    transaction.request.body = JSON.stringify(await watchingNewEnvironment(transaction.request.body));
  },
  async deleteNotification(transaction) {
    usePathValue(transaction, EXAMPLE_NOTIFICATION, (await newNotification()).notification_id);
  },
  async listNotificationDeliveries(transaction) {
    usePathValue(transaction, EXAMPLE_NOTIFICATION, (await newNotification()).notification_id);
  },
  async getEnvironment(transaction) {
    usePathValue(transaction, EXAMPLE_ENVIRONMENT, (await newEnvironment()).id);
  },
  async updateEnvironment(transaction) {
    // The example sets a baseline: it must be a successful scan of the environment.
    const env = await newEnvironment();
    const scan = await finishedScan(env.id);
    usePathValue(transaction, EXAMPLE_ENVIRONMENT, env.id);
    const body = JSON.parse(transaction.request.body);
    body.baseline_id = scan.id;
    transaction.request.body = JSON.stringify(body);
  },
  async deleteEnvironment(transaction) {
    usePathValue(transaction, EXAMPLE_ENVIRONMENT, (await newEnvironment()).id);
  },
  async createScan(transaction) {
    usePathValue(transaction, EXAMPLE_ENVIRONMENT, (await newEnvironment()).id);
  },
  async listScans(transaction) {
    usePathValue(transaction, EXAMPLE_ENVIRONMENT, (await scannedEnvironment()).env.id);
  },
  async listEvents(transaction) {
    usePathValue(transaction, EXAMPLE_ENVIRONMENT, (await scannedEnvironment()).env.id);
  },
  async getScan(transaction) {
    usePathValue(transaction, EXAMPLE_SCAN, (await scannedEnvironment()).scan.id);
  },
  async getComplianceByRules(transaction) {
    usePathValue(transaction, EXAMPLE_SCAN, (await scannedEnvironment()).scan.id);
  },
  async getComplianceByResourceTypes(transaction) {
    usePathValue(transaction, EXAMPLE_SCAN, (await scannedEnvironment()).scan.id);
  },
  async createCustomRule(transaction) {
    const body = JSON.parse(transaction.request.body);
    transaction.request.body = JSON.stringify({ ...body, name: fixtureName(body.name) });
  },
  async getCustomRule(transaction) {
    usePathValue(transaction, EXAMPLE_RULE, (await newCustomRule()).id);
  },
  async updateCustomRule(transaction) {
    usePathValue(transaction, EXAMPLE_RULE, (await newCustomRule()).id);
  },
  async deleteCustomRule(transaction) {
    usePathValue(transaction, EXAMPLE_RULE, (await newCustomRule()).id);
  },
  async testCustomRule(transaction) {
    const body = JSON.parse(transaction.request.body);
    transaction.request.body = JSON.stringify({ ...body, scan_id: (await scannedEnvironment()).scan.id });
  },
  async testCustomRuleInput(transaction) {
    usePathValue(transaction, EXAMPLE_SCAN, (await scannedEnvironment()).scan.id);
  },
  async getCustomRuleTestOutput(transaction) {
    const rule = { scan_id: (await scannedEnvironment()).scan.id, rule_text: 'resource.properties.versioning == "Enabled"', resource_type: 'PROVA.S3.Bucket' };
    const tested = await call('POST', '/rules/test?via_download=true', rule);
    usePathValue(transaction, EXAMPLE_RULE_TEST_OUTPUT, tested.links.output.split('/').pop());
  },
  async createInvite(transaction) {
    const body = JSON.parse(transaction.request.body);
    transaction.request.body = JSON.stringify({ ...body, group_ids: [(await newGroup()).id] });
  },
  async getInviteById(transaction) {
    usePathValue(transaction, EXAMPLE_INVITE, (await newInvite()).id);
  },
  async editUsersGroupAssignments(transaction) {
    transaction.request.body = JSON.stringify({ user_ids: [(await someUser()).id], group_ids: [(await newGroup()).id] });
  },
  async getUserById(transaction) {
    usePathValue(transaction, EXAMPLE_USER, (await someUser()).id);
  },
};

// Dredd's validator knows only JSON Schema formats and stops on OpenAPI's own int32 / int64; the types stay, only
// those two annotations are dropped before validation.
const OPENAPI_FORMATS = new Set(['int32', 'int64']);
function acceptOpenApiFormats(transaction) {
  const schema = transaction.expected.bodySchema;
  if (!schema) return;
  const text = typeof schema === 'string' ? schema : JSON.stringify(schema);
  transaction.expected.bodySchema = JSON.stringify(JSON.parse(text), (key, value) =>
    key === 'format' && OPENAPI_FORMATS.has(value) ? undefined : value,
  );
}

hooks.beforeEach((transaction, done) => {
  acceptOpenApiFormats(transaction);
  // Dredd sends an optional header parameter that has no example (If-None-Match) as an empty header; a client that
  // does not use it sends none.
  for (const [name, value] of Object.entries(transaction.request.headers)) if (value === '') delete transaction.request.headers[name];
  // A response documented without a body (204, editUsersGroupAssignments' 200) has no Content-Type either,
  // whatever the operation produces.
  if (!transaction.expected.body && !transaction.expected.bodySchema) delete transaction.expected.headers['Content-Type'];
  const op = operationOf(transaction);
  if (!op) {
    transaction.fail = `no operation in the ${api} spec for ${transaction.request.method} ${transaction.origin.resourceName}`;
    return done();
  }
  if (api === 'console' && target === 'mock') {
    transaction.request.headers.Cookie = 'console_session=contract-tests';
    transaction.request.headers['X-CSRF-Token'] = 'contract-tests';
  } else if (authorization) {
    transaction.request.headers.Authorization = authorization;
  }
  if (transaction.skip) return done();
  if (SKIPPED[op.operationId]) {
    transaction.skip = true;
    return done();
  }
  if (uploadsBinary(op)) {
    // Dredd makes one transaction per media type an upload accepts, alike but for Content-Type; the server reads
    // both types the same way, so against it each upload is replayed once, as application/x-tar.
    if (target !== 'mock' && transaction.request.headers['Content-Type'] !== 'application/x-tar') {
      transaction.skip = true;
      return done();
    }
    // Dredd sends no body for a binary parameter; the archive goes in base64, decoded by Dredd before sending.
    transaction.request.headers['Content-Type'] = 'application/x-tar';
    transaction.request.body = PLACEHOLDER_ARCHIVE;
    transaction.request.bodyEncoding = 'base64';
  }
  if (downloadsBinary(op) && target !== 'mock') {
    // A tar body cannot be compared with the example's placeholder text: Dredd checks the status and the
    // Content-Type; the bytes are compared with the upload in the component tests (see contract-tests/README.md).
    delete transaction.expected.body;
    delete transaction.expected.bodySchema;
  }
  if (target === 'mock') {
    if (downloadsBinary(op)) transaction.skip = true;
    // Prism answers the lowest documented 2xx unless asked for another.
    transaction.request.headers.Prefer = `code=${transaction.expected.statusCode}`;
    return done();
  }
  if (isPending(op)) {
    transaction.skip = true;
    return done();
  }
  const fixture = api === 'console' ? CONSOLE_FIXTURES[op.operationId] : FIXTURES[op.operationId];
  const prepare = async () => {
    if (api === 'console') {
      const { cookie, csrf } = await consoleSession();
      transaction.request.headers.Cookie = cookie;
      transaction.request.headers['X-CSRF-Token'] = csrf;
    }
    if (fixture) await fixture(transaction);
  };
  prepare().then(
    () => done(),
    (error) => {
      transaction.fail = String(error);
      done();
    },
  );
});

// `application/json; charset=utf-8` is `application/json`: media types are compared without their parameters.
hooks.beforeEachValidation((transaction, done) => {
  const expected = transaction.expected.headers['Content-Type'];
  const real = transaction.real && transaction.real.headers['content-type'];
  const mediaType = (value) => String(value).split(';')[0].trim().toLowerCase();
  if (expected && real && mediaType(expected) === mediaType(real)) transaction.expected.headers['Content-Type'] = real;
  done();
});

// Spec coverage (contract-tests/coverage.ts): each transaction run against the real server is appended, with the
// status it got and whether it passed, to the JSON-lines file the runner names in CONTRACT_EXERCISED_FILE.
hooks.afterEach((transaction, done) => {
  const file = process.env.CONTRACT_EXERCISED_FILE;
  const op = operationOf(transaction);
  if (file && target === 'server' && op && !transaction.skip && transaction.real) {
    const passed = Boolean(transaction.test && transaction.test.status === 'pass' && !transaction.fail);
    const line = { api, operationId: op.operationId, status: Number(transaction.real.statusCode), passed };
    require('node:fs').appendFileSync(file, `${JSON.stringify(line)}\n`);
  }
  done();
});
