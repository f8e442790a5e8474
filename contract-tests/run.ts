import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createRequire } from 'node:module';
import { load } from 'js-yaml';
import { ROOT } from '../scripts/root.js';
import { freePort, start, waitForHttp, type Started } from './processes.js';
import { MOCK_APIS, startMock, type MockApi } from './prism/mocks.js';
import { clearExercised, exercisedFile as suiteExercisedFile } from './coverage.js';
import { MailboxFile } from './mailbox.js';
import { ParitySuite } from './parity/suite.js';

/**
 * `make contract`: Dredd replays every operation's documented example against
 *   1. the real server (built into dist/, on a scratch SQLite database, response validation on), for the
 *      compliance, conductor and console specs, and
 *   2. a Prism mock of each spec.
 * Against the real server every implemented operation must pass: the run fails when fewer transactions pass than
 * the specs have implemented operations, so an operation cannot drop out unnoticed.
 * Then, per spec, the mock parity suite sends each operation's example request to the same Prism mock and to the
 * real server and compares the answers, and the same requests go through `prism proxy --errors` in front of the
 * real server, which must report no violation (contract-tests/parity/).
 * What the real server answered is recorded under reports/exercised/ (contract-dredd.jsonl, contract-parity.jsonl)
 * for the spec coverage, which contract-tests/spec-coverage.ts checks once every suite has run.
 * The server's email goes to an SMTP server of the run's own (mailbox.ts), where the console's invitation fixtures
 * find the links that invites email.
 */
const run = promisify(execFile);
const basic = (user: string, secret: string) => `Basic ${Buffer.from(`${user}:${secret}`).toString('base64')}`;
const HOOKS = join(ROOT, 'contract-tests/dredd/hooks.cjs');
/** The console user the contract run signs in as (the server creates it at first start). */
const CONSOLE_ADMIN = { email: 'contract@example.com', password: randomBytes(18).toString('base64url') };
const SKIPPED = createRequire(import.meta.url)('./dredd/skipped.cjs') as Record<string, string>;

interface Outcome {
  name: string;
  passing: number;
  failing: number;
  errors: number;
  skipped: number;
  expectedPassing?: number;
  output: string;
}

type Swagger = { paths: Record<string, Record<string, { operationId?: string; responses: Record<string, unknown> }>> };

/** Operations Dredd must pass against the real server: implemented (no 501) and not on the hooks' skip list. */
async function implementedOperations(api: MockApi): Promise<number> {
  const swagger = load(await readFile(join(ROOT, 'generated', api, 'swagger.yaml'), 'utf8')) as Swagger;
  let count = 0;
  for (const item of Object.values(swagger.paths)) {
    for (const op of Object.values(item)) {
      if (op.operationId && !('501' in op.responses) && !(op.operationId in SKIPPED)) count += 1;
    }
  }
  return count;
}

async function dredd(name: string, api: MockApi, target: 'server' | 'mock', endpoint: string, authorization: string): Promise<Outcome> {
  const env = {
    ...process.env,
    CONTRACT_API: api,
    CONTRACT_TARGET: target,
    CONTRACT_ENDPOINT: endpoint,
    CONTRACT_AUTHORIZATION: authorization,
    CONTRACT_SPEC: join(ROOT, 'generated', api, 'swagger.yaml'),
    CONTRACT_CONSOLE_EMAIL: CONSOLE_ADMIN.email,
    CONTRACT_CONSOLE_PASSWORD: CONSOLE_ADMIN.password,
    // The console's invitation fixtures invite through the compliance API and read the link from the mailbox.
    CONTRACT_COMPLIANCE_AUTHORIZATION: clientAuth,
    CONTRACT_MAILBOX_FILE: mailbox.file,
    CONTRACT_EXERCISED_FILE: exercisedFile,
    NODE_NO_WARNINGS: '1',
  };
  const args = [join(ROOT, 'generated', api, 'swagger.yaml'), endpoint, '--hookfiles', HOOKS, '--language', 'nodejs', '--loglevel', 'warning', '--color', 'false'];
  let output: string;
  try {
    const result = await run(join(ROOT, 'node_modules/.bin/dredd'), args, { cwd: ROOT, env, maxBuffer: 64 * 1024 * 1024 });
    output = result.stdout + result.stderr;
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string };
    output = `${failed.stdout ?? ''}${failed.stderr ?? ''}`;
  }
  output = output.replace(/\u001b\[[0-9;]*m/g, '');
  const summary = /complete: (.*) total/.exec(output)?.[1] ?? '';
  const count = (word: string) => Number(new RegExp(`(\\d+) ${word}`).exec(summary)?.[1] ?? 0);
  return { name, passing: count('passing'), failing: count('failing'), errors: count('errors?'), skipped: count('skipped'), output };
}

