// Fixtures for the conductor's rbac and validation operations, for Dredd runs against the real server (see
// hooks.cjs). Uploads send real archives packed from examples/conductor/, since the server reads them; the examples
// name the library `baseline-tags` and the user `alice`, so the fixtures make those exist where an example needs them.
const { readFileSync } = require('node:fs');
const { join } = require('node:path');
const { pack } = require('tar-stream');

const endpoint = process.env.CONTRACT_ENDPOINT;
const authorization = process.env.CONTRACT_AUTHORIZATION || '';
const BASE_PATH = '/api/v0';
const EXAMPLES = join(__dirname, '..', '..', 'examples', 'conductor');
const EXAMPLE_LIBRARY = 'baseline-tags';

/** A tar of one example file, at the archive's root, as the conductor expects it. */
function exampleArchive(directory, file) {
  const archive = pack();
  const chunks = [];
  archive.on('data', (chunk) => chunks.push(chunk));
  const ended = new Promise((resolve, reject) => {
    archive.on('end', resolve);
    archive.on('error', reject);
  });
  archive.entry({ name: file }, readFileSync(join(EXAMPLES, directory, file)));
  archive.finalize();
  return ended.then(() => Buffer.concat(chunks));
}

const policyArchive = () => exampleArchive('policy', 'policy.yaml');
const libraryArchive = () => exampleArchive('validation', 'rules.yaml');

/** Calls the conductor as root; `accepted` lists the statuses that leave the fixture in the state it wants. */
async function call(method, path, archive, accepted) {
  const res = await fetch(`${endpoint}${BASE_PATH}${path}`, {
    method,
    headers: { authorization, ...(archive && { 'content-type': 'application/x-tar' }) },
    body: archive,
  });
  const text = await res.text();
  if (!accepted.includes(res.status)) throw new Error(`fixture ${method} ${path} answered ${res.status}: ${text}`);
}

const attachExamplePolicy = async () => call('POST', '/rbac', await policyArchive(), [200]);
const ensureExampleLibrary = async () => call('POST', `/validations?name=${EXAMPLE_LIBRARY}`, await libraryArchive(), [201, 409]);

/** The request body Dredd sends, base64 (the hooks set bodyEncoding for binary uploads). */
const sendArchive = (transaction, archive) => {
  transaction.request.body = archive.toString('base64');
  transaction.request.bodyEncoding = 'base64';
};

module.exports = {
  async attachRbacPolicy(transaction) {
    sendArchive(transaction, await policyArchive());
  },
  detachRbacPolicy: attachExamplePolicy,
  getRbacArchive: attachExamplePolicy,
  // The example user alice is declared by the example policy.
  resetRbacUserSecret: attachExamplePolicy,
  async addValidation(transaction) {
    await call('DELETE', `/validations/${EXAMPLE_LIBRARY}`, undefined, [200, 404]);
    sendArchive(transaction, await libraryArchive());
  },
  getValidation: ensureExampleLibrary,
  deleteValidation: ensureExampleLibrary,
  getValidationArchive: ensureExampleLibrary,
};
