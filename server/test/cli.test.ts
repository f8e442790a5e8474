import { execFile, spawn, spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { stringify } from 'yaml';
import { afterAll, beforeAll, beforeEach, describe, it } from '@jest/globals';
import { GROUPS, main } from '../../client/src/cli/main.js';
import { tarDirectory } from '../../client/src/node.js';
import { CHECKS, recordPassed } from '../../scripts/check-exercised.js';
import { accountKey } from '../src/domain/cloud/simulator/simulated-cloud.js';
import { nextAccount as nextComplianceAccount } from './compliance.js';
import { nextAccount as nextConductorAccount, WEB_RESOURCES } from './conductor.js';
import { DATABASE_TARGETS, openTestDatabase } from './databases.js';
import { ROOT_SECRET, startTestServer, type TestServer } from './server.js';
import { expect } from './expect.js';

/**
 * The compliance-conductor CLI, run in process through `main(argv, io)` against the whole server (SQLite), with
 * one spawned run of the real entry point. Every command of the command table runs successfully at least once: each
 * successful run is recorded in reports/exercised/cli-commands.txt, and scripts/check-exercised.ts, which
 * `make test` and `make test-unit` run after jest, fails naming any command never recorded.
 */

const EXAMPLES = resolve(import.meta.dirname, '../../examples/conductor');
const ENTRY = resolve(import.meta.dirname, '../../client/src/cli/main.ts');
/** The account whose simulated inventory cannot be listed: its scans end in ERROR. */
const BROKEN_ACCOUNT = nextComplianceAccount();

interface Run {
  code: number;
  stdout: string;
  stderr: string;
  bytes: Buffer;
  json(): any;
}

let server: TestServer;
/** How many requests of each operation the server has begun to answer (by operationId). */
const handled = new Map<string, number>();
let database: Awaited<ReturnType<typeof openTestDatabase>>;
let workDir: string;

beforeAll(async () => {
  database = await openTestDatabase(DATABASE_TARGETS[0]!);
  server = await startTestServer(database, {
    beforeHandler: (_api, operationId) => void handled.set(operationId, (handled.get(operationId) ?? 0) + 1),
    simulator: {
      // Every scan after the first sees some drift, so events appear after a few scans.
      driftRate: 0.2,
      // Small inventories keep scans fast; one account fails outright, as an unreachable cloud would.
      accountSize: (key) => {
        if (key === accountKey('provider_a', BROKEN_ACCOUNT)) throw new Error('simulated outage: the provider API is down');
        return 40;
      },
    },
  });
  workDir = await mkdtemp(join(tmpdir(), 'cli-test-'));
});

afterAll(async () => {
  await server?.close();
  await database?.dispose();
  await rm(workDir, { recursive: true, force: true });
});

beforeEach(async () => {
  await server.useNewTenant();
});

/** The current tenant's API client, as the CLI's environment variables name it. */
function complianceCredentials(): { COMPLIANCE_CLIENT_ID: string; COMPLIANCE_CLIENT_SECRET: string } {
  const [id, secret] = Buffer.from(server.auth.slice('Basic '.length), 'base64').toString().split(':') as [string, string];
  return { COMPLIANCE_CLIENT_ID: id, COMPLIANCE_CLIENT_SECRET: secret };
}

const defaultEnv = () => ({ CC_URL: server.baseUrl, ...complianceCredentials(), CONDUCTOR_USER: 'root', CONDUCTOR_SECRET: ROOT_SECRET });

/**
 * The number of GET /scans/{scan_id} the server has begun to answer since this was called: a waiting CLI's polls.
 * Once it reaches 2, the first poll has been answered (a wait polls one request after another).
 */
function scanPolls(): () => number {
  const start = handled.get('getScan') ?? 0;
  return () => (handled.get('getScan') ?? 0) - start;
}

/**
 * Runs the CLI in process with captured output; `env` replaces the default environment entirely when given, `tty`
 * makes stdout and stderr look like a terminal, `stderr` collects what is written to stderr as it is written.
 * A successful run (help aside) is recorded for scripts/check-exercised.ts.
 */
async function cli(argv: string[], options: { env?: Record<string, string | undefined>; tty?: boolean; stderr?: string[] } = {}): Promise<Run> {
  const out: Buffer[] = [];
  const err: string[] = options.stderr ?? [];
  const code = await main(argv, {
    stdout: { write: (chunk) => out.push(Buffer.from(typeof chunk === 'string' ? chunk : chunk)), isTTY: options.tty ?? false },
    stderr: { write: (chunk) => err.push(chunk), isTTY: options.tty ?? false },
    env: options.env ?? defaultEnv(),
  });
  const bytes = Buffer.concat(out);
  const stdout = bytes.toString('utf8');
  if (code === 0 && !argv.includes('--help') && !argv.includes('-h')) recordPassed(CHECKS.cliCommands, argv.slice(0, 2).join(' '));
  return { code, stdout, stderr: err.join(''), bytes, json: () => JSON.parse(stdout) };
}

/**
 * Runs the CLI while the job queue is worked, as the server's workers would (scans, dry-runs, process jobs), once
 * `jobsWhen` holds of what the run wrote to stderr so far (at once by default): until then the work it waits for
 * stays pending. Nothing gives up on the condition but the test's own timeout.
 */
async function cliWithJobs(argv: string[], options: Omit<Parameters<typeof cli>[1] & object, 'stderr'> = {}, jobsWhen: (stderr: string) => boolean = () => true): Promise<Run> {
  let done = false;
  const stderr: string[] = [];
  const pending = cli(argv, { ...options, stderr }).finally(() => {
    done = true;
  });
  while (!done && !jobsWhen(stderr.join(''))) await new Promise((r) => setTimeout(r, 10));
  while (!done) {
    if (!(await server.services.jobs.runOnce())) await new Promise((r) => setTimeout(r, 10));
  }
  return pending;
}

const runJobs = async () => {
  while (await server.services.jobs.runOnce());
};

/** Asserts success and returns the run; the message shows what the CLI said otherwise. */
async function ok(argv: string[], options?: Parameters<typeof cli>[1]): Promise<Run> {
  const run = await cli(argv, options);
  expect(run.code, `${argv.join(' ')}\n${run.stderr}`).toBe(0);
  return run;
}

/** The lines of a table, the header first, with the start column of each header cell. */
function table(text: string): { header: string; rows: string[]; column(name: string): number } {
  const [header, ...rows] = text.trimEnd().split('\n');
  return { header: header!, rows, column: (name) => header!.indexOf(name) };
}

const roleArn = (account = nextComplianceAccount()) => `arn:prova:iam::${account}:role/scanner`;

async function createEnvironment(name = 'prod', account?: string): Promise<any> {
  const run = await ok(['environments', 'create', '--name', name, '--provider', 'provider_a', '--role-arn', roleArn(account), '--regions', '*', '--families', 'CIS', '--json']);
  return run.json();
}

async function finishedScan(environmentId: string): Promise<any> {
  const run = await cliWithJobs(['scans', 'trigger', environmentId, '--wait', '--interval', '20ms', '--json']);
  expect(run.code, run.stderr).toBe(0);
  return run.json();
}

async function compositionDir(resources: unknown[] = WEB_RESOURCES): Promise<string> {
  const dir = await mkdtemp(join(workDir, 'composition-'));
  await writeFile(join(dir, 'composition.yaml'), stringify({ resources }));
  return dir;
}

async function addAccount(): Promise<{ name: string; account_id: string }> {
  const { name, accountId } = nextConductorAccount();
  return (await ok(['accounts', 'add', '--name', name, '--provider', 'provider_a', '--account-id', accountId, '--json'])).json();
}

async function createProcess(account: string, alias?: string): Promise<any> {
  const run = await ok(['processes', 'create', await compositionDir(), '--account', account, ...(alias ? ['--alias', alias] : []), '--json']);
  await runJobs();
  return run.json();
}

describe('help', () => {
  it('lists every group on --help and exits 0; with no arguments prints the same to stderr and exits 2', async () => {
    const help = await ok(['--help']);
    for (const group of GROUPS) expect(help.stdout).toContain(`  ${group.name} `);
    expect(help.stdout).toMatch(/Exit codes:[\s\S]*4 +a --wait timed out/);
    for (const variable of ['COMPLIANCE_CLIENT_ID', 'COMPLIANCE_CLIENT_SECRET', 'CONDUCTOR_USER', 'CONDUCTOR_SECRET', 'COMPLIANCE_URL', 'CC_URL']) {
      expect(help.stdout).toContain(variable);
    }
    const bare = await cli([]);
    expect(bare.code).toBe(2);
    expect(bare.stdout).toBe('');
    expect(bare.stderr).toBe(help.stdout);
  });

  it('lists every command of each group on <group> --help', async () => {
    for (const group of GROUPS) {
      const help = await ok([group.name, '--help']);
      expect(help.stdout).toContain(`Usage: compliance-conductor ${group.name} <command>`);
      for (const command of group.commands) expect(help.stdout).toMatch(new RegExp(`\\n  ${command.name} +\\S`));
      const bare = await cli([group.name]);
      expect(bare.code).toBe(2);
      expect(bare.stderr).toBe(help.stdout);
    }
  });

  it('documents every command: usage, arguments, flags, credentials, output, an example and the exit codes', async () => {
    const commands = GROUPS.flatMap((group) => group.commands.map((command) => ({ group, command })));
    expect(commands.length).toBeGreaterThanOrEqual(40);
    for (const { group, command } of commands) {
      const name = `${group.name} ${command.name}`;
      const help = await ok([group.name, command.name, '--help']);
      expect((await ok([group.name, command.name, '-h'])).stdout, name).toBe(help.stdout);
      expect(help.stdout, name).toContain(`Usage: compliance-conductor ${name}`);
      for (const arg of command.args ?? []) expect(help.stdout, name).toMatch(new RegExp(`^  ${arg.optional ? `\\[${arg.name}\\]` : `<${arg.name}>`} {3,}\\S`, 'm'));
      for (const flag of Object.keys(command.flags ?? {})) expect(help.stdout, name).toMatch(new RegExp(`^  (-\\w, )?--${flag}\\b[^\\n]* {3,}\\S`, 'm'));
      const credentials = group.api === 'compliance' ? ['--client-id', 'COMPLIANCE_CLIENT_SECRET'] : ['--user', 'CONDUCTOR_SECRET'];
      for (const text of ['--url', '--json', ...credentials]) expect(help.stdout, name).toContain(text);
      expect(command.examples.length, name).toBeGreaterThan(0);
      for (const example of command.examples) expect(example.startsWith(`compliance-conductor ${name}`), `${name}: ${example}`).toBe(true);
      expect(help.stdout, name).toContain('Exit codes: 0 success, 1 API error, 2 usage error');
    }
  });

  it('shows a command\'s help even when the rest of the line is wrong', async () => {
    const help = await ok(['environments', 'get', '--no-such-flag', '--help']);
    expect(help.stdout).toContain('Usage: compliance-conductor environments get <environment-id>');
  });
});

describe('usage errors exit 2 and say what is wrong', () => {
  const cases: Array<[string, string[], RegExp]> = [
    ['an unknown group', ['clusters', 'list'], /unknown command group 'clusters'/],
    ['an unknown command', ['environments', 'explode'], /unknown command 'explode' in environments/],
    ['an unknown flag', ['environments', 'list', '--colour'], /unknown option '--colour'/],
    ['a flag of the other API', ['environments', 'list', '--user', 'root'], /unknown option '--user'/],
    ['a missing argument', ['environments', 'get'], /missing required argument 'environment-id'/],
    ['an extra argument', ['environments', 'get', 'a', 'b'], /too many arguments for 'get'/],
    ['a flag without its value', ['scans', 'list', '--environment-id'], /argument missing/],
    ['a required flag left out', ['scans', 'list'], /--environment-id is required/],
    ['a malformed number', ['environments', 'list', '--max-items', 'ten'], /--max-items must be a whole number/],
    ['a page size over the limit', ['environments', 'list', '--page-size', '5000'], /--page-size must be a whole number from 1 to 1000/],
    ['a malformed duration', ['scans', 'wait', 'x', '--timeout', 'soon'], /--timeout must be a duration/],
    ['an on/off flag with another value', ['environments', 'update', 'x', '--schedule', 'maybe'], /--schedule must be on or off/],
    ['a value outside the choices', ['scans', 'list', '--environment-id', 'x', '--status', 'DONE'], /--status must be one of IN_PROGRESS, SUCCESS, ERROR/],
    ['an invalid JSON body', ['environments', 'create', '--body', '{name:'], /--body is not valid JSON/],
    ['a body that is not an object', ['environments', 'create', '--body', '[1]'], /--body must hold a JSON object/],
    ['both --body and --file', ['environments', 'create', '--body', '{}', '--file', 'x.json'], /not both/],
    ['an unreadable --file', ['environments', 'create', '--file', '/nonexistent/environment.json'], /cannot read --file/],
    ['an update without changes', ['environments', 'update', 'x'], /nothing to change/],
    ['an archive path that does not exist', ['validations', 'upload', 'lib', '/nonexistent/rules'], /cannot read the archive \/nonexistent\/rules/],
    ['a dry-run command that does not exist', ['dry-run', 'submit', 'DESTROY', '--process', 'p'], /must be one of RUN, UPDATE, KILL, RESUME/],
    ['a RUN dry-run without its composition', ['dry-run', 'submit', 'run', '--account', 'a'], /RUN needs a composition/],
    ['--job with --first', ['processes', 'ops', 'p', '--job', 'j', '--first'], /--job cannot be combined/],
    ['a malformed minute', ['processes', 'history', 'p', '--start', 'yesterday'], /--start must be 'mm\/dd\/YYYY HH:MM'/],
    ['a URL without a scheme', ['environments', 'list', '--url', '127.0.0.1:3000'], /must start with http:\/\/ or https:\/\//],
  ];
  for (const [what, argv, message] of cases) {
    it(`for ${what}`, async () => {
      const run = await cli(argv);
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toMatch(message);
      expect(run.stderr).toMatch(/Run 'compliance-conductor[a-z -]* --help' for usage\./);
      expect(run.stdout).toBe('');
    });
  }

  it('for missing credentials, naming the flags and the variables', async () => {
    const compliance = await cli(['environments', 'list'], { env: { CC_URL: server.baseUrl } });
    expect(compliance.code).toBe(2);
    expect(compliance.stderr).toContain('missing compliance credentials: --client-id (or COMPLIANCE_CLIENT_ID) and --client-secret (or COMPLIANCE_CLIENT_SECRET)');
    const conductor = await cli(['accounts', 'list'], { env: { CC_URL: server.baseUrl, CONDUCTOR_USER: 'root' } });
    expect(conductor.code).toBe(2);
    expect(conductor.stderr).toContain('missing conductor credentials: --secret (or CONDUCTOR_SECRET)');
  });
});

describe('credentials and server URL', () => {
  it('takes them from the environment, or from flags, which win over the environment', async () => {
    const env = await createEnvironment('creds');
    const { COMPLIANCE_CLIENT_ID: id, COMPLIANCE_CLIENT_SECRET: secret } = complianceCredentials();
    const flagsOnly = await ok(['environments', 'get', env.id, '--url', server.baseUrl, '--client-id', id, '--client-secret', secret, '--json'], { env: {} });
    expect(flagsOnly.json().id).toBe(env.id);
    const wrongEnv = { COMPLIANCE_URL: server.baseUrl, COMPLIANCE_CLIENT_ID: id, COMPLIANCE_CLIENT_SECRET: 'wrong-secret' };
    const refused = await cli(['environments', 'get', env.id], { env: wrongEnv });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^401 \w+: /);
    await ok(['environments', 'get', env.id, '--client-secret', secret], { env: wrongEnv });
    const wrongFlag = await cli(['environments', 'get', env.id, '--client-secret', 'wrong-secret']);
    expect(wrongFlag.code).toBe(1);
    // Secrets are URL-safe base64 and may start with a dash: it is still the flag's value, given as the next word.
    const dashed = await cli(['environments', 'get', env.id, '--client-secret', '-starts-with-a-dash'], { env: wrongEnv });
    expect(dashed.code, dashed.stderr).toBe(1);
    expect(dashed.stderr).toMatch(/^401 \w+: /);

    await ok(['accounts', 'list', '--url', server.baseUrl, '--user', 'root', '--secret', ROOT_SECRET], { env: {} });
    const conductorRefused = await cli(['accounts', 'list'], { env: { CC_URL: server.baseUrl, CONDUCTOR_USER: 'root', CONDUCTOR_SECRET: 'wrong' } });
    expect(conductorRefused.code).toBe(1);
    expect(conductorRefused.stderr).toMatch(/^401: /);
  });

  it('prefers the API\'s own URL variable to CC_URL, and --url to both', async () => {
    const closed = await closedPortUrl();
    const env = { ...defaultEnv(), CC_URL: closed, COMPLIANCE_URL: server.baseUrl, CONDUCTOR_URL: closed };
    await ok(['environments', 'list'], { env });
    expect((await cli(['accounts', 'list'], { env })).code).toBe(3);
    await ok(['accounts', 'list', '--url', server.baseUrl], { env });
  });
});

/** A URL on which nothing listens: a port just released. */
async function closedPortUrl(): Promise<string> {
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', () => r()));
  const { port } = probe.address() as AddressInfo;
  await new Promise((r) => probe.close(r));
  return `http://127.0.0.1:${port}`;
}

describe('exit codes', () => {
  it('1 when the API answers an error, with "status type: message" on stderr', async () => {
    const missing = await cli(['environments', 'get', '3f1c2a9e-8b7d-4c6e-9f10-2a3b4c5d6e7f']);
    expect(missing.code).toBe(1);
    expect(missing.stdout).toBe('');
    expect(missing.stderr).toMatch(/^404 NotFound: .+\n$/);
    const invalid = await cli(['environments', 'create', '--name', 'x', '--provider', 'provider_a', '--role-arn', 'not-an-arn']);
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toMatch(/^400 \w+: .*role_arn/);
  });

  it('1 for a conductor error, with its detail codes and locations', async () => {
    const run = await cli(['processes', 'get', 'no-such-process']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^404 [\w.]+: .+\n  [\w.]+: .*no-such-process/);
  });

  it('3 when the server cannot be reached', async () => {
    const run = await cli(['environments', 'list'], { env: { ...defaultEnv(), CC_URL: await closedPortUrl() } });
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/^compliance-conductor: cannot reach the server at http:\/\/127\.0\.0\.1:\d+: connect ECONNREFUSED/);
  });

  it('4 when a wait runs out of time, and the scan goes on', async () => {
    const env = await createEnvironment('slow');
    // No worker runs the scan's job meanwhile, so it stays IN_PROGRESS.
    const run = await cli(['scans', 'trigger', env.id, '--wait', '--timeout', '300ms', '--interval', '50ms']);
    expect(run.code).toBe(4);
    expect(run.stderr).toMatch(/timed out: scan [0-9a-f-]{36} was still IN_PROGRESS after 300 ms/);
    await runJobs();
  });

  it('5 when the awaited scan ends in ERROR, after printing it', async () => {
    const env = await createEnvironment('broken', BROKEN_ACCOUNT);
    const run = await cliWithJobs(['scans', 'trigger', env.id, '--wait', '--interval', '20ms']);
    expect(run.code).toBe(5);
    expect(run.stdout).toMatch(/^Status: +ERROR$/m);
    expect(run.stderr).toMatch(/scan [0-9a-f-]{36} ended in ERROR: .*simulated outage/);
  });
});

