import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { freePort, start, type Started } from '../../../contract-tests/processes.js';
import { MOCK_DEMO_CLIENT, type MockCredentials } from '../../src/demo/mock.js';
import { PROJECT_ROOT } from '../../src/paths.js';
import { DATABASE_TARGETS, openTestDatabase, type TestDatabase } from '../databases.js';
import { basic, startTestServer, type TestServer } from '../server.js';
import { hasChromium, launchChromium } from './chromium.js';

/**
 * A frontend served from its own origin (as a dev server on localhost:5173 would be) calling the APIs from a real
 * browser: the server with CORS_ORIGINS naming that origin, and the mocks `make mock` starts (the stateful mock and
 * the Prism mocks, its very script on ports of their own) must give the page the same answers. The stateful mock
 * also lets a page of its own site (its host, another port) sign in to its console; no other site gets in, and the
 * server itself lets no page in with credentials unless CORS_ORIGINS names it.
 */
const PAGE = `<!doctype html><meta charset="utf-8"><title>frontend</title><script>
  window.call = async (url, authorization) => {
    const headers = authorization ? { authorization } : {};
    const answer = await fetch(url, { headers });
    const body = await answer.json();
    return { status: answer.status, keys: Object.keys(body).sort() };
  };
  window.refused = async (url, authorization) => {
    try {
      await fetch(url, { headers: { authorization } });
      return false;
    } catch {
      return true;
    }
  };
</script>`;

/**
 * Signs in to the console API at `base` from the page with credentials, then reads the session and creates a client
 * with the cookie the browser kept; what a frontend under development does. Where CORS refuses the answer, the
 * browser throws and the page says `refused`.
 */
async function consoleFromPage({ base, admin }: { base: string; admin: { email: string; password: string } }) {
  const json = { 'content-type': 'application/json' };
  try {
    const signIn = await fetch(`${base}/console/api/session`, { method: 'POST', credentials: 'include', headers: json, body: JSON.stringify(admin) });
    const { csrf_token: csrf } = (await signIn.json()) as { csrf_token: string };
    const session = await fetch(`${base}/console/api/session`, { credentials: 'include' });
    const { user } = (await session.json()) as { user: { email: string } };
    const created = await fetch(`${base}/console/api/api-clients`, {
      method: 'POST',
      credentials: 'include',
      headers: { ...json, 'x-csrf-token': csrf },
      body: JSON.stringify({ name: `frontend-${Math.random().toString(36).slice(2)}`, with_secret: true }),
    });
    const client = (await created.json()) as { client_secret?: string };
    return { signIn: signIn.status, session: session.status, user: user.email, created: created.status, secretShown: typeof client.client_secret === 'string' };
  } catch {
    return 'refused';
  }
}

const run = promisify(execFile);

