import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { Express, Request, Response } from 'express';
import swaggerUi from 'swagger-ui-express';
import { parseDocument } from 'yaml';
import { PROJECT_ROOT } from '../paths.js';
import { API_NAMES, type ApiDocument, type ApiName } from './apis.js';

/** Where `make docs` writes the static HTML reference of each spec (scripts/build-docs.ts). */
export const REFERENCE_DIR = join(PROJECT_ROOT, 'reports', 'docs');

export const REFERENCE_NOT_BUILT = 'the static reference is not built; run `make docs`';
const LINKS_NOT_BUILT = 'not built; run `make docs`';

/**
 * The script that puts a bar above Swagger UI linking to the static reference of each spec, or saying how to build
 * them. Written per request, so a reference built while the server runs is linked without a restart.
 */
function referenceLinksScript(referenceDir: string): string {
  const built = API_NAMES.filter((name) => existsSync(join(referenceDir, `${name}.html`)));
  const links = built.map((name) => ({ name, href: `/docs/reference/${name}.html` }));
  return `(function () {
  var links = ${JSON.stringify(links)};
  var bar = document.createElement('nav');
  bar.className = 'reference-links';
  bar.appendChild(document.createTextNode('Static HTML reference: '));
  if (links.length === 0) bar.appendChild(document.createTextNode(${JSON.stringify(LINKS_NOT_BUILT)}));
  links.forEach(function (link) {
    var a = document.createElement('a');
    a.href = link.href;
    a.textContent = link.name;
    bar.appendChild(a);
  });
  document.body.insertBefore(bar, document.body.firstChild);
})();
`;
}

const REFERENCE_LINKS_CSS =
  '.reference-links { font: 14px sans-serif; color: #ddd; background: #1b1b1b; padding: 8px 20px; border-bottom: 1px solid #333 }' +
  ' .reference-links a { color: #89bf04; margin-left: 12px; display: inline-block }' +
  // A phone held upright: the spec picker's bar wraps instead of pushing the page wider than the screen.
  ' @media (max-width: 600px) { .swagger-ui .topbar .wrapper { padding: 0 10px } .swagger-ui .topbar-wrapper { flex-wrap: wrap; gap: 8px }' +
  ' .swagger-ui .topbar .download-url-wrapper { flex: 1 1 100%; min-width: 0 } .swagger-ui .topbar .download-url-wrapper select { min-width: 0; width: 100% }' +
  // A tag's description goes under its name rather than into a column a few words wide.
  ' .swagger-ui .opblock-tag { flex-wrap: wrap } .swagger-ui .opblock-tag small { flex: 1 0 100%; order: 1; padding: 0 0 8px } }';

const VIEWPORT = '<meta name="viewport" content="width=device-width, initial-scale=1">';

/**
 * Swagger UI's page, with the viewport a phone needs: without it a phone lays the page out 980 px wide and shrinks
 * it to unreadable text. The template has no place for it, so it goes after the charset.
 */
function swaggerUiPage(options: swaggerUi.SwaggerUiOptions): string {
  const html = swaggerUi.generateHTML(undefined, options);
  const charset = /<meta charset="UTF-8">/i;
  if (!charset.test(html)) throw new Error('Swagger UI\'s page template has no charset meta to put the viewport after');
  return html.replace(charset, (meta) => `${meta}\n  ${VIEWPORT}`);
}

/**
 * The spec as Swagger UI at /docs loads it: the bundle as generated, but with `schemes` naming only the scheme the
 * page itself was loaded with. Swagger UI sends "Try it out" with the first listed scheme, and the compliance spec
 * lists `https` first, as the public service does; a server reached over plain http would otherwise be called at
 * https and fail. GET /v0/swagger keeps serving the bundle unchanged.
 */
