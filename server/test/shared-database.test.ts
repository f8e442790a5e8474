import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { freePort, start, waitForHttp, type Started } from '../../contract-tests/processes.js';
import { PROJECT_ROOT } from '../src/paths.js';
import { expect } from './expect.js';
import { adminQuery } from './postgres.js';
import { serverEntry } from './server-process.js';

/**
 * Two server processes on one PostgreSQL database, as the scale-out path runs them, driven by curl. Each process
 * keeps the answers it gave, by the versions the database keeps (server/src/http/edge-cache.ts); whatever a client
 * writes through one, a page of the other shows on the next request.
 */
const POSTGRES_URL = process.env.TEST_DATABASE_URL;
const run = promisify(execFile);

(POSTGRES_URL ? describe : describe.skip)('two server processes on one PostgreSQL database, through curl', () => {
  const database = `shared_${randomBytes(6).toString('hex')}`;
  let dir: string;
  const servers: Started[] = [];
  const urls: string[] = [];
  let user = '';

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'shared-database-'));
    await adminQuery(POSTGRES_URL!, `create database ${database}`);
    const url = new URL(POSTGRES_URL!);
    url.pathname = `/${database}`;
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATABASE_URL: url.toString(),
      CONDUCTOR_ROOT_SECRET_FILE: join(dir, 'root-secret'),
      CONSOLE_ADMIN_PASSWORD_FILE: join(dir, 'admin-password'),
      DEMO_DATA: 'false',
    };
    const { stdout } = await run(process.execPath, [...serverEntry('admin'), 'api-clients', 'create', '--name', 'curl', '--json'], { cwd: PROJECT_ROOT, env });
    const credentials = JSON.parse(stdout) as { client_id: string; client_secret: string };
    user = `${credentials.client_id}:${credentials.client_secret}`;
    for (let i = 0; i < 2; i += 1) {
      const port = await freePort();
      servers.push(start(process.execPath, serverEntry('main'), { ...env, PORT: String(port) }, PROJECT_ROOT));
      urls.push(`http://127.0.0.1:${port}`);
    }
    await Promise.all(urls.map((url, i) => waitForHttp(`${url}/readyz`, servers[i]!)));
  }, 120_000);

  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await adminQuery(POSTGRES_URL!, `drop database if exists ${database} with (force)`);
    await rm(dir, { recursive: true, force: true });
  });

  /** curl's answer: the status and the parsed body. */
  const curl = async (base: string, method: string, path: string, body?: unknown) => {
    const args = ['--silent', '--user', user, '--request', method, '--write-out', '\n%{http_code}', `${base}${path}`];
    if (body !== undefined) args.push('--header', 'Content-Type: application/json', '--data', JSON.stringify(body));
    const { stdout } = await run('curl', args);
    const cut = stdout.lastIndexOf('\n');
    const text = stdout.slice(0, cut);
    return { status: Number(stdout.slice(cut + 1)), body: text === '' ? undefined : (JSON.parse(text) as Record<string, any>) };
  };
  const names = async (base: string, query = '') => ((await curl(base, 'GET', `/v0/environments${query}`)).body!.items as Array<{ name: string }>).map((e) => e.name);

  it('a page and a read of one process show every create, change, scan and deletion made through the other, at once', async () => {
    const [a, b] = urls as [string, string];
    expect(await names(a)).toEqual([]);
    const created = await curl(b, 'POST', '/v0/environments', {
      name: 'shared',
      provider: 'provider_a',
      provider_options: { provider_a: { role_arn: 'arn:prova:iam::123456789012:role/scanner', regions: ['us-east-1'] } },
    });
    expect(created.status).toBe(201);
    const id = created.body!.id as string;
    // Read twice, so the second answer comes from what process A kept.
    expect(await names(a)).toEqual(['shared']);
    expect(await names(a)).toEqual(['shared']);
    expect((await curl(a, 'GET', `/v0/environments/${id}`)).body).toMatchObject({ name: 'shared' });
    expect((await curl(a, 'GET', `/v0/environments/${id}`)).body).toMatchObject({ name: 'shared' });

    expect((await curl(b, 'PATCH', `/v0/environments/${id}`, { name: 'renamed' })).status).toBe(200);
    expect(await names(a)).toEqual(['renamed']);
    expect((await curl(a, 'GET', `/v0/environments/${id}`)).body).toMatchObject({ name: 'renamed' });
    expect(await names(a, '?order_by=name&order_direction=asc&max_items=10')).toEqual(['renamed']);

    const scan = await curl(b, 'POST', `/v0/scans?environment_id=${id}`);
    expect(scan.status).toBe(201);
    const listed = await curl(a, 'GET', '/v0/environments');
    expect(listed.body!.items[0]).toMatchObject({ name: 'renamed', last_scan_at: scan.body!.created_at });
    expect((await curl(a, 'GET', `/v0/environments/${id}`)).body).toMatchObject({ last_scan_at: scan.body!.created_at, resource_summary: null });
    // Whichever process runs the scan, the other shows its summary once it ends.
    let ended: Record<string, any> | undefined;
    for (let waited = 0; waited < 30_000 && ended?.status !== 'SUCCESS'; waited += 100) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      ended = (await curl(b, 'GET', `/v0/scans/${scan.body!.id}`)).body;
    }
    expect(ended).toMatchObject({ status: 'SUCCESS' });
    expect((await curl(a, 'GET', `/v0/environments/${id}`)).body).toMatchObject({ scan_status: 'SUCCESS', resource_summary: ended!.resource_summary });

    expect((await curl(b, 'DELETE', `/v0/environments/${id}`)).status).toBe(204);
    expect(await names(a)).toEqual([]);
    expect(await names(a, '?order_by=name&order_direction=asc&max_items=10')).toEqual([]);
    expect((await curl(a, 'GET', `/v0/environments/${id}`)).status).toBe(404);
  }, 60_000);
});
