import express from 'express';

/**
 * The baseline of `make bench`: Express 5 with its defaults (ETag and x-powered-by on), serving from memory the
 * exact JSON the real server answered. Reads the bodies from BENCH_BODIES (a JSON object of path → body).
 */
const bodies = JSON.parse(process.env.BENCH_BODIES ?? '{}') as Record<string, unknown>;
const app = express();
for (const [path, body] of Object.entries(bodies)) {
  app.get(path.split('?')[0]!, (_req, res) => {
    res.json(body);
  });
}
const server = app.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const address = server.address();
  console.log(`listening on http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