describe('environments', () => {
  it('creates from flags and from a JSON file, shows, lists as a table and as JSON, updates and deletes', async () => {
    const created = await ok(['environments', 'create', '--name', 'prod-eu', '--provider', 'provider_a', '--role-arn', roleArn(), '--regions', 'eu-west-1,eu-west-2', '--families', 'CIS', '--families', 'NIST']);
    expect(created.stdout).toMatch(/^Name: +prod-eu$/m);
    expect(created.stdout).toMatch(/^Families: +CIS,NIST$/m);
    expect(created.stdout).toMatch(/^Access: +arn:prova:iam::\d{12}:role\/scanner in eu-west-1,eu-west-2$/m);
    const id = /^ID: +([0-9a-f-]{36})$/m.exec(created.stdout)![1]!;

    const file = join(workDir, 'environment.json');
    await writeFile(file, JSON.stringify({ name: 'from-file', provider: 'provider_a', provider_options: { provider_a: { role_arn: roleArn(), regions: ['*'] } } }));
    const fromFile = (await ok(['environments', 'create', '--file', file, '--scan-interval', '3600', '--json'])).json();
    expect(fromFile).toMatchObject({ name: 'from-file', scan_interval: 3600, provider_options: { provider_a: { regions: ['*'] } } });

    const list = await ok(['environments', 'list']);
    const t = table(list.stdout);
    expect(t.header).toMatch(/^ID +NAME +PROVIDER +SCAN STATUS +LAST SCAN +NEXT SCAN$/);
    expect(t.rows).toHaveLength(2);
    const row = t.rows.find((r) => r.startsWith(id))!;
    expect(row.indexOf('prod-eu')).toBe(t.column('NAME'));
    expect(row.indexOf('provider_a')).toBe(t.column('PROVIDER'));
    expect(list.stdout).not.toContain('\x1b[');

    const json = (await ok(['environments', 'list', '--json'])).json();
    expect(json).toMatchObject({ count: 2, is_truncated: false });
    expect(json.items.map((e: any) => e.name).sort()).toEqual(['from-file', 'prod-eu']);
    const searched = (await ok(['environments', 'list', '--search', 'name:prod', '--json'])).json();
    expect(searched.items.map((e: any) => e.id)).toEqual([id]);

    const shown = await ok(['environments', 'get', id]);
    expect(shown.stdout).toMatch(/^Scan status: +-$/m);
    expect((await ok(['environments', 'get', id, '--json'])).json()).toMatchObject({ id, name: 'prod-eu', resource_summary: null });

    // --regions without --provider: the CLI reads the environment to learn under which provider they go.
    const updated = (await ok(['environments', 'update', id, '--schedule', 'off', '--regions', 'us-east-1', '--name', 'prod-us', '--json'])).json();
    expect(updated).toMatchObject({ name: 'prod-us', scan_schedule_enabled: false, provider_options: { provider_a: { regions: ['us-east-1'] } } });
    expect((await ok(['environments', 'update', id, '--body', '{"scan_interval": 7200}'])).stdout).toMatch(/^Scan schedule: +off$/m);

    expect((await ok(['environments', 'delete', id])).stdout).toBe(`Deleted environment ${id}.\n`);
    expect((await ok(['environments', 'delete', fromFile.id, '--json'])).stdout).toBe('');
    expect((await cli(['environments', 'get', id])).code).toBe(1);
  });

  it('follows every page, or stops at --max-items and tells where the list goes on', async () => {
    for (const name of ['a', 'b', 'c', 'd', 'e']) await createEnvironment(`paged-${name}`);
    const all = (await ok(['environments', 'list', '--page-size', '2', '--json'])).json();
    expect(all).toMatchObject({ count: 5, is_truncated: false });
    expect(new Set(all.items.map((e: any) => e.id)).size).toBe(5);

    const first = await ok(['environments', 'list', '--max-items', '3', '--page-size', '2', '--json']);
    expect(first.json()).toMatchObject({ count: 3, is_truncated: true, next_offset: 3 });
    const rest = (await ok(['environments', 'list', '--offset', '3', '--json'])).json();
    expect(rest).toMatchObject({ count: 2, is_truncated: false });
    expect([...first.json().items, ...rest.items].map((e: any) => e.id)).toEqual(all.items.map((e: any) => e.id));

    const shown = await ok(['environments', 'list', '--max-items', '2']);
    expect(table(shown.stdout).rows).toHaveLength(2);
    expect(shown.stderr).toBe('2 shown; more from --offset 2\n');
  });
});

