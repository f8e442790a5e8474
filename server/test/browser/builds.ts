import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildReference } from '../../../scripts/build-docs.js';
import { API_NAMES } from '../../src/http/apis.js';
import { CONSOLE_DIST } from '../../src/http/console-app.js';
import { REFERENCE_DIR } from '../../src/http/docs.js';
import { PROJECT_ROOT } from '../../src/paths.js';

/**
 * What the browser suites open besides the server: the built console and the static reference pages. `make test`
 * runs these suites before `make build` and `make docs`, and a developer may have edited the sources since the last
 * build, so each is rebuilt when it is missing or older than what it is built from: a browser never tests a stale
 * page. Suites run in parallel workers, so one builds while the others wait for it.
 */

/** Newest modification time under a path, in milliseconds. */
function newest(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(path).map((name) => newest(join(path, name))));
}

const isStale = (output: string, sources: string[]) =>
  !existsSync(output) || statSync(output).mtimeMs < Math.max(...sources.map((path) => newest(join(PROJECT_ROOT, path))));

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/**
 * Runs `build` while holding a lock file (created exclusively, naming its holder's pid) under reports/, so two
 * workers never build into one directory at once; a lock whose holder died is taken over.
 */
async function underLock(name: string, build: () => Promise<void>): Promise<void> {
  const dir = join(PROJECT_ROOT, 'reports');
  mkdirSync(dir, { recursive: true });
  const lock = join(dir, `.${name}.lock`);
  for (const deadline = Date.now() + 300_000; ; ) {
    try {
      writeFileSync(lock, String(process.pid), { flag: 'wx' });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number(readFileSync(lock, 'utf8').trim());
      // An empty file is a holder between creating and writing it: wait for it like any other.
      if (Number.isInteger(holder) && holder > 0 && !alive(holder)) rmSync(lock, { force: true });
      if (Date.now() > deadline) throw new Error(`${lock} is still held by process ${holder}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  try {
    await build();
  } finally {
    rmSync(lock, { force: true });
  }
}

const CONSOLE_SOURCES = ['console/src', 'console/index.html', 'console/vite.config.ts', 'console/package.json', 'client/src'];

/** The console in console/dist/, as the server serves it at /console. */
export async function ensureConsoleBuilt(): Promise<void> {
  const index = join(CONSOLE_DIST, 'index.html');
  if (!isStale(index, CONSOLE_SOURCES)) return;
  await underLock('console-build', async () => {
    // Another worker may have built it while this one waited.
    // jest sets NODE_ENV=test, which Vite would keep, bundling React's development build: test what ships.
    const env = { ...process.env, NODE_ENV: 'production' };
    if (isStale(index, CONSOLE_SOURCES)) execFileSync('npm', ['run', 'build', '--silent', '-w', 'console'], { cwd: PROJECT_ROOT, stdio: 'inherit', env });
  });
}

/** The static reference page of each spec in reports/docs/, as the server serves it at /docs/reference/<api>.html. */
export async function ensureReferenceBuilt(): Promise<void> {
  const sourcesOf = (api: string) => [`generated/${api}/swagger.yaml`, 'scripts/build-docs.ts', 'redocly.yaml'];
  const stale = () => API_NAMES.filter((api) => isStale(join(REFERENCE_DIR, `${api}.html`), sourcesOf(api)));
  if (stale().length === 0) return;
  await underLock('reference-build', async () => {
    for (const api of stale()) await buildReference(api, join(REFERENCE_DIR, `${api}.html`));
  });
}