function docsSpec(api: ApiDocument): (scheme: 'http' | 'https') => string {
  const variants = new Map<string, string>();
  return (scheme) => {
    let text = variants.get(scheme);
    if (text === undefined) {
      const document = parseDocument(api.swaggerYaml.toString('utf8'));
      if (document.has('schemes')) document.set('schemes', [scheme]);
      text = document.toString({ lineWidth: 0 });
      variants.set(scheme, text);
    }
    return text;
  };
}

const gzipped = promisify(gzip);

/**
 * A reference page gzipped, made once per version of the file (its modification time and size): a page carries
 * Redoc whole and runs to megabytes, a quarter of that gzipped. A page rebuilt while the server runs is compressed
 * anew.
 */
function gzippedPages(): (file: string) => Promise<Buffer> {
  const made = new Map<string, { version: string; body: Promise<Buffer> }>();
  return async (file) => {
    const { mtimeMs, size } = await stat(file);
    const version = `${mtimeMs}:${size}`;
    let entry = made.get(file);
    if (entry?.version !== version) {
      const current = { version, body: readFile(file).then((page) => gzipped(page)) };
      // A failed read is not kept: the next request tries again.
      current.body.catch(() => made.get(file) === current && made.delete(file));
      made.set(file, current);
      entry = current;
    }
    return entry.body;
  };
}

/**
 * The documentation's pages may not be framed by another page (clickjacking "Try it out" with the caller's
 * credentials). Swagger UI and the reference pages load their own scripts and styles, so the policy restricts only
 * framing, plugins and the base address, not where scripts come from.
 */
export const DOCS_CONTENT_SECURITY_POLICY = "frame-ancestors 'none'; object-src 'none'; base-uri 'self'";

function framedNowhere(_req: Request, res: Response, next: () => void): void {
  res.set({ 'Content-Security-Policy': DOCS_CONTENT_SECURITY_POLICY, 'X-Frame-Options': 'DENY', 'X-Content-Type-Options': 'nosniff' });
  next();
}

/**
 * Swagger UI at /docs with a picker of the three specs, each served at /docs/specs/<api>.yaml, and links to the
 * static reference of each spec at /docs/reference/<api>.html once `make docs` has built it into `referenceDir`.
 */
export function mountDocs(app: Express, apis: Record<ApiName, ApiDocument>, referenceDir: string = REFERENCE_DIR): void {
  const gzippedPage = gzippedPages();
  app.use('/docs', framedNowhere);
  for (const name of API_NAMES) {
    const specFor = docsSpec(apis[name]);
    app.get(`/docs/specs/${name}.yaml`, (req: Request, res) => {
      res.type('application/yaml').send(specFor(req.protocol === 'https' ? 'https' : 'http'));
    });
    const referenceFile = join(referenceDir, `${name}.html`);
    app.get(`/docs/reference/${name}.html`, async (req, res) => {
      if (!existsSync(referenceFile)) return void res.status(404).type('text/plain').send(REFERENCE_NOT_BUILT);
      res.set('Cache-Control', 'no-cache').vary('Accept-Encoding');
      if (req.acceptsEncodings('gzip', 'identity') !== 'gzip') return void res.sendFile(referenceFile);
      res.type('html').set('Content-Encoding', 'gzip').send(await gzippedPage(referenceFile));
    });
  }
  app.get('/docs/reference-links.js', (_req, res) => {
    res.set('Cache-Control', 'no-cache').type('text/javascript').send(referenceLinksScript(referenceDir));
  });
  // serveFiles writes swagger-ui-init.js from its options, so both calls get the same ones.
  const docsOptions = {
    explorer: true,
    customSiteTitle: 'API documentation',
    customJs: './reference-links.js',
    customCss: REFERENCE_LINKS_CSS,
    swaggerOptions: { urls: API_NAMES.map((name) => ({ url: `/docs/specs/${name}.yaml`, name })) },
  };
  const page = swaggerUiPage(docsOptions);
  app.use('/docs', swaggerUi.serveFiles(undefined, docsOptions), (_req: Request, res: Response) => void res.type('html').send(page));
}
