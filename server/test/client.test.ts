import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, beforeEach, describe, it, jest } from '@jest/globals';
import {
  addValidation,
  ApiError,
  attachRbacPolicy,
  createComplianceClient,
  createConductorClient,
  createConsoleClient,
  createProcess,
  listAll,
  pages,
  results,
  submitDryRun,
  tarFiles,
  unwrap,
  updateProcessComposition,
  waitForDryRun,
  waitForScan,
  WaitTimeoutError,
  type ComplianceClient,
  type ConductorClient,
} from '../../client/src/index.js';
import { readArchive, tarDirectory } from '../../client/src/node.js';
import { readArchive as readServerArchive } from '../src/domain/archives/tar.js';
import { CompletionWaiter } from '../src/domain/conductor/completion-waiter.js';
import { createEnvironment } from './compliance.js';
import { compositionYaml, nextAccount, WEB_RESOURCES } from './conductor.js';
import { describeEachDatabase } from './databases.js';
import { eventually } from './eventually.js';
import { ROOT_SECRET, useTestServer, type TestServer } from './server.js';
import { expect } from './expect.js';

const exec = promisify(execFile);

const RULES_YAML = `rules:
  - id: owner-tag
    resource_type: "*"
    expression: '"owner" in resource.tags'
    message: Every resource needs an owner tag
`;

/** Every request a client sends, as `METHOD path?query`, through the client's `fetch` option. */
function recordingFetch(): { fetch: (request: Request) => Promise<Response>; requests: string[] } {
  const requests: string[] = [];
  return {
    requests,
    fetch: (request) => {
      const url = new URL(request.url);
      requests.push(`${request.method} ${url.pathname}${url.search}`);
      return fetch(request);
    },
  };
}

