import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFile, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { tarDirectory } from '../../client/src/node.js';
import { nextAccount as nextRoleAccount } from './compliance.js';
import { nextAccount as nextConductorAccount } from './conductor.js';
import { DATABASE_TARGETS, openTestDatabase } from './databases.js';
import { filesTar } from './fixtures/archives.js';
import { ROOT_SECRET, startTestServer, type TestServer } from './server.js';
import { expect } from './expect.js';

/**
 * The client as its users get it: `npm pack` of the built package, installed from the tarball into a scratch
 * project outside the repository, type-checked there (a Node program, the browser example, the typed errors) and run
 * against a live server.
 */
const CLIENT_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'client');
const EXAMPLES_DIR = join(CLIENT_DIR, 'examples');

/** The environment for npm and node children: npm's own variables of the parent run (workspace, prefix...) left out. */
const childEnv = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({
  ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith('npm_'))),
  ...extra,
});

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command without blocking the event loop (the server under test answers from this process). */
const run = (command: string, args: string[], cwd: string, env = childEnv(), timeoutMs = 240_000): Promise<Run> =>
  new Promise((resolve) => {
    execFile(command, args, { cwd, env, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, stdout: String(stdout), stderr: String(stderr) });
    });
  });

const succeeded = (result: Run, what: string): Run => {
  expect(result.code, `${what} failed:\n${result.stdout}\n${result.stderr}`).toBe(0);
  return result;
};

const tsc = (project: string, cwd: string) => run(join(cwd, 'node_modules', '.bin', 'tsc'), ['-p', project], cwd);

const NODE_TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    lib: ['ES2022'],
    types: ['node'],
    strict: true,
    skipLibCheck: false,
    outDir: 'out',
  },
  files: ['node.ts'],
};

/** What a page's script gets: the DOM and the language, no Node types at all. */
const BROWSER_TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    lib: ['DOM', 'ES2022'],
    types: [],
    strict: true,
    noUncheckedIndexedAccess: true,
    skipLibCheck: false,
    noEmit: true,
  },
  files: ['browser.ts', 'typed-errors.ts'],
};

const RULES_YAML = `rules:
  - id: owner-tag
    resource_type: "*"
    expression: '"owner" in resource.tags'
    message: Every resource needs an owner tag
`;

const COMPOSITION_YAML = `resources:
  - name: web-assets
    type: PROVA.S3.Bucket
    properties: { versioning: Enabled }
    tags: { owner: web }
  - name: web-jobs
    type: PROVA.SQS.Queue
    region: us-east-1
    properties: { visibility_timeout_seconds: 30 }
    tags: { owner: web }
`;

