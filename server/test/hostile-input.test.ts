import { beforeEach, describe, it } from '@jest/globals';
import { API_NAMES, loadApiDocument, type ApiName } from '../src/http/apis.js';
import { createEnvironment, customRuleBody } from './compliance.js';
import { describeEachDatabase } from './databases.js';
import { basic, ROOT_SECRET, useTestServer, type TestServer } from './server.js';
import { expect } from './expect.js';

/**
 * Values no store keeps faithfully (NUL, lone surrogates), lengths counted in characters, and integers past what
 * the databases hold: each is decided at the edge, the same on SQLite and PostgreSQL, in the called API's error
 * body. Every request goes over real HTTP, hostile bytes as the client sends them.
 */
const PASSWORD = 'correct horse battery staple';
let userCounter = 0;

const complianceBadRequest = (message: RegExp) => ({ type: 'InvalidParameterValue', code: 400, message: expect.stringMatching(message) });
const consoleBadRequest = complianceBadRequest;
/** The conductor's 400: the problem in `message`, and listed with its location in `errors`. */
const conductorBadRequest = (message: RegExp) => ({
  code: 400,
  message: expect.stringMatching(message),
  errors: [{ code: expect.any(String), message: expect.stringMatching(message), location: expect.any(String) }],
});

const LONE_SURROGATE = /lone surrogate/;

type Parameter = { $ref?: string; name: string; in: string; required?: boolean; example?: unknown };
type Operation = { operationId: string; parameters?: Parameter[] };

/** Every operation of an API with a query parameter `offset`, as a URL whose required parameters hold their examples. */
function pagedLists(api: ApiName): Array<{ operationId: string; url: (query: string) => string }> {
  const { openapi, basePath } = loadApiDocument(api);
  const components = (openapi.components as { parameters?: Record<string, Parameter> }).parameters ?? {};
  const resolve = (p: Parameter): Parameter => (p.$ref ? components[p.$ref.split('/').pop()!]! : p);
  const lists: Array<{ operationId: string; url: (query: string) => string }> = [];
  for (const [path, item] of Object.entries(openapi.paths as Record<string, Record<string, Operation> & { parameters?: Parameter[] }>)) {
    const op = item.get;
    if (!op) continue;
    const params = [...(item.parameters ?? []), ...(op.parameters ?? [])].map(resolve);
    if (!params.some((p) => p.in === 'query' && p.name === 'offset')) continue;
    const filled = params.filter((p) => p.in === 'path').reduce((url, p) => url.replace(`{${p.name}}`, String(p.example)), path);
    const required = params.filter((p) => p.in === 'query' && p.required).map((p) => `${p.name}=${encodeURIComponent(String(p.example))}&`);
    lists.push({ operationId: op.operationId, url: (query) => `${basePath}${filled}?${required.join('')}${query}` });
  }
  return lists;
}

