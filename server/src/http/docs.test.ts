import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { runInNewContext } from 'node:vm';
import { gunzipSync } from 'node:zlib';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { API_NAMES, loadApiDocument, type ApiDocument, type ApiName } from './apis.js';
import { DOCS_CONTENT_SECURITY_POLICY, mountDocs, REFERENCE_NOT_BUILT } from './docs.js';

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

  it('gives the Swagger UI page the viewport of the device, so a phone lays it out at its own width', async () => {
    const page = await (await fetch(`${base}/docs/`)).text();
    expect(page).toMatch(/<meta charset="UTF-8">\s*<meta name="viewport" content="width=device-width, initial-scale=1">/);
  });

  it('says how to build it while it is not built, and answers 404 for its pages', async () => {
    const script = await fetch(`${base}/docs/reference-links.js`);
    expect(script.headers.get('content-type')).toMatch(/javascript/);
    expect(barOf(await script.text())).toEqual({ text: 'Static HTML reference:  not built; run `make docs`', links: [] });
    const missing = await fetch(`${base}/docs/reference/compliance.html`);
    expect(missing.status).toBe(404);
    expect(await missing.text()).toBe(REFERENCE_NOT_BUILT);
  });

  it("may not be framed by any page: every answer under /docs carries a CSP with frame-ancestors 'none'", async () => {
    writeFileSync(join(referenceDir, 'console.html'), REFERENCE_PAGE);
    for (const path of ['/docs/', '/docs/specs/compliance.yaml', '/docs/reference/console.html', '/docs/reference/conductor.html', '/docs/reference-links.js', '/docs/swagger-ui-init.js']) {
      const answer = await fetch(`${base}${path}`);
      await answer.arrayBuffer();
      expect({ path, csp: answer.headers.get('content-security-policy'), frames: answer.headers.get('x-frame-options') }).toEqual({ path, csp: DOCS_CONTENT_SECURITY_POLICY, frames: 'DENY' });
    }
    expect(DOCS_CONTENT_SECURITY_POLICY).toContain("frame-ancestors 'none'");
    rmSync(join(referenceDir, 'console.html'));
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

  it('serves a page gzipped to a client that accepts it, as it is to one that does not, and a rebuilt page anew', async () => {
    // curl, as a client of its own, shows the bytes on the wire.
    const run = promisify(execFile);
    const fetchRaw = async (headers: string[]) => {
      const out = join(referenceDir, 'answer.bin');
      const { stdout } = await run('curl', ['-sS', '-D', '-', '-o', out, ...headers.flatMap((header) => ['-H', header]), `${base}/docs/reference/console.html`]);
      return { head: stdout.toLowerCase(), body: readFileSync(out) };
    };
    const page = `<!doctype html><title>Console API</title>${'<p>operation</p>'.repeat(2000)}`;
    writeFileSync(join(referenceDir, 'console.html'), page);
    const compressed = await fetchRaw(['Accept-Encoding: gzip']);
    expect(compressed.head).toMatch(/^content-encoding: gzip\r$/m);
    expect(compressed.head).toMatch(/^content-type: text\/html/m);
    expect(compressed.head).toMatch(/^vary: accept-encoding\r$/m);
    expect(compressed.body.length).toBeLessThan(page.length / 4);
    expect(gunzipSync(compressed.body).toString()).toBe(page);
    const plain = await fetchRaw(['Accept-Encoding: identity']);
    expect(plain.head).not.toMatch(/^content-encoding:/m);
    expect(plain.body.toString()).toBe(page);
    const rebuilt = `${page}<p>rebuilt</p>`;
    writeFileSync(join(referenceDir, 'console.html'), rebuilt);
    expect(gunzipSync((await fetchRaw(['Accept-Encoding: gzip'])).body).toString()).toBe(rebuilt);
  });
});