/** The published client package, used the way an API consumer would against the real server. */
describeEachDatabase(
  'typed client',
  (db) => {
    const testServer = useTestServer(db);
    let server: TestServer;
    let compliance: ComplianceClient;
    let conductor: ConductorClient;
    beforeEach(() => {
      server = testServer();
      compliance = createComplianceClient({ baseUrl: server.baseUrl, auth: credentials() });
      conductor = createConductorClient({ baseUrl: `${server.baseUrl}/`, auth: { user: 'root', secret: ROOT_SECRET } });
    });

    const credentials = () => {
      const [user, secret] = Buffer.from(server.auth.slice('Basic '.length), 'base64').toString().split(':') as [string, string];
      return { user, secret };
    };
    const runJobs = async () => {
      while (await server.services.jobs.runOnce());
    };
    /** Validation libraries apply to every later dry-run and process of the conductor: each test removes its own. */
    const removeValidation = (name: string) => unwrap(conductor.DELETE('/validations/{name}', { params: { path: { name } } }));
    const addAccount = async () => {
      const { name, accountId } = nextAccount();
      return unwrap(conductor.POST('/accounts', { body: { name, provider: 'provider_a', account_id: accountId } }));
    };

    it('creates, reads and lists environments through the compliance client', async () => {
      const created = await compliance.POST('/environments', {
        body: { name: 'from-client', provider: 'provider_a', provider_options: { provider_a: { role_arn: 'arn:prova:iam::123456789012:role/r', regions: ['*'] } } },
      });
      expect(created.response.status).toBe(201);
      const id = created.data!.id;
      const fetched = await compliance.GET('/environments/{environment_id}', { params: { path: { environment_id: id } } });
      expect(fetched.data?.name).toBe('from-client');
      const listed = await compliance.GET('/environments', { params: { query: { max_items: 10 } } });
      expect(listed.data?.items.map((e) => e.id)).toContain(id);
    });

    it('reads the API description: as an object by default, as the YAML bundle when asked for it', async () => {
      const document = await unwrap(compliance.GET('/swagger'));
      expect(document).toMatchObject({ swagger: '2.0', basePath: '/v0' });
      const yaml = await compliance.GET('/swagger', { parseAs: 'text', headers: { Accept: 'application/yaml' } });
      expect(yaml.response.headers.get('content-type')).toMatch(/^application\/yaml/);
      expect(yaml.data).toMatch(/^swagger: '2\.0'$/m);
      // The conductor's own, the same way.
      expect(await unwrap(conductor.GET('/swagger'))).toMatchObject({ swagger: '2.0', basePath: '/api/v0' });
      const conductorYaml = await conductor.GET('/swagger', { parseAs: 'text', headers: { Accept: 'application/yaml' } });
      expect(conductorYaml.data).toMatch(/^basePath: \/api\/v0$/m);
    });

    it('returns the error body of a refused request', async () => {
      const refused = await compliance.PATCH('/environments/{environment_id}', {
        params: { path: { environment_id: '3f1c2a9e-8b7d-4c6e-9f10-2a3b4c5d6e7f' } },
        body: { name: 'x' },
      });
      expect(refused.response.status).toBe(404);
      expect(refused.error).toMatchObject({ type: 'NotFound', code: 404 });
    });

    it('authenticates the conductor client as root, with a non-ASCII secret encoded as UTF-8', async () => {
      const { response, data } = await conductor.GET('/accounts');
      expect(response.status).toBe(200);
      expect(data?.items).toEqual(expect.any(Array));
      const wrong = createConductorClient({ baseUrl: server.baseUrl, auth: { user: 'root', secret: 'sécret-ünïcode' } });
      const refused = await results(wrong).GET('/accounts');
      expect(refused).toMatchObject({ ok: false, status: 401, error: { code: 401 } });
    });

    it('keeps the caller\'s own headers, given as a record or a Headers object, beside the Basic credentials', async () => {
      for (const headers of [{ 'X-Request-Id': 'req-1' }, new Headers({ 'X-Request-Id': 'req-1' })]) {
        const sent: Array<[string | null, string | null]> = [];
        const client = createComplianceClient({
          baseUrl: server.baseUrl,
          auth: credentials(),
          headers,
          fetch: (request) => {
            sent.push([request.headers.get('x-request-id'), request.headers.get('authorization')]);
            return fetch(request);
          },
        });
        expect((await client.GET('/environments')).response.status).toBe(200);
        expect(sent).toEqual([['req-1', server.auth]]);
      }
    });

    describe('errors', () => {
      it('results() answers each documented status with its own body, and success with the data', async () => {
        const environment = await createEnvironment(server);
        const found = await results(compliance).GET('/environments/{environment_id}', { params: { path: { environment_id: environment.id } } });
        expect(found).toMatchObject({ ok: true, status: 200, data: { id: environment.id } });
        expect(found.response.status).toBe(200);

        const missing = await results(compliance).GET('/environments/{environment_id}', { params: { path: { environment_id: '3f1c2a9e-8b7d-4c6e-9f10-2a3b4c5d6e7f' } } });
        expect(missing.ok).toBe(false);
        if (missing.ok || missing.status !== 404) throw new Error(`expected a 404, got ${missing.status}`);
        expect(missing.error).toEqual({ type: 'NotFound', code: 404, message: expect.any(String) });

        const started = await results(compliance).POST('/scans', { params: { query: { environment_id: environment.id } } });
        expect(started).toMatchObject({ ok: true, status: 201, data: { status: 'IN_PROGRESS' } });
        const again = await results(compliance).POST('/scans', { params: { query: { environment_id: environment.id } } });
        expect(again).toMatchObject({ ok: false, status: 400, error: { type: 'WorkAlreadyStartedException', code: 400 } });
      });

      it('unwrap throws an ApiError naming the operation, with the status and the API error body', async () => {
        const missing = '3f1c2a9e-8b7d-4c6e-9f10-2a3b4c5d6e7f';
        const error = await unwrap(compliance.GET('/environments/{environment_id}', { params: { path: { environment_id: missing } } })).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(ApiError);
        const apiError = error as ApiError;
        expect(apiError).toMatchObject({ name: 'ApiError', status: 404, operation: 'GET /environments/{environment_id}', body: { type: 'NotFound', code: 404 } });
        expect(apiError.response.status).toBe(404);
        expect(apiError.message).toMatch(/^GET \/environments\/\{environment_id\} answered 404: /);

        // The conductor's error details (code, location) are part of the message.
        const invalid = (await addValidation(conductor, 'broken', await tarFiles({ 'rules.yaml': 'rules:\n  - id: x\n    resource_type: "*"\n    expression: "resource.("\n    message: m\n' })).catch(
          (e: unknown) => e,
        )) as ApiError;
        expect(invalid).toMatchObject({ status: 400, operation: 'POST /validations', body: { code: 400, errors: [expect.objectContaining({ code: 'rule.compile' })] } });
        expect(invalid.message).toContain('rules.yaml:x');
      });

      it('a 2xx answer without a body unwraps to undefined', async () => {
        const answer = await unwrap(Promise.resolve({ data: undefined, response: new Response(null, { status: 204 }) }));
        expect(answer).toBeUndefined();
      });
    });

    describe('paging', () => {
      it('pages() follows next_offset through every page, fetching each only when needed', async () => {
        for (const name of ['a', 'b', 'c', 'd', 'e']) await createEnvironment(server, { name: `env-${name}` });
        const offsets: number[] = [];
        const fetchPage = (offset: number) => {
          offsets.push(offset);
          return unwrap(compliance.GET('/environments', { params: { query: { offset, max_items: 2, order_by: 'name', order_direction: 'asc' } } }));
        };
        const iterator = pages(fetchPage);
        const first = await iterator.next();
        expect(first.value).toMatchObject({ name: 'env-a' });
        expect(offsets).toEqual([0]);
        const rest: string[] = [];
        for await (const environment of iterator) rest.push(environment.name);
        expect(rest).toEqual(['env-b', 'env-c', 'env-d', 'env-e']);
        expect(offsets).toEqual([0, 2, 4]);
        expect((await listAll(fetchPage)).map((e) => e.name)).toEqual(['env-a', 'env-b', 'env-c', 'env-d', 'env-e']);
      });

      it('a truncated page whose next_offset does not move forward is an error, not an endless loop', async () => {
        await expect(listAll(async () => ({ items: [1], is_truncated: true, next_offset: 0 }))).rejects.toThrow(/next_offset 0/);
        await expect(listAll(async () => ({ items: [1], is_truncated: true }))).rejects.toThrow(/next_offset undefined/);
      });
    });

    describe('uploads', () => {
      it('uploads an archive given as a Uint8Array, an ArrayBuffer, a Blob or a gzipped tar, byte for byte', async () => {
        const tar = await tarFiles({ 'rules.yaml': RULES_YAML });
        const sources = {
          bytes: tar,
          'array-buffer': tar.slice().buffer,
          blob: new Blob([tar], { type: 'application/x-tar' }),
          gzipped: new Uint8Array(gzipSync(tar)),
        };
        for (const [name, archive] of Object.entries(sources)) {
          const library = await addValidation(conductor, `lib-${name}`, archive);
          expect(library).toMatchObject({ name: `lib-${name}`, rule_count: 1 });
          const stored = await conductor.GET('/validations/{name}/archive', { params: { path: { name: `lib-${name}` } }, parseAs: 'arrayBuffer' });
          expect(new Uint8Array(stored.data!)).toEqual(new Uint8Array(await new Response(archive).arrayBuffer()));
          await removeValidation(`lib-${name}`);
        }
      });

      it('creates a process, replaces its composition and attaches an rbac policy from archives', async () => {
        const account = await addAccount();
        const web = await createProcess(conductor, { account: account.name, alias: `web-${account.name}` }, await tarFiles({ 'composition.yaml': compositionYaml(WEB_RESOURCES) }));
        expect(web).toMatchObject({ alias: `web-${account.name}`, state: 'RUNNING' });
        await runJobs();
        const updated = await updateProcessComposition(conductor, web.fid, await tarFiles({ 'composition.yaml': compositionYaml(WEB_RESOURCES.slice(0, 1)) }));
        expect(updated).toMatchObject({ job_id: expect.any(String) });

        const policy = await readFile(new URL('../../examples/conductor/policy/policy.yaml', import.meta.url));
        const status = await attachRbacPolicy(conductor, await tarFiles({ 'policy.yaml': policy }));
        expect(status).toMatchObject({ applied: true, users: 2 });
        await unwrap(conductor.DELETE('/rbac'));
      });

      it('an archive the server refuses comes back as an ApiError with its reasons', async () => {
        const account = await addAccount();
        const refused = await createProcess(conductor, { account: account.name }, new TextEncoder().encode('not a tar at all'.repeat(64))).catch((e: unknown) => e as ApiError);
        expect(refused).toBeInstanceOf(ApiError);
        expect(refused).toMatchObject({ status: 400, operation: 'POST /processes' });
      });
    });

    describe('waiting', () => {
      it('waitForScan polls until the scan has ended, reporting each state', async () => {
        const environment = await createEnvironment(server);
        const started = await unwrap(compliance.POST('/scans', { params: { query: { environment_id: environment.id } } }));
        const seen: string[] = [];
        const waiting = waitForScan(compliance, started.id, { intervalMs: 20, onProgress: (scan) => seen.push(scan.status) });
        // The scan's job runs once the first poll has been answered.
        await eventually(() => expect(seen.length).toBeGreaterThan(0));
        await runJobs();
        const scan = await waiting;
        expect(scan).toMatchObject({ id: started.id, status: 'SUCCESS', resource_summary: expect.any(Object) });
        expect(seen[0]).toBe('IN_PROGRESS');
        expect(seen.at(-1)).toBe('SUCCESS');
      });

      it('waitForScan gives up after timeoutMs with the last state, and stops when aborted', async () => {
        const environment = await createEnvironment(server);
        const started = await unwrap(compliance.POST('/scans', { params: { query: { environment_id: environment.id } } }));
        const timedOut = await waitForScan(compliance, started.id, { timeoutMs: 100, intervalMs: 20 }).catch((e: unknown) => e);
        expect(timedOut).toBeInstanceOf(WaitTimeoutError);
        expect(timedOut).toMatchObject({ timeoutMs: 100, last: { id: started.id, status: 'IN_PROGRESS' } });

        const controller = new AbortController();
        const waiting = waitForScan(compliance, started.id, { intervalMs: 10_000, signal: controller.signal });
        setTimeout(() => controller.abort(new Error('stopped by the user')), 50);
        await expect(waiting).rejects.toThrow('stopped by the user');
      });

      it('waitForDryRun long-polls: one request waits for the result and returns as soon as it is ready', async () => {
        const account = await addAccount();
        const recording = recordingFetch();
        const watched = createConductorClient({ baseUrl: server.baseUrl, auth: { user: 'root', secret: ROOT_SECRET }, fetch: recording.fetch });
        const accepted = await submitDryRun(watched, { command: 'RUN', account: account.name }, await tarFiles({ 'composition.yaml': compositionYaml(WEB_RESOURCES) }));
        expect(accepted).toEqual({ id: expect.any(String), status: 'PENDING' });
        const wait = jest.spyOn(CompletionWaiter.prototype, 'wait');
        try {
          const waiting = waitForDryRun(watched, accepted.id, { timeoutMs: 30_000 });
          // The job runs once the request is waiting in the server.
          await eventually(() => expect(wait).toHaveBeenCalledTimes(1));
          await runJobs();
          const dryRun = await waiting;
          // The server's wait ended on the job's notice, not at the timeout the client asked for.
          expect(wait).toHaveBeenCalledTimes(1);
          const [waitedFor, timeoutMs] = wait.mock.calls[0]!;
          expect(waitedFor).toBe(accepted.id);
          expect([29_000, 30_000]).toContain(timeoutMs);
          expect(await wait.mock.results[0]!.value).toBe('notified');
          expect(dryRun).toMatchObject({ id: accepted.id, status: 'SUCCEEDED', command: 'RUN' });
          expect(dryRun.plan.map((op) => op.operation)).toEqual(['create', 'create']);
          const polls = recording.requests.filter((request) => request.startsWith(`GET /api/v0/dry-run/${accepted.id}`));
          expect(polls).toHaveLength(1);
          expect(polls[0]).toMatch(/\?timeout=(29|30)$/);
        } finally {
          wait.mockRestore();
        }
      });

      it('a dry-run without an archive (KILL) and one refused by a validation library', async () => {
        const account = await addAccount();
        await addValidation(conductor, `owners-${account.name}`, await tarFiles({ 'rules.yaml': RULES_YAML }));
        const untagged = await tarFiles({ 'composition.yaml': compositionYaml([{ name: 'bare', type: 'PROVA.S3.Bucket' }]) });
        const refused = await submitDryRun(conductor, { command: 'run', account: account.name }, untagged);
        await runJobs();
        const failed = await waitForDryRun(conductor, refused.id, { timeoutMs: 5_000 });
        expect(failed.status).toBe('FAILED');
        expect(failed.errors.map((e) => e.code)).toEqual(['rule.violation']);
        await removeValidation(`owners-${account.name}`);

        const web = await createProcess(conductor, { account: account.name }, await tarFiles({ 'composition.yaml': compositionYaml(WEB_RESOURCES) }));
        await runJobs();
        const kill = await submitDryRun(conductor, { command: 'KILL', process: web.fid });
        await runJobs();
        const planned = await waitForDryRun(conductor, kill.id, { timeoutMs: 5_000 });
        expect(planned).toMatchObject({ command: 'KILL', status: 'SUCCEEDED' });
        expect(planned.plan.every((op) => op.operation === 'delete')).toBe(true);
      });
    });

    describe('console client', () => {
      it('sends the CSRF token on state-changing calls only, and a call without it is refused', async () => {
        const email = `client-${server.orgId}@example.com`;
        await server.services.consoleAuth.createUser(server.orgId, email, 'correct horse battery staple', { firstName: 'Ada', lastName: 'Lovelace' });
        const anonymous = createConsoleClient({ baseUrl: server.baseUrl });
        const signedIn = await anonymous.POST('/session', { body: { email, password: 'correct horse battery staple' } });
        expect(signedIn.response.status).toBe(200);
        // Node's fetch keeps no cookies: carry the session cookie as a browser would.
        const cookie = signedIn.response.headers.get('set-cookie')!.split(';')[0]!;
        let token: string | undefined = signedIn.data!.csrf_token;
        const recording = recordingFetch();
        const withToken = createConsoleClient({
          baseUrl: server.baseUrl,
          headers: { cookie },
          csrfToken: () => token,
          fetch: (request) => {
            recording.requests.push(`${request.method} ${request.headers.get('x-csrf-token') ?? '-'}`);
            return fetch(request);
          },
        });
        const created = await results(withToken).POST('/api-clients', { body: { name: 'from-console-client' } });
        expect(created).toMatchObject({ ok: true, status: 201, data: { name: 'from-console-client' } });
        await unwrap(withToken.GET('/session'));
        expect(recording.requests).toEqual([`POST ${token}`, 'GET -']);

        token = undefined;
        const refused = await results(withToken).POST('/api-clients', { body: { name: 'no-token' } });
        expect(refused).toMatchObject({ ok: false, status: 403 });
        const fixedToken = createConsoleClient({ baseUrl: server.baseUrl, headers: { cookie }, csrfToken: signedIn.data!.csrf_token });
        expect((await results(fixedToken).POST('/api-clients', { body: { name: 'fixed-token' } })).status).toBe(201);
      });
    });
  },
  'suite',
);