describe('the client package, packed and installed', () => {
  let work: string;
  let project: string;
  let tarball: string;

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'client-package-'));
    // prepack builds the package, so the tarball always holds what the sources compile to now.
    succeeded(await run('npm', ['pack', '--pack-destination', work], CLIENT_DIR), 'npm pack');
    const packed = (await readdir(work)).filter((name) => name.endsWith('.tgz'));
    expect(packed).toHaveLength(1);
    tarball = join(work, packed[0]!);

    project = join(work, 'project');
    await mkdir(project);
    await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'client-consumer', private: true, type: 'module' }, null, 2));
    succeeded(
      await run('npm', ['install', tarball, 'typescript@5.9.3', '@types/node@20.19.43', '--prefer-offline', '--no-audit', '--no-fund'], project),
      'npm install',
    );
    for (const example of ['node.ts', 'browser.ts', 'typed-errors.ts']) await copyFile(join(EXAMPLES_DIR, example), join(project, example));
    await writeFile(join(project, 'tsconfig.json'), JSON.stringify(NODE_TSCONFIG, null, 2));
    await writeFile(join(project, 'tsconfig.browser.json'), JSON.stringify(BROWSER_TSCONFIG, null, 2));
  }, 360_000);

  afterAll(async () => {
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('the tarball holds the compiled entry points, their declarations, the generated types, the examples, the README and the licence, and no sources or tests', async () => {
    const listing = succeeded(await run('tar', ['-tzf', tarball], work), 'tar -tzf').stdout.split('\n').filter(Boolean);
    for (const file of [
      'package/package.json',
      'package/README.md',
      'package/dist/index.js',
      'package/dist/index.d.ts',
      'package/dist/node.js',
      'package/dist/node.d.ts',
      'package/dist/generated/compliance.d.ts',
      'package/dist/generated/conductor.d.ts',
      'package/dist/generated/console.d.ts',
      'package/examples/node.ts',
      'package/examples/browser.ts',
      'package/LICENSE',
    ]) {
      expect(listing).toContain(file);
    }
    const outside = listing.filter((file) => !file.startsWith('package/dist/') && !file.startsWith('package/examples/'));
    expect(outside.sort()).toEqual(['package/LICENSE', 'package/README.md', 'package/package.json']);
    expect(listing.filter((file) => /\.test\.|\/src\//.test(file) || (file.startsWith('package/dist/') && file.endsWith('.ts') && !file.endsWith('.d.ts')))).toEqual([]);
  });

  it('depends on openapi-fetch only, and exports the main and the node entry points', async () => {
    const manifest = JSON.parse(await readFile(join(project, 'node_modules', '@compliance-conductor', 'client', 'package.json'), 'utf8'));
    expect(manifest.dependencies).toEqual({ 'openapi-fetch': '^0.17.0' });
    expect(manifest.devDependencies).toBeUndefined();
    expect(Object.keys(manifest.exports)).toEqual(expect.arrayContaining(['.', './node']));
    expect(manifest.type).toBe('module');
    // The main entry point must load where there is no Node: it imports nothing but itself and openapi-fetch.
    const index = join(project, 'node_modules', '@compliance-conductor', 'client', 'dist');
    for (const file of (await readdir(index)).filter((name) => name.endsWith('.js') && name !== 'node.js')) {
      const source = await readFile(join(index, file), 'utf8');
      const imports = [...source.matchAll(/from\s+['"]([^'"]+)['"]/g)].map((match) => match[1]);
      expect(imports.filter((specifier) => specifier !== 'openapi-fetch' && !specifier!.startsWith('./')), file).toEqual([]);
    }
  });

  it('loads with require() as well as import', async () => {
    const script = "const c = require('@compliance-conductor/client'); const n = require('@compliance-conductor/client/node'); console.log(typeof c.createComplianceClient, typeof n.readArchive);";
    expect(succeeded(await run(process.execPath, ['-e', script], project), 'require').stdout.trim()).toBe('function function');
  });

  it('installs the compliance-conductor command', async () => {
    const help = succeeded(await run(join(project, 'node_modules', '.bin', 'compliance-conductor'), ['--help'], project), 'compliance-conductor --help');
    expect(help.stdout).toContain('compliance-conductor');
  });

  it('the browser example and the typed-error checks compile with the DOM library and no Node types', async () => {
    succeeded(await tsc('tsconfig.browser.json', project), 'tsc (browser)');
  });

  /**
   * Code that must not compile, in one project compiled once (each file's errors are told apart by file name):
   * Node APIs in browser code, and a status the operation does not document.
   */
  let refusedCompile: Promise<Run> | undefined;
  const compileRefused = () =>
    (refusedCompile ??= (async () => {
      const browser = await readFile(join(project, 'browser.ts'), 'utf8');
      await writeFile(
        join(project, 'browser-with-node.ts'),
        `import { readFile } from 'node:fs/promises';\n${browser}\nexport const home = process.env.HOME;\nexport const read = readFile;\n`,
      );
      // typed-errors.ts marks each wrong use `@ts-expect-error` (such a line that compiled would fail the compile
      // above); here a wrong status stands alone.
      await writeFile(
        join(project, 'wrong-status.ts'),
        `import { results, createComplianceClient } from '@compliance-conductor/client';
const client = createComplianceClient({ baseUrl: 'https://example.com', auth: { user: 'u', secret: 's' } });
export async function conflict(): Promise<409 | undefined> {
  const result = await results(client).GET('/scans/{scan_id}', { params: { path: { scan_id: 'x' } } });
  if (result.ok) return undefined;
  const status: 409 = result.status;
  return status;
}
`,
      );
      await writeFile(join(project, 'tsconfig.refused.json'), JSON.stringify({ ...BROWSER_TSCONFIG, files: ['browser-with-node.ts', 'wrong-status.ts'] }));
      return tsc('tsconfig.refused.json', project);
    })());

  it('a Node API in browser code fails that compile', async () => {
    const result = await compileRefused();
    expect(result.code).not.toBe(0);
    expect(result.stdout).toMatch(/browser-with-node\.ts\(1,\d+\): error TS2307: Cannot find module 'node:fs\/promises'/);
    expect(result.stdout).toMatch(/browser-with-node\.ts\(\d+,\d+\): error TS\d+: Cannot find name 'process'/);
  });

  it('a status the operation does not document fails the compile', async () => {
    const result = await compileRefused();
    expect(result.code).not.toBe(0);
    const [error] = result.stdout.split('\n').filter((line) => line.startsWith('wrong-status.ts'));
    expect(error).toMatch(/^wrong-status\.ts\(6,9\): error TS2322: Type '(\d+ \| )+\d+' is not assignable to type '409'/);
    // The union is exactly getScan's documented error statuses.
    expect(error!.match(/Type '([^']+)'/)![1]!.split(' | ').map(Number).sort((a, b) => a - b)).toEqual([400, 401, 403, 404, 500]);
  });

  describe('the Node example against a live server', () => {
    let server: TestServer;
    let dispose: () => Promise<void>;

    beforeAll(async () => {
      const db = await openTestDatabase(DATABASE_TARGETS[0]!);
      dispose = db.dispose;
      server = await startTestServer(db);
      // Scans and dry-runs are jobs: the worker runs them as a deployed server would.
      server.services.jobs.start();
    });

    afterAll(async () => {
      await server?.services.jobs.stop(5_000);
      await server?.close();
      await dispose?.();
    });

    it('creates and scans an environment, pages through a list, gets a typed 404, uploads a validation library from a directory and waits on dry-runs', async () => {
      const validationDir = join(work, 'validation');
      await mkdir(join(validationDir, 'notes'), { recursive: true });
      await writeFile(join(validationDir, 'rules.yaml'), RULES_YAML);
      await writeFile(join(validationDir, 'notes', 'README.md'), 'Why every resource needs an owner.\n');
      const compositionFile = join(work, 'composition.tar.gz');
      await writeFile(compositionFile, gzipSync(await filesTar({ 'composition.yaml': COMPOSITION_YAML })));
      const [clientId, clientSecret] = Buffer.from(server.auth.slice('Basic '.length), 'base64').toString().split(':') as [string, string];
      const conductorAccount = nextConductorAccount();

      succeeded(await tsc('tsconfig.json', project), 'tsc (node)');
      const result = succeeded(
        await run(
          process.execPath,
          [join(project, 'out', 'node.js')],
          project,
          childEnv({
            CC_URL: server.baseUrl,
            COMPLIANCE_CLIENT_ID: clientId,
            COMPLIANCE_CLIENT_SECRET: clientSecret,
            CONDUCTOR_USER: 'root',
            CONDUCTOR_SECRET: ROOT_SECRET,
            ROLE_ARN: `arn:prova:iam::${nextRoleAccount()}:role/scanner`,
            VALIDATION_DIR: validationDir,
            ACCOUNT_NAME: conductorAccount.name,
            ACCOUNT_ID: conductorAccount.accountId,
            COMPOSITION_FILE: compositionFile,
          }),
          120_000,
        ),
        'node out/node.js',
      );
      const steps: Record<string, { step: string } & Record<string, any>> = Object.fromEntries(
        result.stdout
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line) as { step: string } & Record<string, any>)
          .map((line) => [line.step, line]),
      );

      const step = (name: string) => {
        expect(steps, `the example printed no '${name}' step:\n${result.stdout}\n${result.stderr}`).toHaveProperty([name]);
        return steps[name]!;
      };
      expect(step('environment')).toMatchObject({ name: 'example-prod', id: expect.any(String) });
      expect(step('scan')).toMatchObject({ started: 'IN_PROGRESS', status: 'SUCCESS' });
      expect(step('scan').polls).toBeGreaterThanOrEqual(1);
      expect(step('scan').compliant + step('scan').noncompliant).toBeGreaterThan(0);
      const stored = await server.request('GET', `/v0/scans/${step('scan').id}`);
      expect(stored.body.status).toBe('SUCCESS');

      expect(step('pages')).toEqual({ step: 'pages', names: ['example-dev', 'example-prod', 'example-stage'], offsets: [0, 2] });

      expect(step('not-found')).toMatchObject({ status: 404, type: 'NotFound', code: 404 });
      expect(step('api-error')).toMatchObject({ status: 404, operation: 'GET /environments/{environment_id}', body: { type: 'NotFound', code: 404 } });

      // The directory was packed exactly as tarDirectory packs it, and the server stored those bytes.
      const expected = createHash('sha256').update(await tarDirectory(validationDir)).digest('hex');
      expect(step('validation')).toMatchObject({ name: 'owner-tags', rules: 1, sha256: expected });
      const archive = await fetch(`${server.baseUrl}/api/v0/validations/owner-tags/archive`, { headers: { authorization: server.rootAuth } });
      expect(createHash('sha256').update(Buffer.from(await archive.arrayBuffer())).digest('hex')).toBe(expected);

      expect(step('dry-run')).toMatchObject({ accepted: 'PENDING', status: 'SUCCEEDED', plan: ['create web-assets', 'create web-jobs'] });
      expect(step('dry-run-refused')).toEqual({ step: 'dry-run-refused', status: 'FAILED', errors: ['rule.violation'] });
      step('done');
    }, 180_000);
  });
});
