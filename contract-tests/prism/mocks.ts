import { createServer, request, type Server } from 'node:http';
import { join } from 'node:path';
import { freePort, start, waitForHttp, type Started } from '../processes.js';

export const MOCK_APIS = ['compliance', 'conductor', 'console'] as const;
export type MockApi = (typeof MOCK_APIS)[number];

/** The base path of each API, as on the real server. */
export const BASE_PATHS: Record<MockApi, string> = { compliance: '/v0', conductor: '/api/v0', console: '/console/api' };

export interface Mock {
  api: MockApi;
  /** Where clients send requests, base path included in their paths as on the real server. */
  url: string;
  stop(): Promise<void>;
}

/**
 * Prism serves a spec's paths at the root and ignores its base path (a proxy forwards them to the upstream URL,
 * which carries the base path), so each Prism sits behind a small adapter that accepts the real server's paths
 * (`/v0/environments`) and forwards them without the base path.
 */
function basePathAdapter(basePath: string, prismPort: number): Server {
  return createServer((req, res) => {
    const url = req.url ?? '/';
    if (url !== basePath && !url.startsWith(`${basePath}/`) && !url.startsWith(`${basePath}?`)) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ code: 404, message: `this mock serves paths under ${basePath}` }));
      return;
    }
    const upstream = request(
      { host: '127.0.0.1', port: prismPort, method: req.method, path: url.slice(basePath.length) || '/', headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', (error) => {
      res.writeHead(502, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ code: 502, message: `mock unavailable: ${error.message}` }));
    });
    req.pipe(upstream);
  });
}

/** Starts Prism with `args`, behind the base-path adapter listening on `port` (0: any free port). */
async function startPrism(root: string, api: MockApi, args: string[], port: number): Promise<Mock> {
  const prismPort = await freePort();
  const prism: Started = start(join(root, 'node_modules/.bin/prism'), [...args, '-h', '127.0.0.1', '-p', String(prismPort), '-v', 'warn'], process.env, root);
  await waitForHttp(`http://127.0.0.1:${prismPort}/`, prism, 60_000);
  const adapter = basePathAdapter(BASE_PATHS[api], prismPort);
  await new Promise<void>((resolve) => adapter.listen(port, '127.0.0.1', resolve));
  const address = adapter.address();
  const actualPort = typeof address === 'object' && address ? address.port : port;
  return {
    api,
    url: `http://127.0.0.1:${actualPort}`,
    async stop() {
      await new Promise<void>((resolve) => adapter.close(() => resolve()));
      await prism.stop();
    },
  };
}

/** Starts Prism on the generated Swagger 2.0 bundle of `api`, reachable at `port` (0: any free port). */
export function startMock(root: string, api: MockApi, port: number): Promise<Mock> {
  return startPrism(root, api, ['mock', join(root, 'generated', api, 'swagger.yaml')], port);
}

/**
 * Starts `prism proxy` on the generated OpenAPI 3 document of `api` in front of the server at `upstream` (scheme,
 * host and port), with `--errors`: Prism validates each request and the server's answer against the document,
 * reports what breaks it in an `sl-violations` header, and answers a response violation with its own
 * `application/problem+json` error. A request that breaks the document is answered by Prism (401 or 422) without
 * reaching the server.
 */
export function startProxy(root: string, api: MockApi, upstream: string, port = 0): Promise<Mock> {
  return startPrism(root, api, ['proxy', join(root, 'generated', api, 'openapi.yaml'), `${upstream}${BASE_PATHS[api]}`, '--errors'], port);
}
