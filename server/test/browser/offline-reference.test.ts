import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { API_NAMES } from '../../src/http/apis.js';
import { REFERENCE_DIR } from '../../src/http/docs.js';
import { PROJECT_ROOT } from '../../src/paths.js';
import { parse } from 'yaml';
import { DATABASE_TARGETS, openTestDatabase, type TestDatabase } from '../databases.js';
import { startTestServer, type TestServer } from '../server.js';
import { ensureReferenceBuilt } from './builds.js';
import { openView, tagRoutes } from './reference-pages.js';
import { hasChromium, launchChromium } from './chromium.js';

/**
 * The static reference pages are self-contained: opened with no network beyond the machine, each renders whole and
 * asks no other host for anything (a script, a stylesheet, a font, a logo, a telemetry report), whether the server
 * serves it or the file is opened from the disk.
 */
const TITLES = { compliance: 'Compliance API', conductor: 'Conductor API', console: 'Console API' } as const;

/** What a page may load without the network: the server on this machine, and what it carries inside itself. */
const isLocal = (url: string) => {
  const { protocol, hostname } = new URL(url);
  return protocol === 'data:' || protocol === 'blob:' || protocol === 'file:' || (protocol.startsWith('http') && hostname === '127.0.0.1');
};

/** The summary of every operation of a spec, as the page must show them. */
function summaries(api: string): string[] {
  const spec = parse(readFileSync(join(PROJECT_ROOT, 'generated', api, 'swagger.yaml'), 'utf8')) as { paths: Record<string, Record<string, { summary?: string }>> };
  return Object.values(spec.paths).flatMap((item) => Object.values(item).flatMap((operation) => (typeof operation?.summary === 'string' ? [operation.summary] : [])));
}

const describeBrowser = hasChromium ? describe : describe.skip;

describeBrowser('the static reference pages offline in chromium', () => {
  let db: TestDatabase & { dispose(): Promise<void> };
  let server: TestServer;
  let browser: Browser;

  beforeAll(async () => {
    await ensureReferenceBuilt();
    db = await openTestDatabase(DATABASE_TARGETS[0]!);
    server = await startTestServer(db);
    browser = await launchChromium();
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await db?.dispose();
  });

  /**
   * Opens `url` with every request to another host refused, goes through the introduction and every tag's view (or
   * only the first, `firstViewOnly`), checks that they show the spec's operations, and lists what the page asked for.
   */
  const openOffline = async (url: string, api: keyof typeof TITLES, { firstViewOnly = false } = {}) => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const attempted: string[] = [];
    try {
      const page = await context.newPage();
      page.setDefaultTimeout(15_000);
      await page.route('**', (route) => {
        const requested = route.request().url();
        attempted.push(requested);
        return isLocal(requested) ? route.continue() : route.abort('internetdisconnected');
      });
      await openView(page, url);
      await page.getByRole('heading', { name: new RegExp(`^${TITLES[api]}`), level: 1 }).waitFor();
      const routes = await tagRoutes(page);
      expect(routes.length).toBeGreaterThan(0);
      let shown = '';
      for (const route of firstViewOnly ? routes.slice(0, 1) : routes) {
        await openView(page, url, route);
        await page.waitForLoadState('networkidle');
        shown += (await page.locator('#redoc').textContent()) ?? '';
      }
      // It rendered the spec itself, not an error: every operation's summary is on the view of its tag.
      const wanted = summaries(api);
      expect(wanted.length).toBeGreaterThan(0);
      if (!firstViewOnly) expect(wanted.filter((summary) => !shown.includes(summary))).toEqual([]);
      else expect(wanted.some((summary) => shown.includes(summary))).toBe(true);
      return attempted;
    } finally {
      await context.close();
    }
  };

  it.each(API_NAMES)('renders the %s reference served by the server, asking no other host for anything', async (api) => {
    const attempted = await openOffline(`${server.baseUrl}/docs/reference/${api}.html`, api);
    expect(attempted.filter((url) => !isLocal(url))).toEqual([]);
    expect(attempted).toContain(`${server.baseUrl}/docs/reference/${api}.html`);
  }, 180_000);

  it.each(API_NAMES)('renders the %s reference opened from the disk, asking no host for anything', async (api) => {
    const file = `file://${join(REFERENCE_DIR, `${api}.html`)}`;
    // The views are the served page's; what differs from the disk is only where the page came from.
    const attempted = await openOffline(file, api, { firstViewOnly: true });
    expect(attempted.filter((url) => !isLocal(url))).toEqual([]);
  }, 60_000);
});
