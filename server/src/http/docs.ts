import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Express, Request } from 'express';
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
  ' .reference-links a { color: #89bf04; margin-left: 12px }';

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

/**
 * Swagger UI at /docs with a picker of the three specs, each served at /docs/specs/<api>.yaml, and links to the
 * static reference of each spec at /docs/reference/<api>.html once `make docs` has built it into `referenceDir`.
 */
export function mountDocs(app: Express, apis: Record<ApiName, ApiDocument>, referenceDir: string = REFERENCE_DIR): void {
  for (const name of API_NAMES) {
    const specFor = docsSpec(apis[name]);
    app.get(`/docs/specs/${name}.yaml`, (req: Request, res) => {
      res.type('application/yaml').send(specFor(req.protocol === 'https' ? 'https' : 'http'));
    });
    const referenceFile = join(referenceDir, `${name}.html`);
    app.get(`/docs/reference/${name}.html`, (_req, res) => {
      if (!existsSync(referenceFile)) return void res.status(404).type('text/plain').send(REFERENCE_NOT_BUILT);
      res.set('Cache-Control', 'no-cache').sendFile(referenceFile);
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
  app.use('/docs', swaggerUi.serveFiles(undefined, docsOptions), swaggerUi.setup(undefined, docsOptions));
}
