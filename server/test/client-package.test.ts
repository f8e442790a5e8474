import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFile, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { parse } from 'yaml';
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

/** A user's environment: the children's without the test runner's NODE_OPTIONS (--experimental-vm-modules, warnings hidden). */
const plainNodeEnv = (extra: Record<string, string> = {}): NodeJS.ProcessEnv =>
  Object.fromEntries(Object.entries(childEnv(extra)).filter(([name]) => name !== 'NODE_OPTIONS'));

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

/** Offline where npm's cache has what is asked for; the registry otherwise. */
const NPM_INSTALL_FLAGS = ['--prefer-offline', '--no-audit', '--no-fund'];

/** The fenced block of `language` that comes first after the line of client/README.md starting with `anchor`. */
async function readmeBlock(anchor: string, language: 'sh' | 'ts'): Promise<string> {
  const lines = (await readFile(join(CLIENT_DIR, 'README.md'), 'utf8')).split('\n');
  const at = lines.findIndex((line) => line.startsWith(anchor));
  expect(at, `client/README.md has no line starting '${anchor}'`).toBeGreaterThanOrEqual(0);
  const open = lines.findIndex((line, index) => index > at && line === `\`\`\`${language}`);
  const close = lines.findIndex((line, index) => index > open && line === '```');
  expect(open > at && close > open, `client/README.md has no ${language} block after '${anchor}'`).toBe(true);
  return lines.slice(open + 1, close).join('\n');
}

