import { execFile } from 'node:child_process';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
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

/**
 * Images Redoc's script fetches from Redocly's CDN once the page runs (the "API docs by" mark in the sidebar), which
 * no tag names, so `externalResources` cannot see them. Each becomes an empty image written into the page, and the
 * attribution around it is hidden.
 */
export const CDN_IMAGES = ['https://cdn.redoc.ly/redoc/logo-mini-full.svg', 'https://cdn.redoc.ly/redoc/logo-mini.svg'];
const EMPTY_IMAGE = "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg'/%3E";
const HIDE_ATTRIBUTION = '<style>a[href="https://redocly.com/redoc/"] { display: none }</style>';

/** The page as served: no image from the CDN, and the attribution that showed it hidden. */
export function withoutCdnImages(html: string): string {
  const missing = CDN_IMAGES.filter((url) => !html.includes(url));
  // A Redoc that no longer names them may fetch something else instead: the offline browser test says what.
  if (missing.length === CDN_IMAGES.length) throw new Error(`the page names none of ${CDN_IMAGES.join(', ')}: check what Redoc fetches now`);
  let page = html;
  for (const url of CDN_IMAGES) page = page.split(url).join(EMPTY_IMAGE);
  if (!page.includes('</head>')) throw new Error('the page has no </head> to hide the attribution in');
  return page.replace('</head>', `${HIDE_ATTRIBUTION}\n</head>`);
}

/**
 * Writes the reference of one API to `outFile` and fails when the page would need the network to render. The file
 * appears whole or not at all (written beside it, then renamed), so a server reading it meanwhile never serves half.
 */
export async function buildReference(api: ApiName, outFile: string): Promise<void> {
  await mkdir(dirname(outFile), { recursive: true });
  const spec = join(ROOT, 'generated', api, 'swagger.yaml');
  const partial = `${outFile}.${process.pid}.partial`;
  try {
    await run(join(ROOT, 'node_modules/.bin/redocly'), ['build-docs', spec, '--inlineBundle', '--config', join(ROOT, 'redocly.yaml'), '-o', partial], {
      cwd: ROOT,
      maxBuffer: 16 * 1024 * 1024,
      // Off, the page's script reports nothing to Redocly's collector when a reader opens it (and the build
      // itself calls nowhere): `__redoc_options.disableTelemetry` follows this variable.
      env: { ...process.env, REDOCLY_TELEMETRY: 'off' },
    });
    const html = withoutCdnImages(await readFile(partial, 'utf8'));
    const external = externalResources(html);
    if (external.length > 0) throw new Error(`${outFile} loads resources from other hosts:\n  ${external.join('\n  ')}`);
    if (!html.includes('"disableTelemetry":true')) throw new Error(`${outFile} would report to Redocly's telemetry collector`);
    await writeFile(partial, html);
    await rename(partial, outFile);
  } finally {
    await rm(partial, { force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const api of API_NAMES) {
    const outFile = join(REFERENCE_DIR, `${api}.html`);
    await buildReference(api, outFile);
    console.log(`wrote ${relative(ROOT, outFile)}`);
  }
}