/** A preflight of the console's sign-in as a browser on `origin` sends it, by curl: the CORS headers of the answer. */
async function signInPreflight(url: string, origin: string): Promise<Record<string, string>> {
  const { stdout } = await run('curl', ['-sS', '-i', '-X', 'OPTIONS', '-H', `Origin: ${origin}`, '-H', 'Access-Control-Request-Method: POST', '-H', 'Access-Control-Request-Headers: content-type', url]);
  const headers: Record<string, string> = {};
  for (const line of stdout.split('\r\n\r\n')[0]!.split('\r\n').slice(1)) {
    const colon = line.indexOf(':');
    if (/^(access-control-|vary)/i.test(line)) headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  return headers;
}

const describeBrowser = hasChromium ? describe : describe.skip;

describeBrowser('a page on another origin calling the APIs in chromium', () => {
  let frontend: Server;
  let frontendOrigin: string;
  let db: TestDatabase & { dispose(): Promise<void> };
  let server: TestServer;
  let mocks: Started;
  let mockData: string;
  let statefulMock: { baseUrl: string; auth: string; admin: MockCredentials['console_admin'] };
  let prism: { url: string };
  let consolePrism: { url: string };
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    frontend = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE));
    await new Promise<void>((resolve) => frontend.listen(0, '127.0.0.1', resolve));
    frontendOrigin = `http://127.0.0.1:${(frontend.address() as AddressInfo).port}`;
    db = await openTestDatabase(DATABASE_TARGETS[0]!);
    server = await startTestServer(db, { corsOrigins: [frontendOrigin] });
    // `make mock` itself, on free ports, its credentials in a directory of its own.
    const [stateful, compliance, conductor, consolePort] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
    mockData = await mkdtemp(join(tmpdir(), 'make-mock-'));
    mocks = start(
      process.execPath,
      ['--import', 'tsx', 'contract-tests/stateful-mock.ts'],
      {
        ...process.env,
        MOCK_PORT_STATEFUL: String(stateful),
        MOCK_PORT_COMPLIANCE: String(compliance),
        MOCK_PORT_CONDUCTOR: String(conductor),
        MOCK_PORT_CONSOLE: String(consolePort),
        MOCK_DATA_DIR: mockData,
        // `large` is made on its first load, if this suite loads it at all, not at start.
        MOCK_LARGE_AT_START: 'false',
      },
      PROJECT_ROOT,
    );
    for (const deadline = Date.now() + 110_000; !/^ready$/m.test(mocks.output()); ) {
      if (mocks.child.exitCode !== null || Date.now() > deadline) throw new Error(`make mock did not start:\n${mocks.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const credentials = JSON.parse(await readFile(join(mockData, 'mock-credentials.json'), 'utf8')) as MockCredentials;
    statefulMock = { baseUrl: `http://127.0.0.1:${stateful}`, auth: basic(MOCK_DEMO_CLIENT.client_id, MOCK_DEMO_CLIENT.client_secret), admin: credentials.console_admin };
    prism = { url: `http://127.0.0.1:${compliance}` };
    consolePrism = { url: `http://127.0.0.1:${consolePort}` };
    browser = await launchChromium();
    page = await browser.newPage();
    await page.goto(frontendOrigin);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await mocks?.stop();
    await server?.close();
    await db?.dispose();
    if (mockData) await rm(mockData, { recursive: true, force: true });
    await new Promise((resolve) => frontend?.close(resolve));
  });

  const call = (url: string, authorization?: string) =>
    page.evaluate(([target, auth]) => (globalThis as unknown as { call(u: string, a?: string): Promise<{ status: number; keys: string[] }> }).call(target!, auth), [url, authorization] as const);

  it('gets the same answers from the server, the stateful mock and the Prism mock, preflight included', async () => {
    const targets = [
      { base: server.baseUrl, auth: server.auth },
      { base: statefulMock.baseUrl, auth: statefulMock.auth },
      { base: prism.url, auth: basic('any-client', 'any-secret') },
    ];
    const listed = await Promise.all(targets.map(({ base, auth }) => call(`${base}/v0/environments`, auth)));
    // `next_offset` comes only with a truncated page, as in the Prism mock's example; the rest of a page is the same.
    const page = (answer: { status: number; keys: string[] }) => ({ status: answer.status, keys: answer.keys.filter((key) => key !== 'next_offset') });
    for (const answer of listed) expect(page(answer)).toEqual({ status: 200, keys: ['count', 'is_truncated', 'items'] });
    const unauthenticated = await Promise.all(targets.map(({ base }) => call(`${base}/v0/environments`)));
    for (const answer of unauthenticated) expect({ status: answer.status, keys: answer.keys }).toEqual({ status: 401, keys: ['code', 'message', 'type'] });
  }, 60_000);

  it('signs in to the console API’s Prism mock from its own origin, then calls it with the cookie the browser keeps', async () => {
    const tab = await browser.newPage();
    try {
      await tab.goto(`${consolePrism.url}/console/api/session`);
      const answers = await tab.evaluate(async () => {
        const signIn = await fetch('/console/api/session', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ email: 'admin@example.com', password: 'mock-admin-password' }),
        });
        const { csrf_token: csrf } = (await signIn.json()) as { csrf_token: string };
        const session = await fetch('/console/api/session');
        const created = await fetch('/console/api/api-clients', {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-csrf-token': csrf },
          body: JSON.stringify({ name: 'frontend-client' }),
        });
        const invalid = await fetch('/console/api/api-clients', {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-csrf-token': csrf },
          body: JSON.stringify({ nme: 'misspelt' }),
        });
        const refusal = (await invalid.json()) as { message: string };
        return { signIn: signIn.status, session: session.status, created: created.status, invalid: invalid.status, refusal: refusal.message };
      });
      // The mock's 400 shows the form of the message, not a field the request did not send.
      expect(answers.refusal).toMatch(/^<field>: <the rule it breaks>/);
      delete (answers as Partial<typeof answers>).refusal;
      // Prism refuses a call of the console API without the cookie: the browser kept it from the sign-in and sent it.
      expect(answers).toEqual({ signIn: 200, session: 200, created: 201, invalid: 400 });
      expect((await tab.context().cookies()).find((cookie) => cookie.name === 'console_session')).toMatchObject({ value: 'mock-session', httpOnly: true, path: '/console' });
    } finally {
      await tab.close();
    }
  }, 30_000);

  it('is refused by a server that does not list the page’s origin', async () => {
    const otherDb = await openTestDatabase(DATABASE_TARGETS[0]!);
    const other = await startTestServer(otherDb, { corsOrigins: ['http://localhost:5173'] });
    try {
      const refused = await page.evaluate(([url, auth]) => (globalThis as unknown as { refused(u: string, a: string): Promise<boolean> }).refused(url!, auth!), [`${other.baseUrl}/v0/environments`, other.auth] as const);
      expect(refused).toBe(true);
    } finally {
      await other.close();
      await otherDb.dispose();
    }
  }, 30_000);
  it('signs in to the stateful mock’s console from a page of its own site on another port, and acts with the cookie', async () => {
    // The page is on 127.0.0.1, another port: the same site as the mock, so the SameSite=Strict cookie travels.
    expect(new URL(frontendOrigin).hostname).toBe(new URL(statefulMock.baseUrl).hostname);
    const answers = await page.evaluate(consoleFromPage, { base: statefulMock.baseUrl, admin: statefulMock.admin });
    expect(answers).toEqual({ signIn: 200, session: 200, user: statefulMock.admin.email, created: 201, secretShown: true });
    // From outside the browser: the mock names that origin, with credentials, and says the answer varies by origin.
    const preflight = await signInPreflight(`${statefulMock.baseUrl}/console/api/session`, frontendOrigin);
    expect(preflight).toMatchObject({ 'access-control-allow-origin': frontendOrigin, 'access-control-allow-credentials': 'true' });
    expect(preflight.vary).toMatch(/\bOrigin\b/);
  }, 30_000);

  it('keeps a page of another site out of the stateful mock’s console', async () => {
    // localhost and 127.0.0.1 are different sites to a browser, whatever the machine.
    const otherSite = `http://localhost:${new URL(frontendOrigin).port}`;
    const tab = await browser.newPage();
    try {
      await tab.goto(otherSite);
      expect(await tab.evaluate(consoleFromPage, { base: statefulMock.baseUrl, admin: statefulMock.admin })).toBe('refused');
    } finally {
      await tab.close();
    }
    const preflight = await signInPreflight(`${statefulMock.baseUrl}/console/api/session`, otherSite);
    expect(preflight['access-control-allow-origin']).toBe('*');
    expect(preflight['access-control-allow-credentials']).toBeUndefined();
  }, 30_000);

  it('lets no page sign in to the server’s console with credentials when CORS_ORIGINS is * (only origins it names)', async () => {
    const otherDb = await openTestDatabase(DATABASE_TARGETS[0]!);
    const other = await startTestServer(otherDb, { corsOrigins: '*' });
    try {
      const admin = { email: 'frontend.admin@example.org', password: 'a-long-frontend-password' };
      await other.services.consoleAuth.createUser(other.orgId, admin.email, admin.password, { firstName: 'Front', lastName: 'End' });
      // A page of the server's own host on another port: let into the mock's console, not into the server's.
      expect(await page.evaluate(consoleFromPage, { base: other.baseUrl, admin })).toBe('refused');
      const preflight = await signInPreflight(`${other.baseUrl}/console/api/session`, frontendOrigin);
      expect(preflight['access-control-allow-origin']).toBe('*');
      expect(preflight['access-control-allow-credentials']).toBeUndefined();
    } finally {
      await other.close();
      await otherDb.dispose();
    }
  }, 30_000);
});