describe('archives from files and directories', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'client-archives-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('tarDirectory packs regular files, recursively and sorted, in a ustar archive tar reads back', async () => {
    const root = join(dir, 'library');
    const longDir = `${'deeply-nested-directory/'.repeat(5)}end`;
    await mkdir(join(root, 'b', longDir), { recursive: true });
    await writeFile(join(root, 'rules.yaml'), RULES_YAML);
    await writeFile(join(root, 'a.txt'), '');
    await writeFile(join(root, 'b', 'c.bin'), Buffer.alloc(1500, 7));
    await writeFile(join(root, 'b', longDir, 'file-with-a-long-name.txt'), 'long');
    await exec('ln', ['-s', '/etc/passwd', join(root, 'link')]);

    const archive = await tarDirectory(root);
    expect(archive.length % 512).toBe(0);
    await writeFile(join(dir, 'library.tar'), archive);
    const { stdout } = await exec('tar', ['-tvf', join(dir, 'library.tar')]);
    const entries = stdout
      .trim()
      .split('\n')
      .map((line) => {
        const fields = line.split(/\s+/);
        return { mode: fields[0], size: Number(fields[2]), path: fields.at(-1) };
      });
    const longPath = `b/${longDir}/file-with-a-long-name.txt`;
    expect(longPath.length).toBeGreaterThan(100);
    expect(entries).toEqual([
      { mode: '-rw-r--r--', size: 0, path: 'a.txt' },
      { mode: '-rw-r--r--', size: 1500, path: 'b/c.bin' },
      { mode: '-rw-r--r--', size: 4, path: longPath },
      { mode: '-rw-r--r--', size: RULES_YAML.length, path: 'rules.yaml' },
    ]);
    const extracted = join(dir, 'extracted');
    await mkdir(extracted);
    await exec('tar', ['-xf', join(dir, 'library.tar'), '-C', extracted]);
    expect(await readFile(join(extracted, 'rules.yaml'), 'utf8')).toBe(RULES_YAML);
    expect(await readFile(join(extracted, 'b', 'c.bin'))).toEqual(Buffer.alloc(1500, 7));
    expect(await readFile(join(extracted, longPath), 'utf8')).toBe('long');
    // The same files give the same bytes.
    expect(await tarDirectory(root)).toEqual(archive);
  });

  it('readArchive reads a tar.gz file as it is, packs a directory, and passes bytes and Blobs through', async () => {
    const gz = gzipSync(await tarFiles({ 'rules.yaml': RULES_YAML }));
    await writeFile(join(dir, 'rules.tar.gz'), gz);
    expect(Buffer.from(await readArchive(join(dir, 'rules.tar.gz')))).toEqual(gz);
    await mkdir(join(dir, 'only-rules'));
    await writeFile(join(dir, 'only-rules', 'rules.yaml'), RULES_YAML);
    expect(await readArchive(join(dir, 'only-rules'))).toEqual(await tarFiles({ 'rules.yaml': RULES_YAML }));
    const bytes = new Uint8Array([1, 2, 3]);
    expect(await readArchive(bytes)).toBe(bytes);
    expect(await readArchive(bytes.buffer)).toEqual(bytes);
    expect(await readArchive(new Blob([bytes]))).toEqual(bytes);
    await expect(readArchive(join(dir, 'missing.tar'))).rejects.toThrow(/ENOENT/);
    await mkdir(join(dir, 'empty'));
    await expect(readArchive(join(dir, 'empty'))).rejects.toThrow(/no regular files/);
  });

  it('tarFiles refuses paths that would escape the archive, and duplicates', async () => {
    for (const path of ['/etc/passwd', '../up', 'a/../../b', 'a//b', '']) {
      await expect(tarFiles({ [path]: 'x' }), path).rejects.toThrow(/not a relative path/);
    }
    await expect(tarFiles([{ path: 'a', content: '1' }, { path: 'a', content: '2' }])).rejects.toThrow(/duplicate/);
  });

  it('tarFiles writes what the server\'s archive reader takes: a name ustar cannot hold goes in a PAX header', async () => {
    const long = 'x'.repeat(101);
    const files = { [long]: 'long', 'règles/ü.yaml': 'utf-8', 'rules.yaml': RULES_YAML };
    const archive = await tarFiles(files);
    const read = await readServerArchive(archive);
    expect(Object.fromEntries([...read].map(([path, content]) => [path, content.toString('utf8')]))).toEqual(files);
    expect(await tarFiles(files)).toEqual(archive);
  });
});
