import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DATABASE_TARGETS, openTestDatabase, type TestDatabase } from '../databases.js';
import { eventually } from '../eventually.js';
import { ensureConsoleBuilt } from './builds.js';
import { hasChromium, launchChromium, SCREENSHOTS } from './chromium.js';
import { basic, startTestServer, type TestServer } from '../server.js';

/**
 * The console in a real browser against the real server: Debian's chromium driven by playwright-core (no browser
 * download). Screenshots of every step go to reports/screenshots/, kept as the run's artifacts.
 */

const EMAIL = 'console.tester@example.org';
const PASSWORD = 'a-long-console-password';


/** 25 clients whose names start with 25 different letters, so every collation sorts them alike; every other one is capitalised to show the name order ignores case. */
const NAMES = ['apollo', 'Borealis', 'cassini', 'Dawn', 'europa', 'Fermi', 'galileo', 'Hubble', 'insight', 'Juno', 'kepler', 'Luna', 'magellan', 'Newton', 'orion', 'Pioneer', 'quasar', 'Rosetta', 'surveyor', 'Tiangong', 'ulysses', 'Viking', 'webb', 'Xmm', 'Yutu'];
/**
 * Clients left without a secret (status Created), one whose secret gets revoked, and clients with a secret never
 * used. They tie on secret age or last activity (both null), where the name breaks the tie; all lower-case, so
 * that tie-break reads the same whether or not it ignores case.
 */
const WITHOUT_SECRET = new Set(['apollo', 'europa', 'insight']);
const REVOKED = 'orion';
const NEVER_USED = new Set([...WITHOUT_SECRET, 'cassini', 'galileo']);

interface Row {
  name: string;
  clientId: string;
  secretCreatedAt: number | null;
  lastActivityAt: number | null;
}

type Column = 'name' | 'client_id' | 'secret_age' | 'last_activity';

/**
 * The order the spec promises (listApiClients), computed here from what the test did rather than read back from
 * the server: null secrets are older than any secret, never-used clients the least recently used, ties by name then id.
 */
function expectedOrder(rows: Row[], column: Column, direction: 'asc' | 'desc'): string[] {
  const key = (row: Row): string | number => {
    switch (column) {
      case 'name':
        return row.name.toLowerCase();
      case 'client_id':
        return row.clientId;
      case 'secret_age':
        // A later secret is a younger one; no secret counts as older than any.
        return row.secretCreatedAt === null ? Number.POSITIVE_INFINITY : -row.secretCreatedAt;
      case 'last_activity':
        return row.lastActivityAt ?? Number.NEGATIVE_INFINITY;
    }
  };
  const sign = direction === 'asc' ? 1 : -1;
  const compare = (a: string | number, b: string | number) => (a < b ? -1 : a > b ? 1 : 0);
  return [...rows]
    .sort((a, b) => sign * compare(key(a), key(b)) || compare(a.name.toLowerCase(), b.name.toLowerCase()) || compare(a.clientId, b.clientId))
    .map((row) => row.name);
}

const describeBrowser = hasChromium ? describe : describe.skip;