describe('scans, events and results', () => {
  it('triggers and waits, lists, shows, and reads the results by rule and by resource type', async () => {
    const env = await createEnvironment('scanned');
    const waited = await cliWithJobs(['scans', 'trigger', env.id, '--wait', '--interval', '20ms']);
    expect(waited.code, waited.stderr).toBe(0);
    expect(waited.stdout).toMatch(/^Status: +SUCCESS$/m);
    expect(waited.stdout).toMatch(/^Resources: +\d+ \(\d+ compliant, \d+ noncompliant\) of \d+ types$/m);
    const scanId = /^ID: +([0-9a-f-]{36})$/m.exec(waited.stdout)![1]!;

    const started = (await ok(['scans', 'trigger', env.id, '--json'])).json();
    expect(started).toMatchObject({ environment_id: env.id, status: 'IN_PROGRESS' });
    const second = await cliWithJobs(['scans', 'wait', started.id, '--interval', '20ms', '--json']);
    expect(second.code).toBe(0);
    expect(second.json()).toMatchObject({ id: started.id, status: 'SUCCESS', resource_summary: { total: expect.any(Number) } });

    const list = await ok(['scans', 'list', '--environment-id', env.id]);
    expect(table(list.stdout).header).toMatch(/^ID +STATUS +STARTED +FINISHED +MESSAGE$/);
    expect(table(list.stdout).rows.map((r) => r.slice(0, 36)).sort()).toEqual([scanId, started.id].sort());
    expect(table(list.stdout).rows[0]).toMatch(/ \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}Z +\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}Z +-$/);
    const errors = (await ok(['scans', 'list', '--environment-id', env.id, '--status', 'error', '--json'])).json();
    expect(errors).toEqual({ count: 0, is_truncated: false, items: [] });

    expect((await ok(['scans', 'get', scanId, '--json'])).json()).toMatchObject({ id: scanId, status: 'SUCCESS' });
    expect((await ok(['scans', 'get', scanId])).stdout).toMatch(/^Rules: +\d+ passed, \d+ failed$/m);

    const byRule = (await ok(['scans', 'rules', scanId, '--json'])).json();
    expect(byRule.items.length).toBeGreaterThan(0);
    const failing = (await ok(['scans', 'rules', scanId, '--result', 'FAIL', '--family', 'CIS', '--json'])).json();
    expect(failing.items.every((r: any) => r.result === 'FAIL' && r.family === 'CIS')).toBe(true);
    const rulesTable = table((await ok(['scans', 'rules', scanId])).stdout);
    expect(rulesTable.header).toMatch(/^FAMILY +RULE ID +SEVERITY +RESULT +FAILED +RULE$/);
    expect(rulesTable.rows).toHaveLength(byRule.count);

    const byType = (await ok(['scans', 'resource-types', scanId, '--json'])).json();
    const type = byType.items[0].resource_type as string;
    const one = (await ok(['scans', 'resource-types', scanId, '--resource-type', type, '--json'])).json();
    expect(one.items.map((t: any) => t.resource_type)).toEqual([type]);
    const typesTable = table((await ok(['scans', 'resource-types', scanId])).stdout);
    expect(typesTable.header).toMatch(/^RESOURCE TYPE +TOTAL +COMPLIANT +NONCOMPLIANT$/);
    // Counts are right-aligned: each ends where its header ends.
    const totalEnd = typesTable.column('TOTAL') + 'TOTAL'.length;
    for (const row of typesTable.rows) expect(row[totalEnd - 1]).toMatch(/\d/);
  });

  it('lists events as a table and as JSON, with filters', async () => {
    const env = await createEnvironment('eventful');
    await finishedScan(env.id);
    // Drift needs a baseline; the second scan compares with it and with the first scan's compliance.
    const baseline = (await ok(['scans', 'list', '--environment-id', env.id, '--json'])).json().items[0].id as string;
    await ok(['environments', 'update', env.id, '--baseline', baseline]);
    for (let i = 0; i < 2; i += 1) {
      server.clock.advanceSeconds(86_400);
      await finishedScan(env.id);
    }
    const all = (await ok(['events', 'list', '--environment-id', env.id, '--json'])).json();
    expect(all.is_truncated).toBe(false);
    const shown = await ok(['events', 'list', '--environment-id', env.id]);
    expect(table(shown.stdout).header).toMatch(/^TIME +TYPE +SCAN +WHAT$/);
    expect(table(shown.stdout).rows).toHaveLength(all.count);
    const compliance = (await ok(['events', 'list', '--environment-id', env.id, '--type', 'COMPLIANCE', '--from', '2026-06-01', '--json'])).json();
    expect(compliance.items.every((e: any) => e.event_type === 'COMPLIANCE')).toBe(true);
    const none = (await ok(['events', 'list', '--environment-id', env.id, '--to', '2000-01-01T00:00Z', '--json'])).json();
    expect(none.items).toEqual([]);
  });
});

