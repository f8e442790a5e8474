import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { beforeEach, describe, expect, it } from '@jest/globals';
import { load } from 'js-yaml';
import { GENERATED_DIR } from '../src/paths.js';
import { describeEachDatabase } from './databases.js';
import { basic, useTestServer, type TestServer } from './server.js';

const run = promisify(execFile);

describeEachDatabase('HTTP platform', (db) => {
  const testServer = useTestServer(db);
  let server: TestServer;
  beforeEach(() => {
    server = testServer();
  });

  describe('compliance authentication (seed 000 §5, §7)', () => {
    const unauthenticated = { type: 'AuthenticationError', code: 401, message: 'The authentication token is invalid or missing' };

    it.each([
      ['no Authorization header', null],
      ['a wrong secret', 'WRONG'],
      ['an unknown client', basic('cl_unknown', 'whatever')],
      ['a malformed header', 'Basic !!!'],
      ['another scheme', 'Bearer abc'],
    ])('refuses %s with 401, the error body and a challenge', async (_, auth) => {
      const clientId = Buffer.from(server.auth.slice('Basic '.length), 'base64').toString().split(':')[0]!;
      const authorization = auth === 'WRONG' ? basic(clientId, 'wrong-secret') : auth;
      const res = await server.request('GET', '/v0/environments', { auth: authorization });
      expect(res.status).toBe(401);
      expect(res.body).toEqual(unauthenticated);
      expect(res.headers.get('www-authenticate')).toBe('Basic realm="compliance", charset="UTF-8"');
    });

    it('serves the Swagger 2.0 bundle of the compliance and the conductor API without authentication, byte for byte as generated', async () => {
      for (const [api, path] of [['compliance', '/v0/swagger'], ['conductor', '/api/v0/swagger']] as const) {
        const res = await fetch(`${server.baseUrl}${path}`);
        expect(`${path} ${res.status}`).toBe(`${path} 200`);
        expect(res.headers.get('content-type')).toMatch(/^application\/yaml/);
        const served = Buffer.from(await res.arrayBuffer());
        expect(served.equals(await readFile(`${GENERATED_DIR}/${api}/swagger.yaml`))).toBe(true);
        const json = await fetch(`${server.baseUrl}${path}`, { headers: { accept: 'application/json' } });
        expect(await json.json()).toEqual(load(served.toString('utf8')));
      }
    });

    it('serves the same document as JSON to a client that prefers application/json, and YAML to any other', async () => {
      const bundle = load(await readFile(`${GENERATED_DIR}/compliance/swagger.yaml`, 'utf8'));
      const json = await fetch(`${server.baseUrl}/v0/swagger`, { headers: { accept: 'application/json' } });
      expect(json.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await json.json()).toEqual(bundle);
      for (const accept of ['*/*', 'application/yaml', 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8']) {
        const yaml = await fetch(`${server.baseUrl}/v0/swagger`, { headers: { accept } });
        expect(yaml.headers.get('content-type')).toMatch(/^application\/yaml/);
      }
      // A script in another language reads it with its standard library alone.
      const script = 'import json, sys, urllib.request\n'
        + 'request = urllib.request.Request(sys.argv[1], headers={"Accept": "application/json"})\n'
        + 'document = json.load(urllib.request.urlopen(request))\n'
        + 'print(document["swagger"], document["basePath"], len(document["paths"]))\n';
      const { stdout } = await run('python3', ['-c', script, `${server.baseUrl}/v0/swagger`]);
      expect(stdout.trim()).toBe(`2.0 /v0 ${Object.keys((bundle as { paths: object }).paths).length}`);
    });

    it('sends exactly the WWW-Authenticate challenge each spec documents', async () => {
      for (const [api, path] of [['compliance', '/v0/environments'], ['conductor', '/api/v0/accounts']] as const) {
        const spec = load(await readFile(`${GENERATED_DIR}/${api}/swagger.yaml`, 'utf8')) as { responses: Record<string, { headers?: Record<string, { enum?: string[] }> }> };
        const documented = spec.responses.Unauthorized!.headers!['WWW-Authenticate']!.enum;
        const res = await server.request('GET', path, { auth: null });
        expect(documented).toEqual([res.headers.get('www-authenticate')]);
      }
    });
  });

  describe('conductor authentication (product.md §6)', () => {
    it('refuses a request without valid credentials with the conductor error body', async () => {
      for (const auth of [null, basic('root', 'wrong-secret'), basic('nobody', 'x')]) {
        const res = await server.request('GET', '/api/v0/accounts', { auth });
        expect(res.status).toBe(401);
        expect(res.body).toEqual({ code: 401, message: 'Unauthorized', errors: [] });
        expect(res.headers.get('www-authenticate')).toBe('Basic realm="conductor", charset="UTF-8"');
      }
    });

    it('lets root in with the configured secret', async () => {
      const res = await server.request('GET', '/api/v0/accounts', { auth: server.rootAuth });
      expect(res.status).not.toBe(401);
    });
  });

  describe('routing', () => {
    it('answers an unknown path under an API with 404 and that API’s error body', async () => {
      const res = await server.request('GET', '/v0/no-such-thing');
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ type: 'NotFound', code: 404 });
      const conductor = await server.request('GET', '/api/v0/no-such-thing', { auth: server.rootAuth });
      expect(conductor.body).toMatchObject({ code: 404, errors: [] });
    });

    it('answers a method the path does not offer with 405 and Allow', async () => {
      const res = await server.request('PUT', '/v0/environments', { body: {} });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toMatch(/GET/);
    });

    it('refuses a body that is not JSON on a JSON operation', async () => {
      const res = await server.request('POST', '/v0/environments', { body: 'name=x', headers: { 'content-type': 'text/plain' } });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 400 });
    });
  });

  describe('health and documentation', () => {
    it('reports liveness and readiness', async () => {
      expect((await server.request('GET', '/healthz', { auth: null })).body).toEqual({ status: 'ok' });
      expect((await server.request('GET', '/readyz', { auth: null })).body).toEqual({ status: 'ready' });
    });

    it('sends a browser that opens the root to the documentation', async () => {
      const res = await fetch(`${server.baseUrl}/`, { redirect: 'manual' });
      expect(res.status).toBe(302);
      expect(res.headers.get('location')).toBe('/docs/');
    });

    it('serves Swagger UI listing every spec', async () => {
      const page = await fetch(`${server.baseUrl}/docs/`);
      expect(page.status).toBe(200);
      expect(await page.text()).toMatch(/swagger-ui/i);
      const init = await (await fetch(`${server.baseUrl}/docs/swagger-ui-init.js`)).text();
      for (const api of ['compliance', 'conductor', 'console']) {
        expect(init).toContain(`/docs/specs/${api}.yaml`);
        expect((await fetch(`${server.baseUrl}/docs/specs/${api}.yaml`)).status).toBe(200);
      }
    });
  });
}, 'suite');
