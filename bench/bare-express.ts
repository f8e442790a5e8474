import express from 'express';

/**
 * The baseline of `make bench`: Express 5 with its defaults (ETag and x-powered-by on), serving from memory the
 * exact JSON the real server answered, after checking the request's credentials by comparing the header that
 * carries them (what any server must at least do). Reads BENCH_BODIES: a JSON object of path → { body (the JSON
 * text), header (lower case), value }.
 */
interface Answer {
  body: string;
  header: string;
  value: string;
}
const answers = JSON.parse(process.env.BENCH_BODIES ?? '{}') as Record<string, Answer>;
const app = express();
for (const [path, { body, header, value }] of Object.entries(answers)) {
  const parsed = JSON.parse(body) as unknown;
  app.get(path.split('?')[0]!, (req, res) => {
    if (req.headers[header] !== value) return void res.status(401).json({ code: 401 });
    res.json(parsed);
  });
}
app.get('/healthz', (_req, res) => {
  res.json({ status: 'ok' });
});
const server = app.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const address = server.address();
  console.log(`listening on http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
