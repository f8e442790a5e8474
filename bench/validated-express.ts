import express, { type ErrorRequestHandler, type Request, type RequestHandler } from 'express';
import { API_NAMES, loadApiDocument } from '../server/src/http/apis.js';
import { inOneLayer, validatingHandlers } from '../server/src/http/app.js';
import { httpServerFor } from '../server/src/http/http-server.js';

/**
 * A floor for `make bench`: Express 5 set and served as the server sets and serves it (`httpServerFor`), with each
 * API's request validation exactly as the server runs it (express-openapi-validator with its route lookup, security and waits precompiled; security
 * handlers that compare the header carrying the credentials), answering from memory the bytes the server answered.
 * No database, no domain, no request log, no metrics, no hashing of secrets: what the whole server cannot go
 * below while it validates every request. Reads BENCH_BODIES as bench/bare-express.ts does.
 */
interface Answer {
  body: string;
  header: string;
  value: string;
}
const answers = new Map(
  Object.entries(JSON.parse(process.env.BENCH_BODIES ?? '{}') as Record<string, Answer>).map(([path, answer]) => [
    path.split('?')[0]!,
    { ...answer, bytes: Buffer.from(answer.body, 'utf8') },
  ]),
);
const answerOf = (req: Request) => answers.get(req.originalUrl.split('?')[0]!);

const app = express();
app.disable('x-powered-by');
app.set('etag', false);
app.set('query parser', 'simple');

const credentialsMatch = (req: Request) => {
  const answer = answerOf(req);
  return Promise.resolve(answer !== undefined && req.headers[answer.header] === answer.value);
};
const respond: RequestHandler = (req, res) => {
  const { bytes } = answerOf(req)!;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', String(bytes.length));
  res.end(bytes);
};
const renderError: ErrorRequestHandler = (error: { status?: number; message?: string }, _req, res, _next) => {
  res.status(error.status ?? 500).json({ code: error.status ?? 500, message: error.message });
};

for (const name of API_NAMES) {
  const api = loadApiDocument(name);
  const schemes = Object.keys((api.openapi.components as { securitySchemes?: object } | undefined)?.securitySchemes ?? {});
  const handlers = Object.fromEntries(schemes.map((scheme) => [scheme, credentialsMatch]));
  app.use(api.basePath, inOneLayer([...validatingHandlers(api, handlers, false), respond]), renderError);
}
app.get('/healthz', (_req, res) => {
  res.json({ status: 'ok' });
});

const server = httpServerFor(app).listen(Number(process.env.PORT ?? 0), '127.0.0.1');
process.on('SIGTERM', () => server.close(() => process.exit(0)));
