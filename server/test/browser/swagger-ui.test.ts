import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DATABASE_TARGETS, openTestDatabase, type TestDatabase } from '../databases.js';
import { ROOT_SECRET, startTestServer, type TestServer } from '../server.js';
import { hasChromium, launchChromium, SCREENSHOTS } from './chromium.js';

/**
 * Swagger UI at /docs as a reader of the docs uses it: pick a spec, authorize, "Try it out", and see the server that
 * served the page answer. Each spec's scheme list must not send the call elsewhere (the compliance spec lists https
 * first, which a plain-http server cannot answer).
 */
const EMAIL = 'docs.reader@example.org';
const PASSWORD = 'a-long-docs-password';

const describeBrowser = hasChromium ? describe : describe.skip;

describeBrowser('Swagger UI at /docs in chromium', () => {
  let db: TestDatabase & { dispose(): Promise<void> };
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  let clientId: string;
  let clientSecret: string;

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    db = await openTestDatabase(DATABASE_TARGETS[0]!);
    server = await startTestServer(db);
    const { client, secret } = await server.services.apiClients.createWithSecret(server.orgId, 'docs reader');
    [clientId, clientSecret] = [client.clientId, secret];
    await server.services.consoleAuth.createUser(server.orgId, EMAIL, PASSWORD, { firstName: 'Docs', lastName: 'Reader' });
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 1000 } })).newPage();
    page.setDefaultTimeout(10_000);
    await page.goto(`${server.baseUrl}/docs/`);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await db?.dispose();
  });

  const pickSpec = async (name: string) => {
    await page.locator('.topbar select').selectOption({ label: name });
    await page.locator('.information-container .title').waitFor();
  };

  const authorizeBasic = async (user: string, password: string) => {
    await page.locator('button.authorize').first().click();
    const modal = page.locator('.modal-ux');
    await modal.locator('input[type="text"]').first().fill(user);
    await modal.locator('input[type="password"]').first().fill(password);
    // The dialog's buttons are labelled for screen readers ("Apply credentials", "Close modal"), not by their text.
    await modal.locator('button.modal-btn.authorize').first().click();
    await modal.locator('button.btn-done').first().click();
  };

  /** Opens an operation, runs "Try it out" with what `fill` enters, and returns the status shown and the request URL. */
  const tryItOut = async (method: string, path: string, fill?: (operation: ReturnType<Page['locator']>) => Promise<void>) => {
    const operation = page.locator(`.opblock.opblock-${method}`).filter({ has: page.locator(`[data-path="${path}"]`) }).first();
    await operation.locator('.opblock-summary').first().click();
    await operation.getByRole('button', { name: 'Try it out' }).click();
    await fill?.(operation);
    await operation.getByRole('button', { name: 'Execute' }).click();
    const status = operation.locator('.live-responses-table tbody .response-col_status').first();
    await status.waitFor();
    const url = (await operation.locator('.request-url pre').first().textContent()) ?? '';
    return { status: (await status.textContent())?.trim(), url };
  };

  it('runs an operation of the compliance API against the server that served the page', async () => {
    await pickSpec('compliance');
    await authorizeBasic(clientId, clientSecret);
    const answer = await tryItOut('get', '/environments');
    await page.screenshot({ path: join(SCREENSHOTS, 'docs-compliance-try-it-out.png'), fullPage: false });
    expect(answer.url.startsWith(`${server.baseUrl}/v0/environments`)).toBe(true);
    expect(answer.status).toBe('200');
  }, 30_000);

  it('runs an operation of the conductor API as root', async () => {
    await pickSpec('conductor');
    await authorizeBasic('root', ROOT_SECRET);
    const answer = await tryItOut('get', '/accounts');
    expect(answer.url.startsWith(`${server.baseUrl}/api/v0/accounts`)).toBe(true);
    expect(answer.status).toBe('200');
  }, 30_000);

  it('signs in to the console API and then reads the session with the cookie the browser keeps', async () => {
    await pickSpec('console');
    const signIn = await tryItOut('post', '/session', async (operation) => {
      await operation.locator('textarea.body-param__text').fill(JSON.stringify({ email: EMAIL, password: PASSWORD }));
    });
    expect(signIn.status).toBe('200');
    const session = await tryItOut('get', '/session');
    await page.screenshot({ path: join(SCREENSHOTS, 'docs-console-try-it-out.png'), fullPage: false });
    expect(session.url).toBe(`${server.baseUrl}/console/api/session`);
    expect(session.status).toBe('200');
  }, 30_000);
});
