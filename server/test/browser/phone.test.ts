import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { API_NAMES } from '../../src/http/apis.js';
import { DATABASE_TARGETS, openTestDatabase, type TestDatabase } from '../databases.js';
import { startTestServer, type TestServer } from '../server.js';
import { ensureConsoleBuilt, ensureReferenceBuilt } from './builds.js';
import { hasChromium, launchChromium, SCREENSHOTS } from './chromium.js';
import { openView, tagRoutes } from './reference-pages.js';

/**
 * Every page a reader or an operator opens, on a phone held upright (390 × 844, the viewport meta honoured as a
 * phone's browser does): the page lays out at the phone's width, never scrolls sideways, and every action of its
 * content (links, buttons, form controls) lies within the screen's width, so scrolling down reaches it.
 */
const PHONE = { width: 390, height: 844 };
/** Room for two of the console's cards side by side, not for its table. */
const TABLET = { width: 820, height: 1180 };
const EMAIL = 'phone.user@example.org';
const PASSWORD = 'a-long-phone-password';
/** A client name as long as names go (100 characters, first by name), which must wrap rather than widen its card. */
const LONG_NAME = `a-nightly-compliance-export-to-the-data-warehouse-${'x'.repeat(50)}`;

// The little of a browser's globals the page functions below use: the project compiles without the DOM's types.
interface PageElement {
  tagName: string;
  className: unknown;
  textContent: string | null;
  parentElement: PageElement | null;
  getAttribute(name: string): string | null;
  getBoundingClientRect(): { left: number; right: number; width: number; height: number };
  querySelectorAll(selector: string): Iterable<PageElement>;
}
declare const document: {
  documentElement: PageElement & { clientWidth: number; scrollWidth: number };
  body: PageElement;
  querySelectorAll(selector: string): Iterable<PageElement>;
};
declare const innerWidth: number;
declare function getComputedStyle(element: PageElement): { visibility: string; overflowX: string };

interface Layout {
  innerWidth: number;
  clientWidth: number;
  scrollWidth: number;
}

interface Unreachable {
  what: string;
  left: number;
  right: number;
  clippedBy?: string;
}

/** How wide the page lays out and how wide its document is. */
const layoutOf = (page: Page): Promise<Layout> =>
  page.evaluate(() => ({ innerWidth, clientWidth: document.documentElement.clientWidth, scrollWidth: document.documentElement.scrollWidth }));

/**
 * The actions under `roots` that a reader cannot reach by scrolling down: shown, yet partly left or right of the
 * screen, or outside the horizontal bounds of an ancestor that clips or scrolls its content sideways.
 */
function unreachableActions(page: Page, roots: string[]): Promise<Unreachable[]> {
  return page.evaluate((selectors) => {
    const width = document.documentElement.clientWidth;
    const named = (element: PageElement) => {
      const text = element.getAttribute('aria-label') ?? element.textContent ?? '';
      return `<${element.tagName.toLowerCase()}${typeof element.className === 'string' && element.className ? ` class="${element.className}"` : ''}> ${text.trim().replace(/\s+/g, ' ').slice(0, 60)}`;
    };
    const found: Unreachable[] = [];
    const seen = new Set<PageElement>();
    for (const selector of selectors) {
      for (const root of document.querySelectorAll(selector)) {
        for (const action of root.querySelectorAll('a[href], button, select, input:not([type="hidden"]), textarea, summary, [role="button"], [tabindex="0"]')) {
          if (seen.has(action)) continue;
          seen.add(action);
          const style = getComputedStyle(action);
          const box = action.getBoundingClientRect();
          // Not shown (collapsed, or visually hidden for screen readers only): nothing to reach.
          if (box.width <= 1 || box.height <= 1 || style.visibility === 'hidden') continue;
          if (box.left < -0.5 || box.right > width + 0.5) {
            found.push({ what: named(action), left: Math.round(box.left), right: Math.round(box.right) });
            continue;
          }
          for (let ancestor = action.parentElement; ancestor && ancestor !== document.body; ancestor = ancestor.parentElement) {
            const overflow = getComputedStyle(ancestor).overflowX;
            if (overflow === 'visible') continue;
            const bounds = ancestor.getBoundingClientRect();
            if (box.left < bounds.left - 0.5 || box.right > bounds.right + 0.5) {
              found.push({ what: named(action), left: Math.round(box.left), right: Math.round(box.right), clippedBy: `${named(ancestor).slice(0, 80)} (overflow-x: ${overflow})` });
              break;
            }
          }
        }
      }
    }
    return found;
  }, roots);
}

