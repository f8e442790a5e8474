import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { buildReference, CDN_IMAGES, externalResources } from './build-docs.js';

describe('the static reference (make docs)', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'reference-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('finds the scripts and stylesheets a page would load from other hosts', () => {
    const cdnPage =
      '<link rel="modulepreload" href="https://cdn.redocly.com/redoc/v3.0.1/bundles/redoc.standalone.js" crossorigin="anonymous" />' +
      '<script src="//cdn.example.com/x.js"></script><script>var inline = "https://not-a-resource.example";</script>' +
      '<link rel="stylesheet" href="./local.css"><script src="local.js"></script>';
    expect(externalResources(cdnPage)).toEqual([
      '<link rel="modulepreload" href="https://cdn.redocly.com/redoc/v3.0.1/bundles/redoc.standalone.js" crossorigin="anonymous" />',
      '<script src="//cdn.example.com/x.js">',
    ]);
  });

  it('is one HTML page per spec that renders without the network', async () => {
    const file = join(dir, 'console.html');
    await buildReference('console', file);
    const html = await readFile(file, 'utf8');
    expect(html).toMatch(/<title>[^<]*Console[^<]*<\/title>/i);
    expect(externalResources(html)).toEqual([]);
    // Nor does its script fetch Redocly's logo or report to Redocly's collector once it runs.
    for (const url of CDN_IMAGES) expect(html).not.toContain(url);
    expect(html).toContain('"disableTelemetry":true');
    // The spec travels inside the page: nothing is fetched when it opens.
    expect(html).toContain('createApiClient');
  }, 60_000);
});
