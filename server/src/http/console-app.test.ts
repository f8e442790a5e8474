import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CONSOLE_NOT_BUILT, mountConsole } from './console-app.js';

const INDEX = '<!doctype html><title>console</title>';

async function serve(distDir: string) {
  const app = express();
  mountConsole(app, distDir);
  // Stands in for the console API, mounted after the console as createApp does.
  app.use('/console/api', (req, res) => void res.status(401).json({ reached: 'api', path: req.path }));
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { base, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe('the console mount', () => {
  let dir: string;
  let server: Awaited<ReturnType<typeof serve>>;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'console-dist-'));
    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'index.html'), INDEX);
    writeFileSync(join(dir, 'assets', 'index-abc123.js'), 'console.log(1)');
    server = await serve(dir);
  });
  afterAll(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it.each(['/console', '/console/', '/console/api-clients', '/console/some/deep/view?x=1'])('answers %s with the page', async (path) => {
    const res = await fetch(`${server.base}${path}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(res.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(await res.text()).toBe(INDEX);
  });

  it('serves hashed assets as cacheable for good', async () => {
    const res = await fetch(`${server.base}/console/assets/index-abc123.js`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/javascript/);
    expect(res.headers.get('cache-control')).toContain('immutable');
  });

  it('answers a missing asset 404 rather than with the page', async () => {
    const res = await fetch(`${server.base}/console/assets/gone.js`);
    expect(res.status).toBe(404);
  });

  it.each([
    ['GET', '/console/api'],
    ['GET', '/console/api/session'],
    ['POST', '/console/api/api-clients'],
    ['DELETE', '/console/api/api-clients/cl_0123456789012345678901'],
  ])('leaves %s %s to the console API', async (method, path) => {
    const res = await fetch(`${server.base}${path}`, { method });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ reached: 'api' });
  });

  it('does not answer other methods with the page', async () => {
    const res = await fetch(`${server.base}/console/api-clients`, { method: 'POST' });
    expect(res.status).toBe(404);
  });
});

describe('the console mount before the console is built', () => {
  it('answers 503 with how to build it, and still passes the API through', async () => {
    const server = await serve(join(tmpdir(), 'console-dist-never-built'));
    try {
      const page = await fetch(`${server.base}/console/`);
      expect(page.status).toBe(503);
      expect(await page.text()).toBe(CONSOLE_NOT_BUILT);
      const api = await fetch(`${server.base}/console/api/session`);
      expect(api.status).toBe(401);
    } finally {
      await server.close();
    }
  });
});