describe('custom rules and metadata', () => {
  it('creates, lists, shows, tests on a scan and deletes a custom rule', async () => {
    const env = await createEnvironment('rules');
    const scan = await finishedScan(env.id);
    const ruleFile = join(workDir, 'versioning.cel');
    await writeFile(ruleFile, 'resource.properties.versioning == "Enabled"\n');
    const created = await ok([
      'rules', 'create', '--name', 'Bucket versioning', '--resource-type', 'PROVA.S3.Bucket', '--rule-file', ruleFile,
      '--severity', 'high', '--providers', 'PROVIDER_A', '--families', 'CIS',
    ]);
    expect(created.stdout).toMatch(/^Severity: +High$/m);
    expect(created.stdout).toMatch(/^Rule: +resource\.properties\.versioning == "Enabled"$/m);
    const id = /^ID: +([0-9a-f-]{36})$/m.exec(created.stdout)![1]!;

    const conflict = await cli(['rules', 'create', '--body', JSON.stringify({ name: 'bucket VERSIONING', resource_type: 'PROVA.S3.Bucket', rule_text: 'true' })]);
    expect(conflict.code).toBe(1);
    expect(conflict.stderr).toMatch(/^409 \w+: /);

    const list = await ok(['rules', 'list']);
    expect(table(list.stdout).header).toMatch(/^ID +NAME +RESOURCE TYPE +SEVERITY +STATUS +PROVIDERS$/);
    expect(table(list.stdout).rows).toEqual([expect.stringMatching(new RegExp(`^${id} +Bucket versioning +PROVA\\.S3\\.Bucket +High +ENABLED +PROVIDER_A$`))]);
    expect((await ok(['rules', 'list', '--status', 'disabled', '--json'])).json().items).toEqual([]);
    expect((await ok(['rules', 'list', '--search', 'severity:High', '--json'])).json().items.map((r: any) => r.id)).toEqual([id]);
    expect((await ok(['rules', 'get', id, '--json'])).json()).toMatchObject({ id, status: 'ENABLED', families: ['CIS'] });

    const tested = await ok(['rules', 'test', '--scan-id', scan.id, '--resource-type', 'PROVA.S3.Bucket', '--rule-text', 'resource.properties.versioning == "Enabled"', '--json']);
    const result = tested.json();
    expect(result).toMatchObject({ result: expect.stringMatching(/^(PASS|FAIL)$/), errors: [] });
    const shown = await ok(['rules', 'test', '--scan-id', scan.id, '--resource-type', 'PROVA.S3.Bucket', '--rule-file', ruleFile]);
    expect(shown.stdout).toMatch(new RegExp(`^Result: +${result.result}$`, 'm'));
    expect(shown.stdout).toMatch(/^RESOURCE +RESULT +MESSAGE$/m);
    const broken = await cli(['rules', 'test', '--scan-id', scan.id, '--resource-type', 'PROVA.S3.Bucket', '--rule-text', 'resourc.x']);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toMatch(/^400 \w+: rule_text: /);

    expect((await ok(['rules', 'delete', id])).stdout).toBe(`Deleted custom rule ${id}.\n`);
    expect((await cli(['rules', 'get', id])).code).toBe(1);
  });

  it('shows the resource types and the permissions of a provider', async () => {
    const types = (await ok(['metadata', 'resource-types', 'provider_a', '--json'])).json();
    expect(types.resource_types).toContain('PROVA.S3.Bucket');
    await ok(['metadata', 'resource-types', 'provider_a', '--region', 'us-east-1']);
    const wrongRegion = await cli(['metadata', 'resource-types', 'provider_a', '--region', 'us-gov-west-1']);
    expect(wrongRegion.code).toBe(1);
    expect(wrongRegion.stderr).toMatch(/^400 \w+: .*us-gov-west-1/);
    const shown = table((await ok(['metadata', 'resource-types', 'provider_a'])).stdout);
    expect(shown.header).toMatch(/^RESOURCE TYPE +RECOMMENDED$/);
    expect(shown.rows).toHaveLength(types.resource_types.length);

    const permissions = (await ok(['metadata', 'permissions', 'provider_a', '--survey-types', 'PROVA.S3.Bucket', '--json'])).json();
    expect(permissions.provider_a.survey_actions.length).toBeGreaterThan(0);
    const rows = table((await ok(['metadata', 'permissions', 'provider_a', '--survey-types', 'PROVA.S3.Bucket'])).stdout).rows;
    expect(rows.filter((r) => r.startsWith('survey '))).toHaveLength(permissions.provider_a.survey_actions.length);
  });
});

