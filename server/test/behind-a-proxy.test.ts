import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, it } from '@jest/globals';
import { describeEachDatabase } from './databases.js';
import { useTestServer, type TestServer } from './server.js';
import { expect } from './expect.js';

const run = promisify(execFile);
const PASSWORD = 'correct horse battery staple';

/** Signs in with curl, as a TLS-terminating proxy would forward the request, and returns the Set-Cookie line. */
async function sessionCookieVia(server: TestServer, forwarded: Record<string, string>): Promise<string> {
  const email = `proxy-${Math.random().toString(36).slice(2)}@example.com`;
  await server.services.consoleAuth.createUser(server.orgId, email, PASSWORD);
  const headers = Object.entries(forwarded).flatMap(([name, value]) => ['-H', `${name}: ${value}`]);
  const { stdout } = await run('curl', [
    '--silent', '--show-error', '--include', '-o', '-', '-H', 'content-type: application/json', ...headers,
    '--data', JSON.stringify({ email, password: PASSWORD }), `${server.baseUrl}/console/api/session`,
  ]);
  const line = stdout.split('\r\n').find((l) => /^set-cookie:/i.test(l));
  expect(line, stdout).toBeDefined();
  return line!.replace(/^set-cookie:\s*/i, '');
}

describeEachDatabase(
  'the session cookie behind a TLS-terminating proxy the server trusts (TRUST_PROXY=loopback)',
  (db) => {
    describe('with TRUST_PROXY naming the proxy', () => {
      const server = useTestServer(db, { trustProxy: ['loopback'] });

      it('is Secure when the proxy says the request came over https', async () => {
        expect(await sessionCookieVia(server(), { 'x-forwarded-proto': 'https' })).toMatch(/; Secure(;|$)/);
      });

      it('is not Secure for a request the proxy says came over plain http', async () => {
        expect(await sessionCookieVia(server(), { 'x-forwarded-proto': 'http' })).not.toMatch(/Secure/);
      });
    });
  },
  'suite',
);

describeEachDatabase(
  'the session cookie without TRUST_PROXY',
  (db) => {
    describe('without TRUST_PROXY', () => {
      const server = useTestServer(db);

      it('believes no X-Forwarded-Proto a client sends', async () => {
        expect(await sessionCookieVia(server(), { 'x-forwarded-proto': 'https' })).not.toMatch(/Secure/);
      });
    });
  },
  'suite',
);
