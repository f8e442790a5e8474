import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { PROJECT_ROOT } from '../src/paths.js';
import { expect } from './expect.js';
import { outsideDatabases } from './outside-databases.js';
import { serverEntry, ServerProcess } from './server-process.js';

/**
 * Writes made beside the server — SQL from psql or sqlite3, a backfill, a restored backup — show at once: the
 * database moves the versions the servers' edge caches key their answers by (migration 0019,
 * server/src/http/edge-cache.ts), so two server processes that have each answered an environment and its page
 * answer what the other connection wrote on their next request. The outside writer is psql for PostgreSQL and Python's sqlite3 module for a SQLite file.
 */
const run = promisify(execFile);

const TARGETS = outsideDatabases('outside');

for (const target of TARGETS) {
  (target.available ? describe : describe.skip)(`writes beside the server, on ${target.name}`, () => {
    let dir: string;
    const servers: ServerProcess[] = [];
    const bases: string[] = [];
    let authorization = '';

    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'outside-writes-'));
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        DATABASE_URL: await target.setUp(dir),
        CONDUCTOR_ROOT_SECRET_FILE: join(dir, 'root-secret'),
        CONSOLE_ADMIN_PASSWORD_FILE: join(dir, 'admin-password'),
        DEMO_DATA: 'false',
      };
      const { stdout } = await run(process.execPath, [...serverEntry('admin'), 'api-clients', 'create', '--name', 'outside', '--json'], { cwd: PROJECT_ROOT, env });
      const { client_id, client_secret } = JSON.parse(stdout) as { client_id: string; client_secret: string };
      authorization = `Basic ${Buffer.from(`${client_id}:${client_secret}`).toString('base64')}`;
      for (let i = 0; i < 2; i += 1) servers.push(new ServerProcess(env));
      for (const server of servers) bases.push(`http://127.0.0.1:${await server.ready}`);
    }, 300_000);

    afterAll(async () => {
      await Promise.all(servers.map((server) => server.stop()));
      await target.tearDown();
      await rm(dir, { recursive: true, force: true });
    });

    const call = async (base: string, method: string, path: string, body?: unknown) => {
      const answer = await fetch(`${base}${path}`, {
        method,
        headers: { authorization, ...(body !== undefined && { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await answer.text();
      return { status: answer.status, body: text === '' ? undefined : (JSON.parse(text) as Record<string, any>) };
    };
    /** What each server answers for the environment and for the first page, read twice so the second is as kept. */
    const seen = async (id: string) => {
      const answers: Array<{ one: Record<string, any> | number; page: string[] }> = [];
      for (const base of bases) {
        for (let read = 0; read < 2; read += 1) {
          const one = await call(base, 'GET', `/v0/environments/${id}`);
          const page = await call(base, 'GET', '/v0/environments?max_items=10');
          answers.push({ one: one.status === 200 ? one.body! : one.status, page: (page.body!.items as Array<{ name: string }>).map((e) => e.name) });
        }
      }
      return answers;
    };

    it('an environment renamed, rescheduled and deleted with SQL is answered so at once by both servers, GET one and pages alike', async () => {
      const created = await call(bases[0]!, 'POST', '/v0/environments', {
        name: 'before',
        provider: 'provider_a',
        provider_options: { provider_a: { role_arn: 'arn:prova:iam::123456789012:role/scanner', regions: ['us-east-1'] } },
      });
      expect(created.status).toBe(201);
      const id = created.body!.id as string;
      for (const answer of await seen(id)) expect(answer).toEqual({ one: expect.objectContaining({ name: 'before' }), page: ['before'] });

      await target.write(`update environments set name = 'renamed outside', scan_interval = 7200 where id = '${id}'`);
      for (const answer of await seen(id)) {
        expect(answer).toEqual({ one: expect.objectContaining({ name: 'renamed outside', scan_interval: 7200 }), page: ['renamed outside'] });
      }

      await target.write(`delete from environments where id = '${id}'`);
      for (const answer of await seen(id)) expect(answer).toEqual({ one: 404, page: [] });
    }, 60_000);
  });
}