describe('conductor: accounts and processes', () => {
  it('adds, lists and removes accounts', async () => {
    const { name, accountId } = nextConductorAccount();
    const added = await ok(['accounts', 'add', '--name', name, '--provider', 'provider_a', '--account-id', accountId]);
    expect(table(added.stdout).header).toMatch(/^NAME +PROVIDER +ACCOUNT ID +PROCESSES +CREATED$/);
    const listed = (await ok(['accounts', 'list', '--json'])).json();
    expect(listed.items).toContainEqual(expect.objectContaining({ name, account_id: accountId, process_count: 0 }));
    expect(table((await ok(['accounts', 'list'])).stdout).rows.some((r) => r.startsWith(`${name} `))).toBe(true);
    expect((await ok(['accounts', 'remove', name])).stdout).toBe(`Removed account ${name}.\n`);
    const again = await cli(['accounts', 'remove', name, '--json']);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^404 /);
  });

  it('creates processes from a directory and from a tar.gz, and reads, updates, inspects and ends them', async () => {
    const account = await addAccount();
    const alias = `web-${process.pid}-${Date.now() % 100_000}`;
    const created = await ok(['processes', 'create', await compositionDir(), '--account', account.name, '--alias', alias]);
    expect(created.stdout).toMatch(new RegExp(`^Alias: +${alias}$`, 'm'));
    expect(created.stdout).toMatch(/^NAME +TYPE +REGION +STATUS +RESOURCE ID$/m);
    await runJobs();
    const fid = /^FID: +([0-9a-f-]{36})$/m.exec(created.stdout)![1]!;

    const archive = join(workDir, 'composition.tar.gz');
    await writeFile(archive, gzipSync(await tarDirectory(await compositionDir([WEB_RESOURCES[0]]))));
    const fromArchive = (await ok(['processes', 'create', archive, '--account', account.name, '--json'])).json();
    expect(fromArchive.resources.map((r: any) => r.name)).toEqual(['assets']);
    await runJobs();

    const list = await ok(['processes', 'list', '--account', account.name]);
    expect(table(list.stdout).header).toMatch(/^FID +ALIAS +ACCOUNT +STATE +ENFORCEMENT +LOCK +RESOURCES +UPDATED$/);
    expect(table(list.stdout).rows).toHaveLength(2);
    expect((await ok(['processes', 'list', '--json'])).json().items.map((p: any) => p.fid)).toEqual(expect.arrayContaining([fid, fromArchive.fid]));

    const got = (await ok(['processes', 'get', alias, '--json'])).json();
    expect(got).toMatchObject({ fid, state: 'RUNNING', resources: [expect.objectContaining({ status: 'present' }), expect.objectContaining({ status: 'present' })] });

    const locked = (await ok(['processes', 'update', alias, '--lock', 'on', '--enforcement', 'off', '--json'])).json();
    expect(locked).toMatchObject({ fid, lock: true, enforcement: false, state: 'RUNNING' });
    const refused = await cli(['processes', 'kill', alias]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^409 /);
    const unlocked = await ok(['processes', 'update', alias, '--lock', 'off', '--action', 'suspend']);
    expect(unlocked.stdout).toMatch(/^State: +SUSPENDED$/m);
    await ok(['processes', 'update', alias, '--body', '{"action":"resume"}']);
    await runJobs();

    const recomposed = await ok(['processes', 'update-composition', alias, await compositionDir([WEB_RESOURCES[1]])]);
    expect(recomposed.stdout).toMatch(new RegExp(`^Composition of ${fid} accepted; job [0-9a-f-]{36} applies it`));
    await runJobs();

    const history = await ok(['processes', 'history', alias]);
    expect(table(history.stdout).header).toMatch(/^TIME +EVENT +ACTOR +JOB +DETAILS$/);
    const events = (await ok(['processes', 'history', fid, '--json'])).json().items.map((h: any) => h.event);
    expect(events).toEqual(expect.arrayContaining(['created', 'lock_changed', 'enforcement_changed', 'suspended', 'resumed', 'composition_updated']));
    const ranged = (await ok(['processes', 'history', fid, '--start', '2000-01-01T00:00Z', '--end', '01/01/2001 00:00', '--json'])).json();
    expect(ranged.items).toEqual([]);

    const ops = (await ok(['processes', 'ops', alias, '--json'])).json();
    const firstOps = (await ok(['processes', 'ops', alias, '--first', '--json'])).json();
    expect(firstOps.items.map((o: any) => o.operation)).toEqual(['create', 'create']);
    const lastOps = (await ok(['processes', 'ops', alias, '--last', '--json'])).json();
    expect(lastOps.items.map((o: any) => o.operation)).toEqual(['delete']);
    const job = firstOps.items[0].job_id as string;
    expect((await ok(['processes', 'ops', alias, '--job', job, '--json'])).json()).toEqual(firstOps);
    const opsTable = table((await ok(['processes', 'ops', alias])).stdout);
    expect(opsTable.header).toMatch(/^TIME +OPERATION +RESOURCE +TYPE +STATUS +JOB +MESSAGE$/);
    expect(opsTable.rows).toHaveLength(ops.count);

    const killed = await ok(['processes', 'kill', alias]);
    expect(killed.stdout).toMatch(new RegExp(`^Process ${fid} is KILL(ING|ED); job [0-9a-f-]{36} deletes its resources`));
    await runJobs();
    expect((await ok(['processes', 'get', fid, '--json'])).json().state).toBe('KILLED');

    const released = (await ok(['processes', 'release', fromArchive.fid, '--json'])).json();
    expect(released).toEqual({ fid: fromArchive.fid, status: 'Released' });
    expect((await ok(['processes', 'release', fid])).stdout).toBe(`Released process ${fid}; its resources are left in the cloud.\n`);
  });
});

