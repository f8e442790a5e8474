import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { PROJECT_ROOT } from '../src/paths.js';
import { expect } from './expect.js';
import { outsideDatabases } from './outside-databases.js';
import { serverEntry, ServerProcess } from './server-process.js';

/**
 * Conditional GETs (ETag, If-None-Match, 304; server/src/http/edge-cache.ts) as clients outside this codebase send
 * them: curl with its own ETag files (`--etag-save`, `--etag-compare`), and a Python standard-library script that
 * keeps answers by path (contract-tests/outside/conditional_gets.py). Two server processes share one database: a
 * tag one answered is honoured by the other, and a write from outside the servers — SQL from Python's sqlite3 or
 * psql — moves every tag at once.
 */
const run = promisify(execFile);
const CONDITIONAL_GETS = join(PROJECT_ROOT, 'contract-tests/outside/conditional_gets.py');

const TARGETS = outsideDatabases('conditional');

interface Kept {
  path: string;
  status: number;
  etag: string;
  source: 'server' | 'kept';
  body: Record<string, any>;
}

for (const target of TARGETS) {
  (target.available ? describe : describe.skip)(`conditional GETs from curl and Python, on ${target.name}`, () => {
    let dir: string;
    let env: NodeJS.ProcessEnv;
    const servers: ServerProcess[] = [];
    const bases: string[] = [];
    /** ID:SECRET of an API client in no group. */
    let everything = '';
    let environments: { covered: string; other: string };

    const newClient = async (name: string) => {
      const { stdout } = await run(process.execPath, [...serverEntry('admin'), 'api-clients', 'create', '--name', name, '--json'], { cwd: PROJECT_ROOT, env });
      const { client_id, client_secret } = JSON.parse(stdout) as { client_id: string; client_secret: string };
      return { clientId: client_id, credentials: `${client_id}:${client_secret}` };
    };

    /** curl's answer: status, ETag header and body text. */
    const curl = async (base: string, credentials: string, method: string, path: string, options: { body?: unknown; args?: string[] } = {}) => {
      const args = ['--silent', '--user', credentials, '--request', method, '--write-out', '\n%{http_code} %header{etag}', ...(options.args ?? [])];
      if (options.body !== undefined) args.push('--header', 'Content-Type: application/json', '--data', JSON.stringify(options.body));
      const { stdout } = await run('curl', [...args, `${base}${path}`]);
      const cut = stdout.lastIndexOf('\n');
      const [status, etag = ''] = stdout.slice(cut + 1).split(' ');
      return { status: Number(status), etag, text: stdout.slice(0, cut) };
    };

    /** What the Python client answers for `paths`, keeping its answers in `state`. */
    const python = async (base: string, credentials: string, state: string, paths: string[]): Promise<Kept[]> => {
      const { stdout } = await run('python3', [CONDITIONAL_GETS, '--base-url', base, '--credentials', credentials, '--state', join(dir, state), ...paths]);
      return JSON.parse(stdout) as Kept[];
    };

    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'conditional-requests-'));
      env = {
        ...process.env,
        DATABASE_URL: await target.setUp(dir),
        CONDUCTOR_ROOT_SECRET_FILE: join(dir, 'root-secret'),
        CONSOLE_ADMIN_PASSWORD_FILE: join(dir, 'admin-password'),
        DEMO_DATA: 'false',
      };
      everything = (await newClient('everything')).credentials;
      for (let i = 0; i < 2; i += 1) servers.push(new ServerProcess(env));
      for (const server of servers) bases.push(`http://127.0.0.1:${await server.ready}`);
      const created: string[] = [];
      for (const name of ['covered', 'other']) {
        const answer = await curl(bases[0]!, everything, 'POST', '/v0/environments', {
          body: { name, provider: 'provider_a', provider_options: { provider_a: { role_arn: 'arn:prova:iam::123456789012:role/scanner', regions: ['us-east-1'] } } },
        });
        expect(answer.status, answer.text).toBe(201);
        created.push((JSON.parse(answer.text) as { id: string }).id);
      }
      environments = { covered: created[0]!, other: created[1]! };
    }, 300_000);

    afterAll(async () => {
      await Promise.all(servers.map((server) => server.stop()));
      await target.tearDown();
      await rm(dir, { recursive: true, force: true });
    });

    it('curl keeps the ETag of one environment, is answered 304 by either server until SQL renames it, then 200 with the new name', async () => {
      const [a, b] = bases as [string, string];
      const path = `/v0/environments/${environments.covered}`;
      const saved = join(dir, 'curl-etag');
      const first = await curl(a, everything, 'GET', path, { args: ['--etag-save', saved] });
      expect(first.status).toBe(200);
      expect((await readFile(saved, 'utf8')).trim()).toBe(first.etag);
      expect(first.etag).toMatch(/^W\/"[A-Za-z0-9_-]+"$/);
      for (const base of [a, b]) {
        const again = await curl(base, everything, 'GET', path, { args: ['--etag-compare', saved] });
        expect({ status: again.status, etag: again.etag, text: again.text }).toEqual({ status: 304, etag: first.etag, text: '' });
      }

      await target.write(`update environments set name = 'renamed outside' where id = '${environments.covered}'`);
      for (const base of [b, a]) {
        const changed = await curl(base, everything, 'GET', path, { args: ['--etag-compare', saved] });
        expect(changed.status).toBe(200);
        expect(changed.etag).not.toBe(first.etag);
        expect(JSON.parse(changed.text)).toMatchObject({ name: 'renamed outside' });
      }
      await target.write(`update environments set name = 'covered' where id = '${environments.covered}'`);
    }, 60_000);

    it('a Python client keeps its answers by tag, each caller its own view, and is answered what SQL wrote at once', async () => {
      const [a, b] = bases as [string, string];
      const paths = ['/v0/environments', `/v0/environments/${environments.covered}`];
      const names = (kept: Kept) => (kept.body.items as Array<{ name: string }>).map((e) => e.name);

      const first = await python(a, everything, 'everything.json', paths);
      expect(first.map((kept) => [kept.status, kept.source])).toEqual([[200, 'server'], [200, 'server']]);
      expect(names(first[0]!)).toEqual(['other', 'covered']);
      const again = await python(b, everything, 'everything.json', paths);
      expect(again.map((kept) => [kept.status, kept.source, kept.etag])).toEqual(first.map((kept) => [304, 'kept', kept.etag]));

      // A client whose groups cover one environment: another view, other tags and another list, even when it sends
      // the tags another caller was given.
      const restricted = await newClient('restricted');
      const group = await curl(a, everything, 'POST', '/v0/groups', {
        body: { name: 'viewers', policy: 'builtin:ORGANIZATION_REPORT_VIEWER', environment_ids: [environments.covered], api_client_ids: [restricted.clientId] },
      });
      expect(group.status, group.text).toBe(201);
      await run('cp', [join(dir, 'everything.json'), join(dir, 'restricted.json')]);
      const theirs = await python(b, restricted.credentials, 'restricted.json', paths);
      expect(theirs.map((kept) => [kept.status, kept.source])).toEqual([[200, 'server'], [200, 'server']]);
      expect(names(theirs[0]!)).toEqual(['covered']);
      expect(theirs[0]!.etag).not.toBe(first[0]!.etag);
      expect(theirs[1]!.etag).not.toBe(first[1]!.etag);
      expect(theirs[1]!.body).toEqual(first[1]!.body);
      expect((await python(a, restricted.credentials, 'restricted.json', paths)).map((kept) => kept.status)).toEqual([304, 304]);
      // What its groups do not cover stays refused, whatever it sends.
      const refused = await curl(a, restricted.credentials, 'GET', `/v0/environments/${environments.other}`, { args: ['--header', 'If-None-Match: *'] });
      expect(refused.status).toBe(403);

      await target.write(`update environments set name = 'other renamed' where id = '${environments.other}'`);
      const afterWrite = await python(b, everything, 'everything.json', paths);
      expect(afterWrite.map((kept) => [kept.status, kept.source])).toEqual([[200, 'server'], [304, 'kept']]);
      expect(names(afterWrite[0]!)).toEqual(['other renamed', 'covered']);
      // The list the restricted client sees moved too (the organization's list version is one), and still lists
      // only what its groups cover.
      const theirsAfter = await python(a, restricted.credentials, 'restricted.json', paths);
      expect(theirsAfter.map((kept) => kept.status)).toEqual([200, 304]);
      expect(names(theirsAfter[0]!)).toEqual(['covered']);
    }, 60_000);
  });
}