async function startServer(dir: string, rootSecret: string): Promise<{ server: Started; url: string; clientAuth: string }> {
  const env = {
    ...process.env,
    DATABASE_URL: `sqlite:${join(dir, 'app.db')}`,
    CONDUCTOR_ROOT_SECRET: rootSecret,
    CONDUCTOR_ROOT_SECRET_FILE: join(dir, 'root-secret'),
    CONSOLE_ADMIN_PASSWORD_FILE: join(dir, 'admin-password'),
    CONSOLE_ADMIN_EMAIL: CONSOLE_ADMIN.email,
    CONSOLE_ADMIN_PASSWORD: CONSOLE_ADMIN.password,
    VALIDATE_RESPONSES: 'true',
    DEMO_DATA: 'false',
    SMTP_URL: mailbox.url,
    PORT: String(await freePort()),
  };
  const { stdout } = await run(process.execPath, [join(ROOT, 'dist/server/src/admin.js'), 'api-clients', 'create', '--name', 'contract-tests', '--json'], {
    cwd: ROOT,
    env,
  });
  const credentials = JSON.parse(stdout) as { client_id: string; client_secret: string };
  const server = start(process.execPath, [join(ROOT, 'dist/server/src/main.js')], env, ROOT);
  const url = `http://127.0.0.1:${env.PORT}`;
  await waitForHttp(`${url}/healthz`, server);
  return { server, url, clientAuth: basic(credentials.client_id, credentials.client_secret) };
}

const dir = await mkdtemp(join(tmpdir(), 'contract-'));
const mailbox = new MailboxFile(join(dir, 'mailbox.jsonl'));
await mailbox.start();
const rootSecret = randomBytes(24).toString('base64url');
const outcomes: Outcome[] = [];
/** Spec coverage: the Dredd hooks append each real-server transaction here (see coverage.ts). */
const exercisedFile = suiteExercisedFile('contract-dredd');
/** Spec coverage: the parity suite and the proxy pass append each answer of the real server here. */
const parityExercisedFile = suiteExercisedFile('contract-parity');
clearExercised('contract-dredd');
clearExercised('contract-parity');
let parity: { lines: string[]; failures: string[] } | undefined;
const { server, url, clientAuth } = await startServer(dir, rootSecret);
try {
  const authOf: Record<MockApi, string> = { compliance: clientAuth, conductor: basic('root', rootSecret), console: '' };
  for (const api of MOCK_APIS) {
    const outcome = await dredd(`${api} / server`, api, 'server', url, authOf[api]);
    outcomes.push({ ...outcome, expectedPassing: await implementedOperations(api) });
  }
  // The APIs' own descriptions are on the Dredd skip list (their bodies are compared in platform.test.ts); their
  // statuses are checked here.
  for (const [api, operationId, path] of [['compliance', 'getSwagger', '/v0/swagger'], ['conductor', 'getConductorSwagger', '/api/v0/swagger']] as const) {
    const swagger = await fetch(`${url}${path}`);
    await swagger.arrayBuffer();
    if (swagger.ok) await appendFile(exercisedFile, `${JSON.stringify({ api, operationId, status: swagger.status, passed: true })}\n`);
  }
  const paritySuite = new ParitySuite(
    ROOT,
    { url, complianceAuth: clientAuth, conductorAuth: authOf.conductor, consoleAdmin: CONSOLE_ADMIN, mailboxFile: mailbox.file },
    parityExercisedFile,
  );
  const parityCrashes: string[] = [];
  for (const api of MOCK_APIS) {
    const mock = await startMock(ROOT, api, 0);
    try {
      outcomes.push(await dredd(`${api} / prism mock`, api, 'mock', mock.url, basic('mock-user', 'mock-secret')));
      await paritySuite.runApi(api, mock.url).catch((error: unknown) => parityCrashes.push(`parity ${api}: ${error instanceof Error ? error.stack : String(error)}`));
    } finally {
      await mock.stop();
    }
  }
  parity = paritySuite.finish(MOCK_APIS);
  parity.failures.push(...parityCrashes);
} finally {
  await server.stop();
  await mailbox.stop();
  await rm(dir, { recursive: true, force: true });
}

let failed = 0;
let passed = 0;
for (const outcome of outcomes) {
  const short = outcome.expectedPassing !== undefined && outcome.passing !== outcome.expectedPassing;
  const bad = outcome.failing > 0 || outcome.errors > 0 || short || outcome.passing + outcome.skipped === 0;
  const expected = outcome.expectedPassing !== undefined ? ` (expected ${outcome.expectedPassing} passing)` : '';
  console.log(`${bad ? 'FAIL' : 'ok  '} ${outcome.name.padEnd(26)} ${outcome.passing} passing, ${outcome.failing} failing, ${outcome.errors} errors, ${outcome.skipped} skipped${expected}`);
  if (bad) {
    failed += 1;
    console.log(outcome.output.split('\n').filter((line) => /fail|error|FAIL|Error|expected|message/i.test(line)).slice(0, 80).join('\n'));
  } else {
    passed += 1;
  }
}
if (parity) {
  for (const line of parity.lines) console.log(line);
  for (const failure of parity.failures) console.log(`FAIL ${failure}`);
  if (parity.failures.length > 0) failed += 1;
  else passed += 1;
}
console.log(`contract: ${passed} passed, ${failed} failed`);
if (failed > 0) process.exitCode = 1;
