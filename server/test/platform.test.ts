import { readFile } from 'node:fs/promises';
import { beforeEach, describe, expect, it } from '@jest/globals';
import { GENERATED_DIR } from '../src/paths.js';
import { describeEachDatabase } from './databases.js';
import { basic, useTestServer, type TestServer } from './server.js';

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

    it('serves the Swagger 2.0 bundle without authentication, byte for byte as generated', async () => {
      const res = await fetch(`${server.baseUrl}/v0/swagger`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/yaml/);
      const served = Buffer.from(await res.arrayBuffer());
      expect(served.equals(await readFile(`${GENERATED_DIR}/compliance/swagger.yaml`))).toBe(true);
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
