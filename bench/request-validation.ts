import type { AddressInfo } from 'node:net';
import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import { specOperations } from '../contract-tests/property/operations.js';
import { API_NAMES, loadApiDocument } from '../server/src/http/apis.js';
import { inOneLayer, validatingHandlers } from '../server/src/http/app.js';
import { httpServerFor } from '../server/src/http/http-server.js';
import { BODY_LIMIT_BYTES, parameterValues, VARIANTS, worstBodies } from './worst-bodies.js';

/**
 * `make bench` (request validation part): how long the server's request validation takes on the worst body of each
 * operation with a JSON body (bench/worst-bodies.ts: every string at its longest, every array full of distinct items,
 * within the bounds, and each array, or else the longest string, filled to the 1 MB limit past them). The
 * validation runs as the server runs it (the body's bounds first, then express-openapi-validator with every problem
 * reported), in this process, behind the JSON parser with the server's limit; credentials are accepted unchecked. Prints the time each body held the thread, parse and
 * validation apart, worst first. Never a pass/fail test: it prints.
 *
 * BENCH_VALIDATION_RUNS: how often each body is sent (default 5); the table shows the median and the slowest.
 */
const RUNS = Number(process.env.BENCH_VALIDATION_RUNS ?? 5);

interface Timing {
  parseMs: number;
  validateMs: number;
  status: number;
}

const STARTED = Symbol('started');
const PARSED = Symbol('parsed');
type Timed = { [STARTED]?: number; [PARSED]?: number };

const app = express();
app.disable('x-powered-by');
app.set('query parser', 'simple');
const accept = () => Promise.resolve(true);
const timings: Timing[] = [];
const record = (req: Timed, status: number) => {
  const now = performance.now();
  timings.push({ parseMs: req[PARSED]! - req[STARTED]!, validateMs: now - req[PARSED]!, status });
};
const start: RequestHandler = (req, _res, next) => {
  (req as Timed)[STARTED] = performance.now();
  next();
};
const parsed: RequestHandler = (req, _res, next) => {
  (req as Timed)[PARSED] = performance.now();
  next();
};
const answer: RequestHandler = (req, res) => {
  record(req as Timed, 204);
  res.status(204).end();
};
const refuse: ErrorRequestHandler = (error: { status?: number }, req, res, _next) => {
  const status = error.status ?? 500;
  if ((req as Timed)[PARSED] === undefined) (req as Timed)[PARSED] = performance.now();
  record(req as Timed, status);
  res.status(status).end();
};

const apis = API_NAMES.map((name) => loadApiDocument(name));
for (const api of apis) {
  const schemes = Object.keys((api.openapi.components as { securitySchemes?: object } | undefined)?.securitySchemes ?? {});
  const handlers = Object.fromEntries(schemes.map((scheme) => [scheme, accept]));
  const json = express.json({ limit: BODY_LIMIT_BYTES, type: 'application/json' });
  app.use(api.basePath, start, json, parsed, inOneLayer([...validatingHandlers(api, handlers, false), answer]), refuse);
}
const server = httpServerFor(app).listen(0, '127.0.0.1');
await new Promise((resolve) => server.once('listening', resolve));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

interface Row {
  operation: string;
  variant: string;
  bytes: number;
  largest: string;
  status: number;
  parseMs: number;
  medianMs: number;
  maxMs: number;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const rows: Row[] = [];
try {
  for (const api of apis) {
    for (const op of specOperations(api.name, api.openapi)) {
      const { path, query } = parameterValues(api.openapi, op);
      const url = `${base}${op.basePath}${op.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(path[name] ?? ''))}${query.length ? `?${new URLSearchParams(query)}` : ''}`;
      for (const worst of worstBodies(api.openapi, op)) {
        const text = JSON.stringify(worst.body);
        const runs: Timing[] = [];
        for (let run = 0; run < RUNS; run += 1) {
          timings.length = 0;
          const res = await fetch(url, { method: op.method, headers: { 'content-type': 'application/json', authorization: 'Basic eDp5', 'x-csrf-token': 'x', cookie: 'console_session=x' }, body: text });
          await res.arrayBuffer();
          if (timings.length !== 1) throw new Error(`${op.operationId}: the request was not timed (${res.status})`);
          runs.push(timings[0]!);
        }
        const validate = runs.map((r) => r.validateMs);
        rows.push({
          operation: `${api.name} ${op.operationId}`,
          variant: worst.variant,
          bytes: worst.bytes,
          largest: worst.largest,
          status: runs[0]!.status,
          parseMs: median(runs.map((r) => r.parseMs)),
          medianMs: median(validate),
          maxMs: Math.max(...validate),
        });
      }
    }
  }
} finally {
  server.close();
}

rows.sort((a, b) => b.medianMs - a.medianMs);
console.log(`request validation of the worst JSON bodies (${VARIANTS.join(', ')}), ${RUNS} runs each, worst first:\n`);
console.log(`${'operation'.padEnd(44)}${'body'.padEnd(19)}${'bytes'.padStart(9)}${'status'.padStart(7)}${'parse ms'.padStart(10)}${'validate ms'.padStart(13)}${'max ms'.padStart(9)}  largest part`);
for (const r of rows) {
  console.log(
    `${r.operation.padEnd(44)}${r.variant.padEnd(19)}${String(r.bytes).padStart(9)}${String(r.status).padStart(7)}${r.parseMs.toFixed(1).padStart(10)}` +
      `${r.medianMs.toFixed(1).padStart(13)}${r.maxMs.toFixed(1).padStart(9)}  ${r.largest}`,
  );
}
console.log(
  '\nparse: JSON.parse behind the server\'s 1 MB limit; validate: the server\'s request validation (every problem reported), median of the runs;' +
    '\nmax ms: the slowest run, mostly the first (the validator compiles an operation\'s schemas on its first request);' +
    '\nstatus: what validation decided (204: the body is valid; the server would go on to the operation).',
);
