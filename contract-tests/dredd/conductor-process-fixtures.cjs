// Fixtures for the conductor's accounts, dry-run and processes operations, for Dredd runs against the real server
// (see hooks.cjs). The examples name the account `prod-main`, the process `web-frontend` and a dry-run and a job by
// id: the fixtures make the account and the process exist, and swap the example ids for real ones. Operations that
// change or end a process get a new process of their own, so the example process stays as the readers expect it.
// Compositions are sent as a real tar of examples/conductor/composition/, since the server reads them.
const { readFileSync } = require('node:fs');
const { join } = require('node:path');
const { load } = require('js-yaml');
const { pack } = require('tar-stream');

const endpoint = process.env.CONTRACT_ENDPOINT;
const authorization = process.env.CONTRACT_AUTHORIZATION || '';
const BASE_PATH = '/api/v0';

// The hooks serve every API; these examples exist in the conductor's spec only, so they are read when first used.
let examples;
function example(name) {
  if (!examples) {
    const swagger = load(readFileSync(process.env.CONTRACT_SPEC, 'utf8'));
    const inPath = (path, method, parameter) =>
      [...swagger.paths[path][method].parameters, ...(swagger.paths[path].parameters || [])].find((p) => p.name === parameter)['x-example'];
    examples = {
      account: inPath('/accounts/{account}', 'delete', 'account'),
      process: swagger.parameters.process['x-example'],
      dryRun: inPath('/dry-run/{id}', 'get', 'id'),
      job: inPath('/processes/{process}/ops/{job_id}', 'get', 'job_id'),
    };
  }
  return examples[name];
}

let compositionArchive;
/** examples/conductor/composition/composition.yaml in a tar, at the archive's root. */
function exampleComposition() {
  compositionArchive ??= new Promise((resolve, reject) => {
    const archive = pack();
    const chunks = [];
    archive.on('data', (chunk) => chunks.push(chunk));
    archive.on('end', () => resolve(Buffer.concat(chunks)));
    archive.on('error', reject);
    archive.entry({ name: 'composition.yaml' }, readFileSync(join(__dirname, '..', '..', 'examples', 'conductor', 'composition', 'composition.yaml')));
    archive.finalize();
  });
  return compositionArchive;
}

async function call(method, path, { json, archive } = {}) {
  const res = await fetch(`${endpoint}${BASE_PATH}${path}`, {
    method,
    headers: { authorization, ...(json && { 'content-type': 'application/json' }), ...(archive && { 'content-type': 'application/x-tar' }) },
    body: json ? JSON.stringify(json) : archive,
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`fixture ${method} ${path} answered ${res.status}: ${text}`);
  return text ? JSON.parse(text) : undefined;
}

// Names and account numbers made by fixtures carry a number (and the run's pid): both are unique in the conductor.
let made = 0;
const unique = (stem) => `${stem}-${process.pid}-${(made += 1)}`;
const accountNumber = () => String(500_000_000_000 + (process.pid % 10_000) * 10_000 + (made += 1));

const newAccount = () => call('POST', '/accounts', { json: { name: unique('fixture-account'), provider: 'provider_a', account_id: accountNumber() } });

let exampleAccount;
const ensureExampleAccount = () =>
  (exampleAccount ??= call('GET', '/accounts').then(async ({ items }) => {
    if (items.some((a) => a.name === example('account'))) return;
    await call('POST', '/accounts', { json: { name: example('account'), provider: 'provider_a', account_id: accountNumber() } });
  }));

async function newProcess(alias) {
  await ensureExampleAccount();
  const query = `account=${example('account')}${alias ? `&alias=${alias}` : ''}`;
  return call('POST', `/processes?${query}`, { archive: await exampleComposition() });
}

let exampleProcess;
/** The process the read-only examples name by its alias: found, or created. */
const ensureExampleProcess = () =>
  (exampleProcess ??= fetch(`${endpoint}${BASE_PATH}/processes/${example('process')}`, { headers: { authorization } }).then((res) =>
    res.ok ? res.json() : newProcess(example('process')),
  ));

/** Replaces a path parameter's example value with the id of a fixture. */
function usePathValue(transaction, exampleValue, value) {
  transaction.fullPath = transaction.fullPath.split(exampleValue).join(value);
  transaction.request.uri = transaction.request.uri.split(exampleValue).join(value);
}

/** Adds a query parameter the example leaves out. */
function addQuery(transaction, parameter) {
  const append = (uri) => `${uri}${uri.includes('?') ? '&' : '?'}${parameter}`;
  transaction.fullPath = append(transaction.fullPath);
  transaction.request.uri = append(transaction.request.uri);
}

async function sendComposition(transaction) {
  transaction.request.headers['Content-Type'] = 'application/x-tar';
  transaction.request.body = (await exampleComposition()).toString('base64');
  transaction.request.bodyEncoding = 'base64';
}

module.exports = {
  async addAccount(transaction) {
    transaction.request.body = JSON.stringify({ ...JSON.parse(transaction.request.body), name: unique('fixture-account'), account_id: accountNumber() });
  },
  async removeAccount(transaction) {
    usePathValue(transaction, example('account'), (await newAccount()).name);
  },
  async createDryRun(transaction) {
    // The example dry-runs an UPDATE, which names the process to update.
    addQuery(transaction, `process=${(await newProcess()).fid}`);
    await sendComposition(transaction);
  },
  async getDryRun(transaction) {
    const dryRun = await call('POST', `/dry-run?command=KILL&process=${(await newProcess()).fid}`);
    usePathValue(transaction, example('dryRun'), dryRun.id);
  },
  async createProcess(transaction) {
    await ensureExampleAccount();
    await sendComposition(transaction);
  },
  getProcess: ensureExampleProcess,
  getProcessHistory: ensureExampleProcess,
  listProcessOps: ensureExampleProcess,
  async listProcessJobOps(transaction) {
    const { fid } = await ensureExampleProcess();
    const history = await call('GET', `/processes/${fid}/history`);
    usePathValue(transaction, example('job'), history.items[0].job_id);
  },
  async updateProcess(transaction) {
    usePathValue(transaction, example('process'), (await newProcess()).fid);
    // The example's alias belongs to the example process.
    transaction.request.body = JSON.stringify({ ...JSON.parse(transaction.request.body), alias: unique('fixture-process') });
  },
  async deleteProcess(transaction) {
    // Dredd checks the first success response of each operation (200 Released); the 202 of kill=true is covered
    // by server/test/conductor-processes.test.ts.
    if (transaction.expected.statusCode !== '200') {
      transaction.skip = true;
      return;
    }
    usePathValue(transaction, example('process'), (await newProcess()).fid);
  },
  async updateProcessComposition(transaction) {
    usePathValue(transaction, example('process'), (await newProcess()).fid);
    await sendComposition(transaction);
  },
};
