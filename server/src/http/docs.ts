import type { Express, Request } from 'express';
import swaggerUi from 'swagger-ui-express';
import { parseDocument } from 'yaml';
import { API_NAMES, type ApiDocument, type ApiName } from './apis.js';

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

/** Swagger UI at /docs with a picker of the three specs, each served at /docs/specs/<api>.yaml. */
export function mountDocs(app: Express, apis: Record<ApiName, ApiDocument>): void {
  for (const name of API_NAMES) {
    const specFor = docsSpec(apis[name]);
    app.get(`/docs/specs/${name}.yaml`, (req: Request, res) => {
      res.type('application/yaml').send(specFor(req.protocol === 'https' ? 'https' : 'http'));
    });
  }
  // serveFiles writes swagger-ui-init.js from its options, so both calls get the same ones.
  const docsOptions = {
    explorer: true,
    customSiteTitle: 'API documentation',
    swaggerOptions: { urls: API_NAMES.map((name) => ({ url: `/docs/specs/${name}.yaml`, name })) },
  };
  app.use('/docs', swaggerUi.serveFiles(undefined, docsOptions), swaggerUi.setup(undefined, docsOptions));
}