/** The error statuses (not 2xx, not `default`) an operation of an API's spec documents, in ascending order. */
async function documentedErrorStatuses(api: string, operationId: string): Promise<number[]> {
  const spec = parse(await readFile(join(CLIENT_DIR, '..', 'generated', api, 'swagger.yaml'), 'utf8')) as {
    paths: Record<string, Record<string, { operationId?: string; responses?: Record<string, unknown> }>>;
  };
  const operation = Object.values(spec.paths)
    .flatMap((item) => Object.values(item))
    .find((candidate) => candidate.operationId === operationId);
  expect(operation, `${api} has an operation ${operationId}`).toBeDefined();
  return Object.keys(operation!.responses ?? {})
    .filter((status) => /^\d+$/.test(status) && !status.startsWith('2'))
    .map(Number)
    .sort((a, b) => a - b);
}

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
      await run('npm', ['install', tarball, 'typescript@5.9.3', '@types/node@20.19.43', ...NPM_INSTALL_FLAGS], project),
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
      'package/dist/cjs/package.json',
      'package/dist/cjs/index.js',
      'package/dist/cjs/index.d.ts',
      'package/dist/cjs/node.js',
      'package/dist/cjs/node.d.ts',
      'package/dist/cjs/generated/compliance.d.ts',
      'package/dist/cjs/generated/conductor.d.ts',
      'package/dist/cjs/generated/console.d.ts',
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

  it('depends on openapi-fetch, tar-stream (and events, for its streams in a browser) and commander (the CLI) only, and exports the main and the node entry points, each as an ES module and as CommonJS', async () => {
    const manifest = JSON.parse(await readFile(join(project, 'node_modules', '@compliance-conductor', 'client', 'package.json'), 'utf8'));
    expect(manifest.dependencies).toEqual({ commander: '14.0.3', events: '3.3.0', 'openapi-fetch': '^0.17.0', 'tar-stream': '3.2.2' });
    expect(manifest.devDependencies).toBeUndefined();
    expect(Object.keys(manifest.exports)).toEqual(expect.arrayContaining(['.', './node']));
    for (const entry of ['index', 'node']) {
      expect(manifest.exports[entry === 'index' ? '.' : './node']).toEqual({
        import: { types: `./dist/${entry}.d.ts`, default: `./dist/${entry}.js` },
        require: { types: `./dist/cjs/${entry}.d.ts`, default: `./dist/cjs/${entry}.js` },
      });
    }
    expect(manifest.type).toBe('module');
    const dist = join(project, 'node_modules', '@compliance-conductor', 'client', 'dist');
    expect(JSON.parse(await readFile(join(dist, 'cjs', 'package.json'), 'utf8'))).toEqual({ type: 'commonjs' });
    // The main entry point must load where there is no Node: it imports nothing but itself, openapi-fetch and
    // tar-stream, in both builds (the test below bundles it for a browser).
    for (const [dir, loads] of [
      [dist, /(?:from\s+|import\()['"]([^'"]+)['"]/g],
      [join(dist, 'cjs'), /require\(['"]([^'"]+)['"]\)/g],
    ] as const) {
      const files = (await readdir(dir)).filter((name) => name.endsWith('.js') && name !== 'node.js');
      expect(files, dir).toContain('index.js');
      for (const file of files) {
        const source = await readFile(join(dir, file), 'utf8');
        const imports = [...source.matchAll(loads)].map((match) => match[1]);
        expect(imports.filter((specifier) => !['openapi-fetch', 'tar-stream'].includes(specifier!) && !specifier!.startsWith('./')), join(dir, file)).toEqual([]);
      }
    }
  });

  it('the main entry point bundles for a browser, its dependencies included, with no Node built-in', async () => {
    const entry = join(project, 'node_modules', '@compliance-conductor', 'client', 'dist', 'index.js');
    const bundle = join(work, 'browser-bundle.js');
    // esbuild refuses a Node built-in (`fs`, `events`...) that no package installed provides when it bundles for a browser.
    const esbuild = join(CLIENT_DIR, '..', 'node_modules', '.bin', 'esbuild');
    succeeded(await run(esbuild, [entry, '--bundle', '--platform=browser', '--format=esm', '--log-level=error', `--outfile=${bundle}`], project), 'esbuild --platform=browser');
    const source = await readFile(bundle, 'utf8');
    expect(source).toContain('tarFiles');
    expect(source).not.toMatch(/require\(["'](node:)?(fs|events|stream|buffer)["']\)/);
  }, 60_000);

  it('loads with require() as well as import: require() gets the CommonJS build, import the ES module build', async () => {
    const script = [
      "const c = require('@compliance-conductor/client'); const n = require('@compliance-conductor/client/node');",
      'console.log(typeof c.createComplianceClient, typeof n.readArchive);',
      "console.log(require.resolve('@compliance-conductor/client')); console.log(require.resolve('@compliance-conductor/client/node'));",
      "import('@compliance-conductor/client').then((m) => console.log(typeof m.createComplianceClient));",
    ].join('\n');
    // Node's own options only: the test runner's (--experimental-vm-modules, hidden warnings) are not a user's.
    const result = succeeded(await run(process.execPath, ['-e', script], project, plainNodeEnv()), 'require');
    const [types, main, node, imported] = result.stdout.trim().split('\n');
    expect(types).toBe('function function');
    expect(main).toMatch(/\/@compliance-conductor\/client\/dist\/cjs\/index\.js$/);
    expect(node).toMatch(/\/@compliance-conductor\/client\/dist\/cjs\/node\.js$/);
    expect(imported).toBe('function');
    expect(result.stderr).toBe('');
    const resolved = succeeded(
      await run(process.execPath, ['--input-type=module', '-e', "console.log(import.meta.resolve('@compliance-conductor/client'))"], project, plainNodeEnv()),
      'import.meta.resolve',
    );
    expect(resolved.stdout.trim()).toMatch(/\/@compliance-conductor\/client\/dist\/index\.js$/);
  });

  it('installs the compliance-conductor command', async () => {
    const help = succeeded(await run(join(project, 'node_modules', '.bin', 'compliance-conductor'), ['--help'], project), 'compliance-conductor --help');
    expect(help.stdout).toContain('compliance-conductor');
  });

  it('the browser example and the typed-error checks compile with the DOM library and no Node types', async () => {
    succeeded(await tsc('tsconfig.browser.json', project), 'tsc (browser)');
  }, 180_000);

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
  }, 180_000);

  it('a status the operation does not document fails the compile', async () => {
    const result = await compileRefused();
    expect(result.code).not.toBe(0);
    const [error] = result.stdout.split('\n').filter((line) => line.startsWith('wrong-status.ts'));
    expect(error).toMatch(/^wrong-status\.ts\(6,9\): error TS2322: Type '(\d+ \| )+\d+' is not assignable to type '409'/);
    // The union is exactly getScan's documented error statuses.
    expect(error!.match(/Type '([^']+)'/)![1]!.split(' | ').map(Number).sort((a, b) => a - b)).toEqual(await documentedErrorStatuses('compliance', 'getScan'));
  }, 180_000);

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

  /**
   * New projects made as client/README.md says, its commands run as they stand but for the package (the tarball) and
   * the versions of TypeScript and @types/node (the repository's): then the README's example, compiled with
   * `tsc --strict`, run against a live server.
   */
  describe("the README's ES module and CommonJS projects, against a live server", () => {
    let server: TestServer;
    let dispose: () => Promise<void>;

    beforeAll(async () => {
      const db = await openTestDatabase(DATABASE_TARGETS[0]!);
      dispose = db.dispose;
      server = await startTestServer(db);
      server.services.jobs.start();
    });

    afterAll(async () => {
      await server?.services.jobs.stop(5_000);
      await server?.close();
      await dispose?.();
    });

    async function readmeProject(dir: string, anchor: string): Promise<void> {
      const { devDependencies } = JSON.parse(await readFile(join(CLIENT_DIR, '..', 'package.json'), 'utf8')) as { devDependencies: Record<string, string> };
      const substituted: string[] = [];
      const steps = (await readmeBlock(anchor, 'sh'))
        .split('\n')
        .map((line) => line.replace(/\s+#.*$/, '').trim())
        .filter(Boolean)
        .map((line) => {
          if (line === 'npm install @compliance-conductor/client') {
            substituted.push('the package');
            return ['npm', 'install', tarball, ...NPM_INSTALL_FLAGS].join(' ');
          }
          if (line === 'npm install --save-dev typescript @types/node') {
            substituted.push('the tools');
            return ['npm', 'install', '--save-dev', `typescript@${devDependencies.typescript}`, `@types/node@${devDependencies['@types/node']}`, ...NPM_INSTALL_FLAGS].join(' ');
          }
          return line;
        });
      expect(substituted, `the README's commands after '${anchor}' install the package and the tools`).toEqual(['the package', 'the tools']);
      await mkdir(dir);
      for (const step of steps) succeeded(await run('sh', ['-c', step], dir, plainNodeEnv()), step);
    }

    /** What the README has a project set, and the error its example fails to compile with when the setting is undone. */
    const WITHOUT_NODE_TYPES = { undone: { types: [] }, error: /^example\.ts\(\d+,\d+\): error TS2591: Cannot find name 'process'/m };
    const WITH_VERBATIM_SYNTAX = { undone: { verbatimModuleSyntax: true }, error: /^example\.ts\(1,\d+\): error TS1295: ECMAScript imports and exports cannot be written in a CommonJS file/m };

    for (const kind of [
      {
        name: 'an ES module project',
        anchor: 'An ES module project',
        dir: 'esm-project',
        type: 'module',
        loads: /^import \{[^}]*\} from '@compliance-conductor\/client';$/m,
        settings: [WITHOUT_NODE_TYPES],
      },
      {
        name: 'a CommonJS project',
        anchor: 'A CommonJS project',
        dir: 'cjs-project',
        type: 'commonjs',
        loads: /= require\("@compliance-conductor\/client"\);$/m,
        settings: [WITHOUT_NODE_TYPES, WITH_VERBATIM_SYNTAX],
      },
    ]) {
      it(`${kind.name}: the README's example compiles with tsc --strict and runs`, async () => {
        const dir = join(work, kind.dir);
        await readmeProject(dir, kind.anchor);
        expect(JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')).type).toBe(kind.type);

        await writeFile(join(dir, 'example.ts'), await readmeBlock('## Node', 'ts'));
        succeeded(await run('npx', ['tsc', '--strict'], dir, plainNodeEnv()), 'npx tsc --strict');
        expect(await readFile(join(dir, 'example.js'), 'utf8')).toMatch(kind.loads);
        // Each setting the README asks for is needed: undone, the example does not compile.
        for (const setting of kind.settings) {
          await writeFile(join(dir, 'tsconfig.undone.json'), JSON.stringify({ extends: './tsconfig.json', compilerOptions: { ...setting.undone, noEmit: true } }));
          const undone = await run('npx', ['tsc', '--strict', '-p', 'tsconfig.undone.json'], dir, plainNodeEnv());
          expect(undone.code, JSON.stringify(setting.undone)).not.toBe(0);
          expect(undone.stdout).toMatch(setting.error);
        }

        await server.useNewTenant();
        const [clientId, clientSecret] = Buffer.from(server.auth.slice('Basic '.length), 'base64').toString().split(':') as [string, string];
        const result = succeeded(
          await run(
            process.execPath,
            ['example.js'],
            dir,
            plainNodeEnv({ COMPLIANCE_URL: server.baseUrl, COMPLIANCE_CLIENT_ID: clientId, COMPLIANCE_CLIENT_SECRET: clientSecret, CONDUCTOR_SECRET: ROOT_SECRET }),
            120_000,
          ),
          'node example.js',
        );
        const [scanned, accounts] = result.stdout.trim().split('\n');
        const [, compliant, noncompliant] = /^scan SUCCESS: (\d+) compliant, (\d+) noncompliant resources$/.exec(scanned ?? '') ?? [];
        expect(Number(compliant) + Number(noncompliant), result.stdout).toBeGreaterThan(0);
        expect(accounts).toMatch(/^\d+ conductor accounts$/);
        expect(result.stderr).toBe('');
        // What the program did is on the server: its environment, scanned.
        const environments = await server.request('GET', '/v0/environments');
        expect(environments.body.items).toEqual([expect.objectContaining({ name: 'prod', scan_status: 'SUCCESS' })]);
      }, 360_000);
    }
  });
});