const describeBrowser = hasChromium ? describe : describe.skip;

describeBrowser('every page on a phone (390 × 844) in chromium', () => {
  let db: TestDatabase & { dispose(): Promise<void> };
  let server: TestServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;

  // The console's pages whole; the documentation's first screen (whole, they run to tens of thousands of pixels).
  const screenshot = (name: string) => page.screenshot({ path: join(SCREENSHOTS, `phone-${name}.png`), fullPage: name.startsWith('console-') });

  /** The checks of every page: laid out at the phone's width, no sideways scrolling, every action within reach. */
  const expectFitsThePhone = async (name: string, roots: string[]) => {
    await screenshot(name);
    const layout = await layoutOf(page);
    // A page without a viewport meta lays out 980 px wide and is shrunk to fit: its text is unreadable. A page wider
    // than the phone is zoomed out to fit it, which widens innerWidth as well.
    expect({ page: name, innerWidth: layout.innerWidth, clientWidth: layout.clientWidth }).toEqual({ page: name, innerWidth: PHONE.width, clientWidth: PHONE.width });
    expect({ page: name, scrollsSideways: layout.scrollWidth > PHONE.width, scrollWidth: layout.scrollWidth }).toEqual({ page: name, scrollsSideways: false, scrollWidth: layout.scrollWidth });
    expect({ page: name, unreachable: await unreachableActions(page, roots) }).toEqual({ page: name, unreachable: [] });
  };

  const signedIn = async () => {
    await page.goto(`${server.baseUrl}/console/`);
    const heading = page.getByRole('heading', { level: 1 });
    await heading.waitFor();
    if ((await heading.textContent()) === 'API clients') return;
    await page.getByLabel('Email address').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { name: 'API clients', level: 1 }).waitFor();
  };

  beforeAll(async () => {
    await Promise.all([ensureConsoleBuilt(), ensureReferenceBuilt()]);
    mkdirSync(SCREENSHOTS, { recursive: true });
    // Only this run's pictures: a renamed or removed step must not leave an old one looking current.
    for (const file of readdirSync(SCREENSHOTS)) if (file.startsWith('phone-') && file.endsWith('.png')) rmSync(join(SCREENSHOTS, file));
    db = await openTestDatabase(DATABASE_TARGETS[0]!);
    server = await startTestServer(db);
    const organization = await server.services.organizations.ensure('phone-tests');
    await server.services.consoleAuth.createUser(organization.id, EMAIL, PASSWORD, { firstName: 'Pat', lastName: 'Phone' });
    // More than one page of clients (the pager and page sizes show), in every status, one with the longest name.
    const clients = server.services.apiClients;
    await clients.createWithSecret(organization.id, LONG_NAME);
    for (let index = 0; index < 11; index += 1) {
      const name = `client-${String(index).padStart(2, '0')}`;
      if (index % 3 === 0) await clients.create(organization.id, name);
      else {
        const { client } = await clients.createWithSecret(organization.id, name);
        if (index % 3 === 2) await clients.revokeSecret(organization.id, client.clientId);
      }
    }
    browser = await launchChromium();
    // isMobile: the viewport meta is honoured (or its absence is, with a 980 px layout), as on a phone.
    context = await browser.newContext({ viewport: PHONE, isMobile: true, hasTouch: true, deviceScaleFactor: 1, locale: 'en-US', timezoneId: 'UTC' });
    page = await context.newPage();
    page.setDefaultTimeout(15_000);
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await db?.dispose();
  });

  it('lays out /docs at the phone’s width, its links and the spec picker within reach', async () => {
    await page.goto(`${server.baseUrl}/docs/`);
    await page.locator('.swagger-ui .information-container .title').waitFor();
    await page.locator('.reference-links a').first().waitFor();
    await expectFitsThePhone('docs', ['.reference-links', '.swagger-ui']);
  }, 60_000);

  it.each(API_NAMES)('lays out the Swagger UI page of the %s spec, an operation opened, at the phone’s width', async (api) => {
    await page.goto(`${server.baseUrl}/docs/?urls.primaryName=${api}`);
    await page.locator('.swagger-ui .information-container .title').waitFor();
    await page.locator('.swagger-ui .opblock').first().waitFor();
    await expectFitsThePhone(`swagger-ui-${api}`, ['.reference-links', '.swagger-ui']);
    // An operation opened and in "Try it out": its parameters, body editor, Execute button and responses.
    const operation = page.locator('.swagger-ui .opblock').first();
    await operation.locator('.opblock-summary').first().click();
    await operation.getByRole('button', { name: 'Try it out' }).click();
    await operation.getByRole('button', { name: 'Execute' }).waitFor();
    await expectFitsThePhone(`swagger-ui-${api}-operation`, ['.reference-links', '.swagger-ui']);
  }, 60_000);

  it.each(API_NAMES)('lays out the static reference page of the %s spec, each of its views, at the phone’s width', async (api) => {
    const url = `${server.baseUrl}/docs/reference/${api}.html`;
    await openView(page, url);
    await expectFitsThePhone(`reference-${api}`, ['#redoc']);
    // Each tag's view, with its operations' parameters, schemas and request and response samples.
    for (const route of await tagRoutes(page)) {
      await openView(page, url, route);
      await expectFitsThePhone(`reference-${api}${route.replace(/\//g, '-')}`, ['#redoc']);
    }
  }, 180_000);

  it('lays out the console’s sign-in page at the phone’s width', async () => {
    await page.goto(`${server.baseUrl}/console/`);
    await page.getByRole('heading', { name: 'Sign in to the console' }).waitFor();
    await expectFitsThePhone('console-sign-in', ['body']);
  }, 60_000);

  it('lays out the console’s invitation page, its form within reach, at the phone’s width', async () => {
    const organization = await server.services.organizations.ensure('phone-tests');
    const group = await server.services.access.createGroup(organization.id, { name: 'Auditors on the phone', policy: 'builtin:AUDITOR', environment_ids: ['*'] });
    const invite = await server.services.access.createInvite(organization.id, { email: 'phone.invitee@example.org', group_ids: [group.id] });
    const token = await server.services.invitations.mintToken(organization.id, invite.id);
    await page.goto(`${server.baseUrl}/console/invitation#${token}`);
    await page.getByRole('heading', { name: 'Join phone-tests' }).waitFor();
    await expectFitsThePhone('console-invitation', ['body']);
  }, 60_000);

  it('lays out the console’s API clients as cards, every action of every client within reach', async () => {
    await signedIn();
    await page.getByText('Showing 1–10 of 12').waitFor();
    await expectFitsThePhone('console-api-clients', ['body']);
    // Every client's actions are there to press, not only within the screen.
    const longRow = page.locator('tbody tr').filter({ has: page.getByRole('rowheader', { name: LONG_NAME, exact: true }) });
    await longRow.getByRole('button', { name: `Delete ${LONG_NAME}` }).waitFor();
    expect(await page.getByRole('button', { name: /^(Generate|Regenerate) secret for / }).count()).toBe(10);
    // Sorting stays possible without the column headers: they become a row of sort buttons.
    await page.getByRole('button', { name: 'Last Activity' }).click();
    await page.locator('thead th[aria-sort="ascending"]').filter({ hasText: 'Last Activity' }).waitFor();
    await page.getByRole('button', { name: 'Next page' }).click();
    await page.getByText('Showing 11–12 of 12').waitFor();
    await expectFitsThePhone('console-api-clients-page-2', ['body']);
  }, 60_000);

  it('lays out the console’s API clients as cards side by side on a tablet’s screen (820 × 1180), every action within reach', async () => {
    await page.setViewportSize(TABLET);
    try {
      await signedIn();
      await page.getByText('Showing 1–10 of').waitFor();
      await screenshot('console-api-clients-tablet');
      const layout = await layoutOf(page);
      expect({ clientWidth: layout.clientWidth, scrollsSideways: layout.scrollWidth > TABLET.width }).toEqual({ clientWidth: TABLET.width, scrollsSideways: false });
      expect(await unreachableActions(page, ['body'])).toEqual([]);
    } finally {
      await page.setViewportSize(PHONE);
    }
  }, 60_000);

  it('lays out the console’s new-client dialog with its secret, and the new client, at the phone’s width', async () => {
    await signedIn();
    await page.getByLabel('Client name').fill('phone-created');
    await page.getByRole('button', { name: 'Create client', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'phone-created is created' });
    await dialog.getByRole('button', { name: 'Copy client secret' }).waitFor();
    await expectFitsThePhone('console-new-client', ['dialog']);
    await dialog.getByRole('button', { name: 'Done' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.locator('tbody tr').filter({ has: page.getByRole('rowheader', { name: 'phone-created', exact: true }) }).getByText('Active', { exact: true }).waitFor();
    await expectFitsThePhone('console-new-client-in-table', ['body']);
  }, 60_000);
});
