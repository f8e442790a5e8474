import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { API_NAMES, loadApiDocument, type ApiDocument, type ApiName } from './apis.js';
import { mountDocs, REFERENCE_NOT_BUILT } from './docs.js';

const REFERENCE_PAGE = '<!doctype html><title>Compliance API</title>';

interface FakeNode {
  text: string;
  href?: string;
  children: FakeNode[];
}

/** Runs the links script against a stand-in for the page's DOM and answers the bar it inserted. */
function barOf(script: string): { text: string; links: Array<{ text: string; href: string | undefined }> } {
  const body: FakeNode = { text: '', children: [] };
  const node = (): FakeNode & Record<string, unknown> => {
    const element: FakeNode & Record<string, unknown> = {
      text: '',
      children: [],
      appendChild: (child: FakeNode) => element.children.push(child),
    };
    Object.defineProperty(element, 'textContent', { set: (value: string) => void (element.text = value) });
    return element;
  };
  const document = {
    body: { ...body, firstChild: null, insertBefore: (child: FakeNode) => body.children.push(child) },
    createElement: node,
    createTextNode: (text: string) => ({ text, children: [] }),
  };
  runInNewContext(script, { document });
  const bar = body.children[0]!;
  return {
    text: bar.children.map((child) => child.text).join(' '),
    links: bar.children.filter((child) => child.href !== undefined).map((child) => ({ text: child.text, href: child.href })),
  };
}

describe('the static reference at /docs', () => {
  let referenceDir: string;
  let base: string;
  let close: () => Promise<void>;

  beforeAll(async () => {
    referenceDir = mkdtempSync(join(tmpdir(), 'reference-'));
    const app = express();
    const apis = Object.fromEntries(API_NAMES.map((name) => [name, loadApiDocument(name)])) as Record<ApiName, ApiDocument>;
    mountDocs(app, apis, referenceDir);
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  });

  afterAll(async () => {
    await close();
    rmSync(referenceDir, { recursive: true, force: true });
  });

  it('is linked from the Swagger UI page', async () => {
    const page = await (await fetch(`${base}/docs/`)).text();
    expect(page).toContain("<script src='./reference-links.js'>");
  });

  it('says how to build it while it is not built, and answers 404 for its pages', async () => {
    const script = await fetch(`${base}/docs/reference-links.js`);
    expect(script.headers.get('content-type')).toMatch(/javascript/);
    expect(barOf(await script.text())).toEqual({ text: 'Static HTML reference:  not built; run `make docs`', links: [] });
    const missing = await fetch(`${base}/docs/reference/compliance.html`);
    expect(missing.status).toBe(404);
    expect(await missing.text()).toBe(REFERENCE_NOT_BUILT);
  });

  it('links each page once built, without a restart, and serves it', async () => {
    writeFileSync(join(referenceDir, 'compliance.html'), REFERENCE_PAGE);
    const bar = barOf(await (await fetch(`${base}/docs/reference-links.js`)).text());
    expect(bar.links).toEqual([{ text: 'compliance', href: '/docs/reference/compliance.html' }]);
    const page = await fetch(`${base}/docs/reference/compliance.html`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await page.text()).toBe(REFERENCE_PAGE);
    expect((await fetch(`${base}/docs/reference/conductor.html`)).status).toBe(404);
  });
});