describeBrowser('the web console in chromium', () => {
  let db: TestDatabase & { dispose(): Promise<void> };
  let server: TestServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const pageErrors: string[] = [];
  let shot = 0;

  const screenshot = async (name: string) => {
    shot += 1;
    await page.screenshot({ path: join(SCREENSHOTS, `console-${String(shot).padStart(2, '0')}-${name}.png`), fullPage: true });
  };
  const consoleUrl = (path = '') => `${server.baseUrl}/console/${path}`;
  const environmentsWith = async (clientId: string, secret: string) =>
    (await fetch(`${server.baseUrl}/v0/environments`, { headers: { authorization: basic(clientId, secret) } })).status;
  const rowOf = (name: string): Locator => page.locator('tbody tr').filter({ has: page.getByRole('rowheader', { name, exact: true }) });
  const rowNames = () => page.locator('tbody th[scope="row"]').allTextContents();
  const banner = () => page.getByRole('alert');
  const button = (name: string) => page.getByRole('button', { name, exact: true });

  /** A test body that, when a step fails, keeps what the browser showed (the quickest clue) beside the other screenshots. */
  const capturingFailure =
    <Args extends unknown[]>(body: (...args: Args) => Promise<void>) =>
    async (...args: Args) => {
      try {
        await body(...args);
      } catch (failure) {
        const name = expect.getState().currentTestName ?? 'unnamed';
        if (page) await screenshot(`failed-${name.replace(/[^A-Za-z0-9]+/g, '-').slice(-60)}`).catch(() => undefined);
        throw failure;
      }
    };

  /** Waits for the one-time secret dialog titled `title` and reads the pair out of it; the caller closes it. */
  const takeSecret = async (title: string) => {
    const dialog = page.getByRole('dialog', { name: title });
    await dialog.waitFor();
    const clientId = await dialog.getByLabel('Client ID', { exact: true }).inputValue();
    const secret = await dialog.getByLabel('Client secret', { exact: true }).inputValue();
    return { dialog, clientId, secret };
  };

  /**
   * Signs the page in unless it is already. The tests follow one another as a walk through the console, and each
   * may also run alone (`-t`): what a test needs from the ones before it, it makes itself when it is missing.
   */
  const signedIn = async () => {
    if ((await button('Sign out').count()) > 0) return;
    await page.goto(consoleUrl());
    await page.getByLabel('Email address').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await button('Sign in').click();
    await page.getByRole('heading', { name: 'API clients', level: 1 }).waitFor();
  };

  /** The client `name`, made through the console API with a revoked secret when it does not exist yet (409: it does). */
  const existingClient = async (name: string) => {
    await signedIn();
    const session = await (await page.request.get(`${server.baseUrl}/console/api/session`)).json();
    const headers = { 'X-CSRF-Token': session.csrf_token as string };
    const created = await page.request.post(`${server.baseUrl}/console/api/api-clients`, { data: { name }, headers });
    if (created.status() === 409) return;
    expect(created.status()).toBe(201);
    const clients = `${server.baseUrl}/console/api/api-clients/${(await created.json()).client_id}`;
    expect((await page.request.post(`${clients}/secret`, { headers })).status()).toBe(201);
    expect((await page.request.delete(`${clients}/secret`, { headers })).status()).toBe(200);
    await page.reload();
    await rowOf(name).getByText('Secret Revoked', { exact: true }).waitFor();
  };

  beforeAll(async () => {
    await ensureConsoleBuilt();
    mkdirSync(SCREENSHOTS, { recursive: true });
    // Only this run's pictures: a renamed or removed step must not leave an old one looking current.
    for (const file of readdirSync(SCREENSHOTS)) if (file.startsWith('console-') && file.endsWith('.png')) rmSync(join(SCREENSHOTS, file));
    db = await openTestDatabase(DATABASE_TARGETS[0]!);
    server = await startTestServer(db);
    // An organization of its own: the test server's default one already holds the API client the other tests use.
    const organization = await server.services.organizations.ensure('console-browser-tests');
    await server.services.consoleAuth.createUser(organization.id, EMAIL, PASSWORD, { firstName: 'Casey', lastName: 'Tester' });
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1280, height: 860 }, locale: 'en-US', timezoneId: 'UTC' });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.baseUrl });
    page = await context.newPage();
    page.setDefaultTimeout(10_000);
    // Failed API calls log "Failed to load resource" by design (the tests provoke 401 and 409); anything else that
    // reaches the console, a script error or a Content-Security-Policy refusal, is a defect.
    page.on('pageerror', (error) => pageErrors.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) pageErrors.push(`console error: ${message.text()}`);
    });
  }, 180_000);


  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await db?.dispose();
  });

  it('signs in, showing the API message for a wrong password', capturingFailure(async () => {
    await page.goto(consoleUrl());
    await page.getByRole('heading', { name: 'Sign in to the console' }).waitFor();
    await screenshot('sign-in');

    await page.getByLabel('Email address').fill(EMAIL);
    await page.getByLabel('Password').fill('not-the-password');
    await button('Sign in').click();
    await eventually(async () => expect(await banner().textContent()).toContain('Invalid email or password'));
    await screenshot('sign-in-failed');

    await page.getByLabel('Password').fill(PASSWORD);
    await button('Sign in').click();
    await page.getByRole('heading', { name: 'API clients', level: 1 }).waitFor();
    await eventually(async () => expect(await banner().count()).toBe(0));
    expect(await page.locator('.top-bar').textContent()).toContain('Casey Tester');
    await page.getByText('No API clients yet').waitFor();
    await screenshot('clients-empty');
  }));

  it('creates a client showing its ID and secret at once, a secret that works, and revokes it so the secret fails', capturingFailure(async () => {
    await signedIn();
    await page.getByLabel('Client name').fill('ci-pipeline');
    await button('Create client').click();
    // One step: the answer to the creation carries the secret, shown in the dialog it opens.
    const { dialog, clientId, secret } = await takeSecret('ci-pipeline is created');
    expect(clientId).toMatch(/^[A-Za-z0-9_-]{20,64}$/);
    expect(secret.length).toBeGreaterThanOrEqual(43);
    await dialog.getByRole('button', { name: 'Copy client secret' }).click();
    await dialog.getByText('Client secret copied to the clipboard.').waitFor();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(secret);
    await screenshot('secret-dialog');

    expect(await environmentsWith(clientId, secret)).toBe(200);

    await dialog.getByRole('button', { name: 'Done' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByRole('status').filter({ hasText: 'ci-pipeline is created' }).waitFor();
    await rowOf('ci-pipeline').getByText('Active', { exact: true }).waitFor();
    expect(await rowOf('ci-pipeline').locator('code').textContent()).toBe(clientId);
    await screenshot('client-active');

    await button('Revoke secret of ci-pipeline').click();
    const confirm = page.getByRole('alertdialog', { name: 'Revoke the secret of ci-pipeline?' });
    await confirm.waitFor();
    await screenshot('confirm-revoke');
    await confirm.getByRole('button', { name: 'Revoke secret' }).click();
    await rowOf('ci-pipeline').getByText('Secret Revoked', { exact: true }).waitFor();

    expect(await environmentsWith(clientId, secret)).toBe(401);
    await screenshot('client-revoked');
  }));

  it('generates a new secret for a revoked client, and regenerates it only after confirmation', capturingFailure(async () => {
    await existingClient('ci-pipeline');
    await button('Generate secret for ci-pipeline').click();
    const first = await takeSecret('New secret for ci-pipeline');
    expect(await environmentsWith(first.clientId, first.secret)).toBe(200);
    await first.dialog.getByRole('button', { name: 'Done' }).click();
    await rowOf('ci-pipeline').getByText('Active', { exact: true }).waitFor();

    await button('Regenerate secret for ci-pipeline').click();
    const confirm = page.getByRole('alertdialog', { name: 'Regenerate the secret of ci-pipeline?' });
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await confirm.waitFor({ state: 'detached' });
    expect(await environmentsWith(first.clientId, first.secret)).toBe(200);

    await button('Regenerate secret for ci-pipeline').click();
    await confirm.getByRole('button', { name: 'Regenerate secret' }).click();
    const second = await takeSecret('New secret for ci-pipeline');
    expect(second.secret).not.toBe(first.secret);
    await second.dialog.getByRole('button', { name: 'Done' }).click();
    expect(await environmentsWith(first.clientId, first.secret)).toBe(401);
    expect(await environmentsWith(second.clientId, second.secret)).toBe(200);
  }));

  it('shows the API message when a name is taken, and keeps the typed name', capturingFailure(async () => {
    await existingClient('ci-pipeline');
    await page.getByLabel('Client name').fill('CI-Pipeline');
    const [answer] = await Promise.all([
      page.waitForResponse((response) => response.request().method() === 'POST' && new URL(response.url()).pathname === '/console/api/api-clients'),
      button('Create client').click(),
    ]);
    expect(answer.status()).toBe(409);
    const { message } = (await answer.json()) as { message: string };
    await eventually(async () => expect(await banner().textContent()).toContain(message));
    expect(await banner().textContent()).toContain('409');
    expect(await page.getByLabel('Client name').inputValue()).toBe('CI-Pipeline');
    await screenshot('error-banner');
    await banner().getByRole('button', { name: 'Dismiss' }).click();
    await eventually(async () => expect(await banner().count()).toBe(0));
    await page.getByLabel('Client name').fill('');
  }));

  it('deletes a client only after confirmation, and its secret stops working', capturingFailure(async () => {
    await existingClient('ci-pipeline');
    const clientId = (await rowOf('ci-pipeline').locator('code').textContent())!;
    await button('Delete ci-pipeline').click();
    const confirm = page.getByRole('alertdialog', { name: 'Delete ci-pipeline?' });
    await confirm.waitFor();
    await screenshot('confirm-delete');
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await confirm.waitFor({ state: 'detached' });
    expect(await rowOf('ci-pipeline').count()).toBe(1);

    await button('Delete ci-pipeline').click();
    await confirm.getByRole('button', { name: 'Delete client' }).click();
    await page.getByRole('status').filter({ hasText: 'ci-pipeline is deleted' }).waitFor();
    await page.getByText('No API clients yet').waitFor();
    const gone = await fetch(`${server.baseUrl}/console/api/api-clients/${clientId}`);
    expect(gone.status).toBe(401); // no cookie outside the browser: the API itself refuses
    expect((await page.request.get(`${server.baseUrl}/console/api/api-clients/${clientId}`)).status()).toBe(404);
  }));

  describe('with 25 clients', () => {
    const rows: Row[] = [];
    const sortButton: Record<Column, string> = { name: 'Client Name', client_id: 'Client ID', secret_age: 'Secret Age', last_activity: 'Last Activity' };

    const showAll = async () => {
      await page.getByLabel('Rows per page').selectOption('50');
      await page.getByText('Showing 1–25 of 25').waitFor();
    };

    beforeAll(async () => {
      await signedIn();
      // Set up through the console API with the browser's own session (page.request shares its cookies), with the
      // clock moved between steps so secret ages and last activities all differ.
      const session = await (await page.request.get(`${server.baseUrl}/console/api/session`)).json();
      const headers = { 'X-CSRF-Token': session.csrf_token as string };
      const secrets = new Map<string, string>();
      for (const name of NAMES) {
        const created = await page.request.post(`${server.baseUrl}/console/api/api-clients`, { data: { name }, headers });
        expect(created.status()).toBe(201);
        const row: Row = { name, clientId: (await created.json()).client_id, secretCreatedAt: null, lastActivityAt: null };
        rows.push(row);
        if (WITHOUT_SECRET.has(name)) continue;
        server.clock.advanceSeconds(7 * 60);
        const generated = await page.request.post(`${server.baseUrl}/console/api/api-clients/${row.clientId}/secret`, { headers });
        expect(generated.status()).toBe(201);
        secrets.set(name, (await generated.json()).client_secret);
        row.secretCreatedAt = server.clock.nowSeconds();
      }
      // Use the clients in an order unrelated to their names or secrets.
      const used = rows.filter((row) => secrets.has(row.name) && !NEVER_USED.has(row.name));
      for (const row of [...used].sort((a, b) => (a.clientId < b.clientId ? -1 : 1))) {
        server.clock.advanceSeconds(3 * 60);
        expect(await environmentsWith(row.clientId, secrets.get(row.name)!)).toBe(200);
        row.lastActivityAt = server.clock.nowSeconds();
      }
      // The server batches last-activity writes on a timer (main.ts); the test server has none, so write them now.
      await server.services.apiClients.flushActivity();
      const revoked = rows.find((row) => row.name === REVOKED)!;
      expect((await page.request.delete(`${server.baseUrl}/console/api/api-clients/${revoked.clientId}/secret`, { headers })).status()).toBe(200);
      revoked.secretCreatedAt = null;
      await page.reload();
      await page.getByText('Showing 1–10 of 25').waitFor();
    });

    it('sorts by name ascending by default and pages through them ten at a time', capturingFailure(async () => {
      const byName = expectedOrder(rows, 'name', 'asc');
      expect(await page.locator('th[aria-sort]').allTextContents()).toEqual([expect.stringContaining('Client Name')]);
      expect(await page.locator('th[aria-sort]').getAttribute('aria-sort')).toBe('ascending');
      expect(await rowNames()).toEqual(byName.slice(0, 10));
      expect(await page.getByLabel('Rows per page').inputValue()).toBe('10');
      await page.getByText('Page 1 of 3').waitFor();
      expect(await button('Previous page').isDisabled()).toBe(true);
      await screenshot('clients-page-1');

      await button('Next page').click();
      await page.getByText('Showing 11–20 of 25').waitFor();
      expect(await rowNames()).toEqual(byName.slice(10, 20));
      await button('Next page').click();
      await page.getByText('Showing 21–25 of 25').waitFor();
      expect(await rowNames()).toEqual(byName.slice(20));
      expect(await button('Next page').isDisabled()).toBe(true);
      await screenshot('clients-page-3');
      await button('Previous page').click();
      await page.getByText('Showing 11–20 of 25').waitFor();
      expect(await rowNames()).toEqual(byName.slice(10, 20));
    }));

    it('offers page sizes 10, 20, 50 and 100', capturingFailure(async () => {
      const byName = expectedOrder(rows, 'name', 'asc');
      const select = page.getByLabel('Rows per page');
      expect(await select.locator('option').allTextContents()).toEqual(['10', '20', '50', '100']);

      await select.selectOption('20');
      await page.getByText('Showing 1–20 of 25').waitFor();
      expect(await rowNames()).toEqual(byName.slice(0, 20));
      await page.getByText('Page 1 of 2').waitFor();
      await button('Next page').click();
      await page.getByText('Showing 21–25 of 25').waitFor();
      expect(await rowNames()).toEqual(byName.slice(20));

      for (const size of ['50', '100']) {
        await select.selectOption(size);
        await page.getByText('Showing 1–25 of 25').waitFor();
        expect(await rowNames()).toEqual(byName);
        expect(await button('Next page').count()).toBe(0);
      }
      await screenshot('clients-page-size-100');

      await select.selectOption('10');
      await page.getByText('Showing 1–10 of 25').waitFor();
      expect(await rowNames()).toEqual(byName.slice(0, 10));
    }));

    it.each([
      ['name', 'desc'],
      ['client_id', 'asc'],
      ['client_id', 'desc'],
      ['secret_age', 'asc'],
      ['secret_age', 'desc'],
      ['last_activity', 'asc'],
      ['last_activity', 'desc'],
      ['name', 'asc'],
    ] as const)('sorts by %s %s', capturingFailure(async (column, direction) => {
      await showAll();
      const header = page.locator('thead th').filter({ has: button(sortButton[column]) });
      const wanted = direction === 'asc' ? 'ascending' : 'descending';
      // A new column starts ascending; clicking the sorted column reverses it.
      const current = await header.getAttribute('aria-sort');
      const steps = current === wanted ? [] : current === null && direction === 'desc' ? ['ascending', 'descending'] : [wanted];
      for (const step of steps) {
        await button(sortButton[column]).click();
        await eventually(async () => expect(await header.getAttribute('aria-sort')).toBe(step));
      }
      expect(await header.getAttribute('aria-sort')).toBe(wanted);
      const order = expectedOrder(rows, column, direction);
      await eventually(async () => expect(await rowNames()).toEqual(order), { timeout: 5_000 });
      expect(await page.locator('th[aria-sort]').count()).toBe(1);
      await screenshot(`clients-sorted-${column}-${direction}`);
    }));

    it('keeps the sort while paging, and across a reload', capturingFailure(async () => {
      await button('Last Activity').click();
      await button('Last Activity').click();
      await page.getByLabel('Rows per page').selectOption('10');
      await button('Next page').click();
      await page.getByText('Showing 11–20 of 25').waitFor();
      const order = expectedOrder(rows, 'last_activity', 'desc');
      expect(await rowNames()).toEqual(order.slice(10, 20));
      await page.reload();
      await page.getByText('Showing 11–20 of 25').waitFor();
      expect(await rowNames()).toEqual(order.slice(10, 20));
      expect(await page.locator('thead th[aria-sort="descending"]').textContent()).toContain('Last Activity');
    }));

    it('still makes changes after a reload (the CSRF token is fetched again) and shows each status', capturingFailure(async () => {
      await showAll();
      expect(await rowOf('apollo').getByText('Created', { exact: true }).count()).toBe(1);
      expect(await rowOf(REVOKED).getByText('Secret Revoked', { exact: true }).count()).toBe(1);
      // Cells after the row header: client id, created on, status, secret age, last activity, actions.
      expect(await rowOf('cassini').locator('td').nth(3).textContent()).toMatch(/^\d+ (minutes|hours?)$/);
      expect(await rowOf('apollo').locator('td').nth(3).textContent()).toBe('—');
      expect(await rowOf('cassini').getByText('Never').count()).toBe(1);
      await screenshot('clients-statuses');

      await button('Revoke secret of Yutu').click();
      await page.getByRole('alertdialog').getByRole('button', { name: 'Revoke secret' }).click();
      await rowOf('Yutu').getByText('Secret Revoked', { exact: true }).waitFor();
    }));

    it('keeps a client created here in view when the sort puts it on another page, until it is deleted', capturingFailure(async () => {
      await signedIn();
      // The default order (name, ascending, ten a page), where a name late in the alphabet sorts onto the last page.
      await page.goto(consoleUrl());
      await page.getByText('Showing 1–10 of 25').waitFor();
      await page.getByLabel('Client name').fill('zz-nightly-export');
      await button('Create client').click();
      const { dialog, clientId, secret } = await takeSecret('zz-nightly-export is created');
      await dialog.getByRole('button', { name: 'Done' }).click();
      expect(await environmentsWith(clientId, secret)).toBe(200);

      await page.getByText('Showing 1–10 of 26').waitFor();
      const pinned = page.locator('tbody.pinned');
      expect(await pinned.locator('th[scope="row"]').allTextContents()).toEqual(['zz-nightly-export']);
      await rowOf('zz-nightly-export').getByText('Active', { exact: true }).waitFor();
      expect(await rowOf('zz-nightly-export').locator('code').textContent()).toBe(clientId);
      // The page itself is still the first ten by name.
      expect(await page.locator('tbody:not(.pinned) th[scope="row"]').allTextContents()).toEqual(expectedOrder(rows, 'name', 'asc').slice(0, 10));
      await screenshot('client-created-elsewhere');

      await button('Delete zz-nightly-export').click();
      await page.getByRole('alertdialog').getByRole('button', { name: 'Delete client' }).click();
      await page.getByRole('status').filter({ hasText: 'zz-nightly-export is deleted' }).waitFor();
      await page.getByText('Showing 1–10 of 25').waitFor();
      expect(await pinned.count()).toBe(0);
      expect(await environmentsWith(clientId, secret)).toBe(401);
    }));
  });

  it('signs out, and a reload stays signed out', capturingFailure(async () => {
    await signedIn();
    await button('Sign out').click();
    await page.getByRole('heading', { name: 'Sign in to the console' }).waitFor();
    await page.getByText('You are signed out.').waitFor();
    await page.reload();
    await page.getByRole('heading', { name: 'Sign in to the console' }).waitFor();
    await screenshot('signed-out');
    expect(pageErrors).toEqual([]);
  }));
});
