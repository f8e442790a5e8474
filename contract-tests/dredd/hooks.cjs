// Dredd hooks for every API. Dredd replays each operation's documented example request and checks the answer
// against the spec. These hooks:
//   - authenticate every request (Basic for compliance and conductor, session cookie + CSRF token for the console);
//   - against the real server, skip the operations the spec still declares 501 and those listed in skipped.cjs, and
//     create the fixtures an example refers to (an environment whose id the example names, ...);
//   - against a Prism mock, only authenticate: the mock answers every operation from its examples.
// The runner (contract-tests/run.ts) passes what they need in the environment.
const hooks = require('hooks');
const { readFileSync } = require('node:fs');
const { load } = require('js-yaml');

const api = process.env.CONTRACT_API;
const target = process.env.CONTRACT_TARGET; // 'server' | 'mock'
const endpoint = process.env.CONTRACT_ENDPOINT;
const authorization = process.env.CONTRACT_AUTHORIZATION || '';
const swagger = load(readFileSync(process.env.CONTRACT_SPEC, 'utf8'));

const SKIPPED = require('./skipped.cjs');

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

// Fixtures per operation, for runs against the real server: each makes the ids in the example exist.
const FIXTURES = {
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
  // A response documented without a body (204, editUsersGroupAssignments' 200) has no Content-Type either,
  // whatever the operation produces.
  if (!transaction.expected.body && !transaction.expected.bodySchema) delete transaction.expected.headers['Content-Type'];
  const op = operationOf(transaction);
  if (!op) {
    transaction.fail = `no operation in the ${api} spec for ${transaction.request.method} ${transaction.origin.resourceName}`;
    return done();
  }
  if (api === 'console') {
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
    // Dredd sends no body for a binary parameter; the archive goes in base64, decoded by Dredd before sending.
    transaction.request.headers['Content-Type'] = 'application/x-tar';
    transaction.request.body = PLACEHOLDER_ARCHIVE;
    transaction.request.bodyEncoding = 'base64';
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
  const fixture = FIXTURES[op.operationId];
  if (!fixture) return done();
  fixture(transaction).then(
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
