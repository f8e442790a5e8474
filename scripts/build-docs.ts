import { execFile } from 'node:child_process';
import { mkdir, readFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { API_NAMES, ROOT, type ApiName } from './pipeline.js';

/**
 * The static HTML reference of each spec, built by redocly's `build-docs` from the generated Swagger 2.0 bundle (the
 * document the server serves and validates against). The server serves these files at /docs/reference/<api>.html.
 */
export const REFERENCE_DIR = join(ROOT, 'reports', 'docs');

const run = promisify(execFile);

/**
 * A script or stylesheet the page would fetch from another host when opened. `--inlineBundle` embeds Redoc itself;
 * without it the page loads Redoc from Redocly's CDN, and a reader offline sees nothing.
 */
export function externalResources(html: string): string[] {
  const tags = html.match(/<(?:script|link)\b[^>]*>/gi) ?? [];
  return tags.filter((tag) => /\b(?:src|href)\s*=\s*["']?(?:https?:)?\/\//i.test(tag));
}

/** Writes the reference of one API to `outFile` and fails when the page would need the network to render. */
export async function buildReference(api: ApiName, outFile: string): Promise<void> {
  await mkdir(dirname(outFile), { recursive: true });
  const spec = join(ROOT, 'generated', api, 'swagger.yaml');
  await run(join(ROOT, 'node_modules/.bin/redocly'), ['build-docs', spec, '--inlineBundle', '--config', join(ROOT, 'redocly.yaml'), '-o', outFile], {
    cwd: ROOT,
    maxBuffer: 16 * 1024 * 1024,
  });
  const external = externalResources(await readFile(outFile, 'utf8'));
  if (external.length > 0) throw new Error(`${outFile} loads resources from other hosts:\n  ${external.join('\n  ')}`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const api of API_NAMES) {
    const outFile = join(REFERENCE_DIR, `${api}.html`);
    await buildReference(api, outFile);
    console.log(`wrote ${relative(ROOT, outFile)}`);
  }
}