describe('conductor: dry-runs, validations and rbac', () => {
  it('submits dry-runs and waits for them: SUCCEEDED exits 0 with the plan, FAILED exits 5 with the reasons', async () => {
    const account = await addAccount();
    const planned = await cliWithJobs(['dry-run', 'submit', 'run', join(EXAMPLES, 'composition'), '--account', account.name, '--wait']);
    expect(planned.code, planned.stderr).toBe(0);
    expect(planned.stdout).toMatch(/^Status: +SUCCEEDED$/m);
    expect(planned.stdout).toMatch(/^OPERATION +RESOURCE +TYPE +RESOURCE ID +CHANGES$/m);
    expect(planned.stdout).toMatch(/^create +web-assets +PROVA\.S3\.Bucket +- +encryption,versioning,/m);

    const process = await createProcess(account.name);
    const accepted = (await ok(['dry-run', 'submit', 'KILL', '--process', process.fid, '--json'])).json();
    expect(accepted).toEqual({ id: expect.any(String), status: 'PENDING' });
    const pending = await ok(['dry-run', 'get', accepted.id]);
    expect(pending.stdout).toMatch(/^Status: +PENDING$/m);
    const waited = await cliWithJobs(['dry-run', 'wait', accepted.id, '--json']);
    expect(waited.code).toBe(0);
    expect(waited.json()).toMatchObject({ id: accepted.id, command: 'KILL', status: 'SUCCEEDED', plan: [{ operation: 'delete' }, { operation: 'delete' }] });

    // Resuming a running process is an illegal state change: the dry-run ends FAILED.
    const failed = await cliWithJobs(['dry-run', 'submit', 'resume', '--process', process.fid, '--wait', '--json']);
    expect(failed.code).toBe(5);
    expect(failed.json()).toMatchObject({ command: 'RESUME', status: 'FAILED', errors: [expect.objectContaining({ message: expect.any(String) })] });
    expect(failed.stderr).toMatch(/^dry-run [0-9a-f-]{36} FAILED: .+/);

    const timedOut = await cli(['dry-run', 'submit', 'KILL', '--process', process.fid, '--wait', '--timeout', '200ms', '--interval', '50ms']);
    expect(timedOut.code).toBe(4);
    expect(timedOut.stderr).toMatch(/timed out: dry-run [0-9a-f-]{36} was still PENDING/);
    await runJobs();
  });

  it('uploads, lists, shows, downloads and deletes a validation library', async () => {
    const name = `cli-${process.pid}-${Date.now() % 100_000}`;
    const uploaded = await ok(['validations', 'upload', name, join(EXAMPLES, 'validation')]);
    try {
      expect(table(uploaded.stdout).header).toMatch(/^NAME +RULES +SIZE +SHA256 +CREATED$/);
      expect(table(uploaded.stdout).rows).toEqual([expect.stringMatching(new RegExp(`^${name} +4 `))]);
      expect((await ok(['validations', 'list', '--prefix', name, '--json'])).json().items.map((v: any) => v.name)).toEqual([name]);
      expect(table((await ok(['validations', 'list', '--prefix', name])).stdout).rows).toHaveLength(1);
      const library = (await ok(['validations', 'get', name, '--json'])).json();
      expect(library).toMatchObject({ name, rule_count: 4 });

      const expected = await tarDirectory(join(EXAMPLES, 'validation'));
      const toStdout = await ok(['validations', 'download', name]);
      expect(new Uint8Array(toStdout.bytes)).toEqual(expected);
      const file = join(workDir, 'rules.tar');
      const written = await ok(['validations', 'download', name, '--output', file]);
      expect(written.stdout).toBe(`Wrote validation library ${name} (${expected.byteLength} bytes) to ${file}.\n`);
      expect(new Uint8Array(await readFile(file))).toEqual(expected);
      expect((await ok(['validations', 'download', name, '-o', file, '--json'])).json()).toEqual({ path: file, size: expected.byteLength });
      const onTerminal = await cli(['validations', 'download', name], { tty: true });
      expect(onTerminal.code).toBe(2);
      expect(onTerminal.stderr).toContain('is a binary archive: give --output <path> or redirect stdout');
    } finally {
      expect((await ok(['validations', 'delete', name])).stdout).toBe(`Deleted validation library ${name}.\n`);
    }
    expect((await cli(['validations', 'get', name])).code).toBe(1);
  });

  it('attaches a policy, lists its users, gives one a secret the CLI then signs in with, downloads and detaches it', async () => {
    const attached = await ok(['rbac', 'attach', join(EXAMPLES, 'policy')]);
    try {
      expect(attached.stdout).toMatch(/^Applied: +yes$/m);
      expect(attached.stdout).toMatch(/^Users: +2$/m);
      expect((await ok(['rbac', 'status', '--json'])).json()).toMatchObject({ applied: true, users: 2, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
      const users = await ok(['rbac', 'users']);
      expect(table(users.stdout).header).toMatch(/^NAME +HAS SECRET +SECRET CREATED$/);
      expect(table(users.stdout).rows).toEqual([
        expect.stringMatching(/^root +yes +\d{4}-\d{2}-\d{2} [\d:]{8}Z$/),
        expect.stringMatching(/^alice +no +-$/),
        expect.stringMatching(/^bob +no +-$/),
      ]);

      const { secret } = (await ok(['rbac', 'new-secret', 'bob', '--json'])).json();
      expect(secret.length).toBeGreaterThanOrEqual(43);
      const asBob = { CC_URL: server.baseUrl, CONDUCTOR_USER: 'bob', CONDUCTOR_SECRET: secret };
      await ok(['accounts', 'list'], { env: asBob });
      const forbidden = await cli(['accounts', 'add', '--name', 'not-allowed', '--provider', 'provider_a', '--account-id', '999999999999'], { env: asBob });
      expect(forbidden.code).toBe(1);
      expect(forbidden.stderr).toMatch(/^403 /);
      expect((await ok(['rbac', 'new-secret', 'alice'])).stdout).toMatch(/^User: +alice\nSecret: +\S{43,}\n$/);
      const root = await cli(['rbac', 'new-secret', 'root']);
      expect(root.code).toBe(1);

      const downloaded = await ok(['rbac', 'download']);
      const policy = gunzipOrSelf(downloaded.bytes).toString('latin1');
      expect(policy).toContain('policy.yaml');
      expect(policy).toContain('principals: [alice]');
    } finally {
      expect((await ok(['rbac', 'detach'])).stdout).toMatch(/^Applied: +no$/m);
    }
  });
});

function gunzipOrSelf(bytes: Buffer): Buffer {
  return bytes[0] === 0x1f && bytes[1] === 0x8b ? gunzipSync(bytes) : bytes;
}

describe('output', () => {
  it('makes table headers bold on a terminal only, and never with NO_COLOR', async () => {
    await createEnvironment('styled');
    const terminal = await ok(['environments', 'list'], { tty: true });
    expect(terminal.stdout.split('\n')[0]).toMatch(/^\x1b\[1mID +NAME .*\x1b\[0m$/);
    const noColor = await ok(['environments', 'list'], { tty: true, env: { ...defaultEnv(), NO_COLOR: '1' } });
    expect(noColor.stdout).not.toContain('\x1b[');
    expect((await ok(['environments', 'list', '--json'], { tty: true })).stdout).not.toContain('\x1b[');
  });
});

describe('progress while waiting', () => {
  /** The texts a run drew on its progress line, in order; an empty one is the line erased. */
  const frames = (stderr: string) => stderr.split('\r\x1b[K').slice(1);

  it('shows the state and the time waited on a terminal, redrawn in place, and erases it before the scan', async () => {
    const env = await createEnvironment('watched');
    // The scan is worked once the line shows it IN_PROGRESS for a second or more.
    const run = await cliWithJobs(['scans', 'trigger', env.id, '--wait', '--interval', '200ms'], { tty: true }, (stderr) => /IN_PROGRESS, [1-9]\d*s/.test(stderr));
    expect(run.code, run.stderr).toBe(0);
    const shown = run.stdout.replace(/\x1b\[[0-9;]*m/g, '');
    const id = /^ID: +(\S+)$/m.exec(shown)?.[1];
    const drawn = frames(run.stderr);
    expect(drawn[0]).toBe(`scan ${id}: waiting, 0s`);
    // The first state read is shown as soon as it is read, then the time moves on.
    expect(drawn.find((frame) => !frame.startsWith(`scan ${id}: waiting, `))).toMatch(new RegExp(`^scan ${id}: IN_PROGRESS, \\d+s$`));
    expect(drawn).toContainEqual(expect.stringMatching(new RegExp(`^scan ${id}: IN_PROGRESS, [1-9]\\d*s$`)));
    expect(drawn.at(-2)).toMatch(new RegExp(`^scan ${id}: SUCCESS, [1-9]\\d*s$`));
    expect(drawn.at(-1)).toBe('');
    expect(run.stderr).not.toContain('\n');
    expect(run.stdout).not.toContain('\r');
    expect(shown).toMatch(/^Status: +SUCCESS$/m);
  });

  it('moves the time on while a dry-run\'s long poll is pending', async () => {
    const account = await addAccount();
    // The dry-run is worked once the line has moved on to a second or more with no answer to the long poll yet.
    const run = await cliWithJobs(['dry-run', 'submit', 'run', join(EXAMPLES, 'composition'), '--account', account.name, '--wait'], { tty: true }, (stderr) =>
      /waiting, [1-9]\d*s/.test(stderr),
    );
    expect(run.code, run.stderr).toBe(0);
    const drawn = frames(run.stderr);
    expect(drawn[0]).toMatch(/^dry-run [0-9a-f-]{36}: waiting, 0s$/);
    expect(drawn).toContainEqual(expect.stringMatching(/^dry-run [0-9a-f-]{36}: waiting, [1-9]\d*s$/));
    expect(drawn.at(-2)).toMatch(/^dry-run [0-9a-f-]{36}: SUCCEEDED, [1-9]\d*s$/);
    expect(drawn.at(-1)).toBe('');
  });

  it('shows nothing with --json, nor when stdout is not a terminal', async () => {
    const env = await createEnvironment('unwatched');
    // The scan is worked once the wait has read it IN_PROGRESS at least once.
    const jsonPolls = scanPolls();
    const json = await cliWithJobs(['scans', 'trigger', env.id, '--wait', '--interval', '100ms', '--json'], { tty: true }, () => jsonPolls() >= 2);
    expect(json.code, json.stderr).toBe(0);
    expect(json.stderr).toBe('');
    expect(json.json()).toMatchObject({ status: 'SUCCESS' });
    const pipedPolls = scanPolls();
    const piped = await cliWithJobs(['scans', 'trigger', env.id, '--wait', '--interval', '100ms'], { tty: false }, () => pipedPolls() >= 2);
    expect(piped.code, piped.stderr).toBe(0);
    expect(piped.stderr).toBe('');
  });
});

describe('the installed program', () => {
  it('runs as a process: prints the table, exits with the documented codes', async () => {
    await createEnvironment('spawned');
    const spawn = (args: string[], env: Record<string, string>) =>
      new Promise<{ code: number; stdout: string; stderr: string }>((done) => {
        execFile(process.execPath, ['--import', 'tsx', ENTRY, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, cwd: resolve(import.meta.dirname, '../..') }, (error, stdout, stderr) =>
          done({ code: error ? Number(error.code) : 0, stdout, stderr }),
        );
      });
    const listed = await spawn(['environments', 'list'], defaultEnv());
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/^ID +NAME +PROVIDER/);
    expect(listed.stdout).toContain('spawned');
    const unknown = await spawn(['environments', 'frobnicate'], defaultEnv());
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown command 'frobnicate' in environments");
    const refused = await spawn(['environments', 'list'], { ...defaultEnv(), COMPLIANCE_CLIENT_SECRET: 'wrong' });
    expect(refused.code).toBe(1);
  });
});

/** Copies the program's terminal to stdout: stdout and stderr both, with the terminal's `\n` → `\r\n`. */
const PTY_RUNNER = 'import os, pty, sys; sys.exit(os.waitstatus_to_exitcode(pty.spawn(sys.argv[1:])))';
const hasPython = spawnSync('python3', ['-c', 'import pty'], { stdio: 'ignore' }).status === 0;
if (!hasPython) console.warn('CLI progress under a pseudo-terminal not tested: python3 not found');

/**
 * Runs the real entry point as a process, through pipes or under a pseudo-terminal (python3's pty module). The job
 * queue is worked once its output so far satisfies `jobsWhen` (or the process has ended), so what it waits for stays
 * pending until then; nothing gives up on the condition but the test's own timeout.
 */
async function spawnWithJobs(args: string[], options: { terminal: boolean; jobsWhen: (stdout: string) => boolean }): Promise<{ code: number; stdout: string; stderr: string }> {
  const program = [process.execPath, '--import', 'tsx', ENTRY, ...args];
  const [file, argv] = options.terminal ? ['python3', ['-c', PTY_RUNNER, ...program]] : [program[0]!, program.slice(1)];
  const child = spawn(file, argv, { env: { PATH: process.env.PATH ?? '', ...defaultEnv() }, cwd: resolve(import.meta.dirname, '../..'), stdio: ['ignore', 'pipe', 'pipe'] });
  let [stdout, stderr] = ['', ''];
  child.stdout.on('data', (chunk: Buffer) => void (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => void (stderr += chunk.toString('utf8')));
  const exited = new Promise<number>((done) => child.on('close', (code) => done(code ?? -1)));
  let finished = false;
  void exited.then(() => (finished = true));
  while (!finished && !options.jobsWhen(stdout)) await new Promise((r) => setTimeout(r, 50));
  while (!finished) {
    if (!(await server.services.jobs.runOnce())) await new Promise((r) => setTimeout(r, 20));
  }
  return { code: await exited, stdout, stderr };
}

describe('progress of the installed program', () => {
  it('is not drawn when its output goes to pipes', async () => {
    const env = await createEnvironment('piped');
    // Its first polls go by before the scan is worked: it has read the scan IN_PROGRESS at least once.
    const polls = scanPolls();
    const run = await spawnWithJobs(['scans', 'trigger', env.id, '--wait', '--interval', '100ms'], { terminal: false, jobsWhen: () => polls() >= 2 });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^Status: +SUCCESS$/m);
    expect(run.stderr).toBe('');
    expect(run.stdout).not.toContain('\r');
  }, 30_000);

  (hasPython ? it : it.skip)('is drawn on a terminal, and not with --json', async () => {
    const env = await createEnvironment('on-a-terminal');
    // The scan is worked once the line shows it IN_PROGRESS for a second or more.
    const run = await spawnWithJobs(['scans', 'trigger', env.id, '--wait', '--interval', '100ms'], { terminal: true, jobsWhen: (output) => /IN_PROGRESS, [1-9]\d*s/.test(output) });
    expect(run.code, run.stdout).toBe(0);
    const shown = run.stdout.replace(/\x1b\[[0-9;]*m/g, '');
    const id = /ID: +([0-9a-f-]{36})\r\n/.exec(shown)?.[1];
    expect(shown).toMatch(new RegExp(`\r\x1b\\[Kscan ${id}: IN_PROGRESS, [1-9]\\d*s`));
    // Erased before the scan is printed, which starts at the beginning of a clean line.
    expect(shown).toMatch(new RegExp(`\r\x1b\\[Kscan ${id}: SUCCESS, [1-9]\\d*s\r\x1b\\[KID:`));

    const polls = scanPolls();
    const json = await spawnWithJobs(['scans', 'trigger', env.id, '--wait', '--interval', '100ms', '--json'], { terminal: true, jobsWhen: () => polls() >= 2 });
    expect(json.code, json.stdout).toBe(0);
    expect(json.stdout).not.toContain('\x1b');
    expect(JSON.parse(json.stdout.replace(/\r\n/g, '\n'))).toMatchObject({ id: expect.any(String), status: 'SUCCESS' });
  }, 30_000);
});
