import type { Page } from 'playwright-core';

// The little of a browser's globals the page functions below use: the project compiles without the DOM's types.
declare const document: { documentElement: { scrollHeight: number }; querySelectorAll(selector: string): Iterable<{ getAttribute(name: string): string | null }> };
declare const innerHeight: number;
declare const scrollY: number;
declare function scrollTo(x: number, y: number): void;

/**
 * Moving through a static reference page (Redoc) as a reader does. The page opens on the introduction; each tag's
 * operations are reached through the address's hash (`#/<tag>`, as the sidebar links them, so the file works
 * opened from the disk as well as served), which renders that tag's part of the page and scrolls to it.
 */

/**
 * Scrolls from the top to the bottom and back to where the view opened: a section renders once it comes within
 * 800 px of the screen, and stays rendered, so steps of the screen's height plus twice that reach every one.
 */
export async function scrollThrough(page: Page): Promise<void> {
  await page.evaluate(async () => {
    const opened = scrollY;
    for (let y = 0; y < document.documentElement.scrollHeight; y += innerHeight + 1600) {
      scrollTo(0, y);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    scrollTo(0, opened);
  });
}

/** The route of each tag's view, as the sidebar links them (`/session`, `/api_clients`). */
export function tagRoutes(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const routes = [...document.querySelectorAll('#redoc a[href^="/"]')].map((link) => link.getAttribute('href')!);
    return [...new Set(routes.filter((route) => route !== '/' && !route.startsWith('/section/')))];
  });
}

/**
 * Loads the page at `url` showing the introduction, or the part of the tag at `route`, and renders what is there to
 * render. Each is a load of its own: what a reader lands on from a link or a bookmark.
 */
export async function openView(page: Page, url: string, route?: string): Promise<void> {
  await page.goto('about:blank');
  await page.goto(route === undefined ? url : `${url}#${route}`);
  if (route === undefined) await page.locator('#redoc h1').first().waitFor();
  else await page.locator('#redoc main h2').filter({ hasText: new RegExp(`^${route.slice(1).replace(/[^A-Za-z0-9_-]/g, '\\$&')}$`) }).first().waitFor();
  await scrollThrough(page);
}
