import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../scripts/root.js';
import { serverEntry } from '../server/test/server-process.js';
import { start, waitForHttp, type Started } from './processes.js';
import { BASE_PATHS, MOCK_APIS, startMock, type Mock } from './prism/mocks.js';

/**
 * `make mock`: the Prism mocks of every spec (stateless, answers from the examples) and, beside them, the stateful
 * mock: the real server (dist/) with demo data on a throwaway SQLite database, `MOCK_RESET=true`, so that
 * `POST /mock/reset` (`make mock-reset`) brings the seeded demo back and `POST /mock/scenarios/{name}` loads another
 * data set (server/src/demo/mock.ts). Its credentials are fixed and written to
 * data/mock/mock-credentials.json (MOCK_DATA_DIR moves them). Without a build in dist/ newer than the server's
 * sources (a test or a developer starting this script alone), the server runs from source (`serverBuild`).
 * MOCK_PORT_STATEFUL and MOCK_PORT_<API> choose the ports; the line "ready" ends the start.
 */
const PORTS = { compliance: 4010, conductor: 4011, console: 4012 } as const;
const STATEFUL_PORT = Number(process.env.MOCK_PORT_STATEFUL ?? 4000);
const CREDENTIALS_DIR = process.env.MOCK_DATA_DIR ?? join(ROOT, 'data', 'mock');
const dir = await mkdtemp(join(tmpdir(), 'stateful-mock-'));
const server: Started = start(
  process.execPath,
  serverEntry('main'),
  {
    ...process.env,
    MOCK_RESET: 'true',
    DEMO_DATA: 'true',
    PORT: String(STATEFUL_PORT),
    DATABASE_URL: `sqlite:${join(dir, 'mock.db')}`,
    CONDUCTOR_ROOT_SECRET_FILE: join(CREDENTIALS_DIR, 'conductor-root-secret'),
    CONSOLE_ADMIN_PASSWORD_FILE: join(CREDENTIALS_DIR, 'console-admin-password'),
  },
  ROOT,
);
const mocks: Mock[] = [];
const stop = async (code = 0) => {
  await Promise.all([server.stop(), ...mocks.map((m) => m.stop())]);
  await rm(dir, { recursive: true, force: true });
  process.exit(code);
};
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());

try {
  await waitForHttp(`http://127.0.0.1:${STATEFUL_PORT}/healthz`, server, 120_000);
  for (const api of MOCK_APIS) {
    const mock = await startMock(ROOT, api, Number(process.env[`MOCK_PORT_${api.toUpperCase()}`] ?? PORTS[api]));
    mocks.push(mock);
    console.log(`${api.padEnd(10)} prism mock: ${mock.url}${BASE_PATHS[api]}`);
  }
} catch (error) {
  console.error(error);
  await stop(1);
}
const url = `http://127.0.0.1:${STATEFUL_PORT}`;
console.log(`stateful mock (real server, demo data): ${url}  (compliance /v0, conductor /api/v0, console /console)`);
// The server prints its demo credentials as plain lines, followed by its log's JSON lines.
const printed = server.output();
const credentials = printed.slice(printed.indexOf('stateful mock: demo credentials')).split('\n');
const logLine = credentials.findIndex((line) => line.startsWith('{'));
console.log(credentials.slice(0, logLine === -1 ? undefined : logLine).join('\n').trimEnd());
console.log(`reset it to the demo state: make mock-reset  (curl -X POST ${url}/mock/reset)`);
// With CORS_ORIGINS=* (the mock's default) pages of any origin may call it, and those of its own site sign in too.
if ((process.env.CORS_ORIGINS?.trim() || '*') === '*') {
  console.log(`a page on ${new URL(url).hostname} (any port) may sign in to its console with credentials: 'include'; other origins call it without credentials`);
}
console.log('Prism mocks answer from the examples in the specs; Ctrl-C stops every mock');
console.log('ready');