describeEachDatabase(
  'hostile input at the edge',
  (db) => {
    const testServer = useTestServer(db);
    let server: TestServer;
    beforeEach(() => {
      server = testServer();
    });

    /** A signed-in console browser: its calls carry the session cookie and, on changes, the CSRF token. */
    async function consoleSession() {
      const email = `hostile${(userCounter += 1)}@example.com`;
      await server.services.consoleAuth.createUser(server.orgId, email, PASSWORD);
      const signIn = await server.request('POST', '/console/api/session', { body: { email, password: PASSWORD }, auth: null });
      expect(signIn.status, signIn.text).toBe(200);
      const cookie = signIn.headers.get('set-cookie')!.split(';')[0]!;
      const csrf = signIn.body.csrf_token as string;
      return (method: string, path: string, body?: unknown) =>
        server.request(method, `/console/api${path}`, { body, auth: null, headers: { cookie, ...(method !== 'GET' && { 'x-csrf-token': csrf }) } });
    }

    const conductor = (method: string, path: string, body?: unknown) =>
      server.request(method, `/api/v0${path}`, { auth: server.rootAuth, ...(body !== undefined && { body }) });

    describe('a malformed cookie', () => {
      it('answers a session cookie whose %-escapes do not decode as any other unknown session (401), not as a failure', async () => {
        for (const cookie of ['console_session=%E0%A4%A', 'console_session=%zz; other=%', 'other=%; console_session=']) {
          const answer = await server.request('GET', '/console/api/session', { auth: null, headers: { cookie } });
          expect({ cookie, status: answer.status, type: answer.body?.type }).toEqual({ cookie, status: 401, type: expect.any(String) });
        }
      });
    });

    describe('NUL characters', () => {
      it('refuses a NUL in a JSON string with 400 and the compliance error body, and stores nothing', async () => {
        const res = await server.request('POST', '/v0/environments', {
          body: {
            name: 'prod\u0000',
            provider: 'provider_a',
            provider_options: { provider_a: { role_arn: 'arn:prova:iam::123456789012:role/scanner', regions: ['*'] } },
          },
        });
        expect(res.status, res.text).toBe(400);
        expect(res.body).toEqual(complianceBadRequest(/^name: .*NUL/));
        expect((await server.request('GET', '/v0/environments')).body.count).toBe(0);
      });

      it('refuses a NUL in a JSON string with 400 and the console error body', async () => {
        const call = await consoleSession();
        const res = await call('POST', '/api-clients', { name: 'ci\u0000pipeline' });
        expect(res.status, res.text).toBe(400);
        expect(res.body).toEqual(consoleBadRequest(/^name: .*NUL/));
      });

      it('refuses a raw %00 in a path segment with 400 and the conductor error body', async () => {
        for (const [method, path] of [
          ['GET', '/processes/web%00frontend'],
          ['GET', '/processes/%00/history'],
          ['DELETE', '/accounts/prod%00main'],
        ] as const) {
          const res = await conductor(method, path);
          expect(res.status, `${method} ${path}: ${res.text}`).toBe(400);
          expect(res.body, `${method} ${path}`).toEqual(conductorBadRequest(/^path\.(process|account): .*NUL/));
        }
        const put = await conductor('PUT', '/rbac/users/ro%00ot/secret', { secret: 'a-new-secret-for-root-0123456789' });
        expect(put.status, put.text).toBe(400);
      });

      it('refuses a raw %00 in a query value with 400, on the compliance and the conductor API', async () => {
        const compliance = await server.request('GET', '/v0/environments?query=prod%00');
        expect(compliance.status, compliance.text).toBe(400);
        expect(compliance.body).toEqual(complianceBadRequest(/^query\.query: .*NUL/));
        const rules = await server.request('GET', '/v0/rules?query=%00');
        expect(rules.status, rules.text).toBe(400);
        const processes = await conductor('GET', '/processes?account=prod%00main');
        expect(processes.status, processes.text).toBe(400);
        expect(processes.body).toEqual(conductorBadRequest(/^query\.account: .*NUL/));
      });

      it('refuses a NUL in the Basic user name with 401, as any other bad credentials, before looking it up', async () => {
        const clientId = Buffer.from(server.auth.slice('Basic '.length), 'base64').toString().split(':')[0]!;
        for (const user of [`${clientId}\u0000`, '\u0000', `cl_\u0000${clientId.slice(3)}`]) {
          const res = await server.request('GET', '/v0/environments', { auth: basic(user, 'whatever-secret') });
          expect(res.status, res.text).toBe(401);
          expect(res.body).toEqual({ type: 'AuthenticationError', code: 401, message: 'The authentication token is invalid or missing' });
          expect(res.headers.get('www-authenticate')).toBe('Basic realm="compliance", charset="UTF-8"');
        }
        for (const user of ['ro\u0000ot', 'root\u0000']) {
          const res = await server.request('GET', '/api/v0/accounts', { auth: basic(user, ROOT_SECRET) });
          expect(res.status, res.text).toBe(401);
          expect(res.body).toEqual({ code: 401, message: 'Unauthorized', errors: [] });
          expect(res.headers.get('www-authenticate')).toBe('Basic realm="conductor", charset="UTF-8"');
        }
      });
    });

    describe('lone surrogates', () => {
      it('refuses a string holding a lone UTF-16 surrogate as invalid text, and stores nothing', async () => {
        for (const name of ['prod\ud800', '\udc00prod', 'pr\udfff\ud800od']) {
          const res = await server.request('POST', '/v0/environments', {
            body: {
              name,
              provider: 'provider_a',
              provider_options: { provider_a: { role_arn: 'arn:prova:iam::123456789012:role/scanner', regions: ['*'] } },
            },
          });
          expect(res.status, `${JSON.stringify(name)}: ${res.text}`).toBe(400);
          expect(res.body).toEqual(complianceBadRequest(/^name: .*lone surrogate/));
        }
        expect((await server.request('GET', '/v0/environments')).body.count).toBe(0);
      });

      it('refuses a lone surrogate in the console and the conductor API in their error bodies', async () => {
        const call = await consoleSession();
        const res = await call('POST', '/api-clients', { name: 'ci-\udbff' });
        expect(res.status, res.text).toBe(400);
        expect(res.body).toEqual(consoleBadRequest(LONE_SURROGATE));
        const secret = await conductor('PUT', '/rbac/users/root/secret', { secret: `a-new-secret-for-root-\ud800-0123456789` });
        expect(secret.status, secret.text).toBe(400);
        expect(secret.body).toEqual(conductorBadRequest(LONE_SURROGATE));
      });

      it('keeps a well-formed surrogate pair (an emoji) as it was sent', async () => {
        const env = await createEnvironment(server, { name: 'prod 🚀' });
        expect(env.name).toBe('prod 🚀');
        expect((await server.request('GET', `/v0/environments/${env.id}`)).body.name).toBe('prod 🚀');
      });
    });

    describe('lengths count characters, not UTF-16 code units', () => {
      it('accepts an environment name of 255 emoji and refuses one of 256', async () => {
        const name = '🌍'.repeat(255);
        const env = await createEnvironment(server, { name });
        expect(env.name).toBe(name);
        const renamed = await server.request('PATCH', `/v0/environments/${env.id}`, { body: { name: '🌊'.repeat(200) } });
        expect(renamed.status, renamed.text).toBe(200);
        expect(renamed.body.name).toBe('🌊'.repeat(200));
        const tooLong = await server.request('POST', '/v0/environments', {
          body: {
            name: '🌍'.repeat(256),
            provider: 'provider_a',
            provider_options: { provider_a: { role_arn: 'arn:prova:iam::123456789012:role/scanner', regions: ['*'] } },
          },
        });
        expect(tooLong.status, tooLong.text).toBe(400);
        expect(tooLong.body).toEqual(complianceBadRequest(/^name: .*255 characters/));
      });

      it('accepts a console API client name of 100 emoji and refuses one of 101', async () => {
        const call = await consoleSession();
        const created = await call('POST', '/api-clients', { name: '🔑'.repeat(100) });
        expect(created.status, created.text).toBe(201);
        expect(created.body.name).toBe('🔑'.repeat(100));
        const tooLong = await call('POST', '/api-clients', { name: '🔑'.repeat(101) });
        expect(tooLong.status, tooLong.text).toBe(400);
        expect(tooLong.body).toEqual(consoleBadRequest(/^name: .*100 characters/));
      });

      it('accepts a custom rule and a notification named in 200 emoji', async () => {
        const rule = await server.request('POST', '/v0/rules', { body: customRuleBody('🛡'.repeat(200)) });
        expect(rule.status, rule.text).toBe(201);
        expect(rule.body.name).toBe('🛡'.repeat(200));
        const notification = await server.request('POST', '/v0/notifications', {
          body: { name: '📣'.repeat(200), environments: ['*'], events: ['drift'], emails: ['ops@example.com'] },
        });
        expect(notification.status, notification.text).toBe(201);
        expect(notification.body.name).toBe('📣'.repeat(200));
      });
    });

    describe('integer bounds', () => {
      for (const api of API_NAMES.filter((name) => name !== 'conductor')) {
        for (const list of pagedLists(api)) {
          it(`${api} ${list.operationId} refuses an offset of 2^63 with 400 and accepts 2^53 - 1`, async () => {
            const call = api === 'console' ? await consoleSession() : undefined;
            const get = (query: string) => {
              const url = list.url(query);
              return call ? call('GET', url.slice('/console/api'.length)) : server.request('GET', url);
            };
            for (const offset of ['9223372036854775808', '18446744073709551616', '1e20', '9007199254740992']) {
              const res = await get(`offset=${offset}`);
              expect(res.status, `offset=${offset}: ${res.text}`).toBe(400);
              expect(res.body, `offset=${offset}`).toEqual({ type: 'InvalidParameterValue', code: 400, message: expect.stringMatching(/^query\.offset: .*must be <= 9007199254740991/) });
              // 1e20 is a number to JSON, not an integer as a query writes one.
              if (offset === '1e20') expect(res.body.message).toMatch(/query\.offset: must be an integer written in decimal digits/);
            }
            const largest = await get('offset=9007199254740991');
            expect(largest.status, largest.text).not.toBe(400);
            expect(largest.status, largest.text).toBeLessThan(500);
          });
        }
      }

      it('refuses range_from and range_to of 1e20 with 400 on scans and events', async () => {
        const env = await createEnvironment(server);
        for (const list of ['scans', 'events']) {
          for (const query of ['range_from=1e20', 'range_to=100000000000000000000', 'range_from=0&range_to=9223372036854775808']) {
            const res = await server.request('GET', `/v0/${list}?environment_id=${env.id}&${query}`);
            expect(res.status, `${list}?${query}: ${res.text}`).toBe(400);
            expect(res.body).toEqual(complianceBadRequest(/^query\.range_(from|to): (must be an integer written in decimal digits; query\.range_(from|to): )?must be <= 9007199254740991/));
          }
          const widest = await server.request('GET', `/v0/${list}?environment_id=${env.id}&range_from=0&range_to=9007199254740991`);
          expect(widest.status, `${list}: ${widest.text}`).toBe(200);
        }
      });

      it('refuses a scan_interval past 2^53 - 1 with 400', async () => {
        for (const scanInterval of [1e20, 9007199254740992]) {
          const res = await server.request('POST', '/v0/environments', {
            body: `{"name":"prod","provider":"provider_a","provider_options":{"provider_a":{"role_arn":"arn:prova:iam::123456789012:role/scanner","regions":["*"]}},"scan_interval":${scanInterval}}`,
          });
          expect(res.status, res.text).toBe(400);
          expect(res.body).toEqual(complianceBadRequest(/^scan_interval: must be <= 9007199254740991$/));
        }
      });
    });
  },
  'suite',
);
