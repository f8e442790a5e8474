import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../src/paths.js';

/** Newest modification time under a path, in milliseconds. */
const newest = (path: string): number => {
  const stat = statSync(path);
  return stat.isDirectory() ? Math.max(stat.mtimeMs, ...readdirSync(path).map((name) => newest(join(path, name)))) : stat.mtimeMs;
};

let currentBuild: string | null | undefined;

/**
 * The compiled server that tests and scripts start: the build SERVER_BUILD names (`make test` and `make test-faults`
 * build dist/ first and set it), or dist/ when `make build` (which writes dist/.built) compiled it after the last
 * change of the server's sources; otherwise none, and the server starts from source through tsx. A compiled server
 * starts several times faster: from source, every process transforms the sources again. Looked up once per process.
 */
export function serverBuild(): string | undefined {
  if (process.env.SERVER_BUILD) return join(PROJECT_ROOT, process.env.SERVER_BUILD);
  currentBuild ??= (() => {
    const dist = join(PROJECT_ROOT, 'dist');
    const built = join(dist, '.built');
    const current =
      existsSync(join(dist, 'server/src/main.js')) &&
      existsSync(built) &&
      statSync(built).mtimeMs >= Math.max(newest(join(PROJECT_ROOT, 'server/src')), newest(join(PROJECT_ROOT, 'generated')));
    return current ? dist : null;
  })();
  return currentBuild ?? undefined;
}

/** The node arguments that start the server (`main`) or the operators' command (`admin`), as `serverBuild` says. */
export const serverEntry = (script: 'main' | 'admin', build = serverBuild()): string[] =>
  build ? [join(build, `server/src/${script}.js`)] : ['--import', 'tsx', join(PROJECT_ROOT, `server/src/${script}.ts`)];

/**
 * A server process as an operator starts it (`node …/main.js` with its environment), compiled or from source as
 * `serverBuild` says. Listens on 127.0.0.1 at a free port; stopped by its process id.
 */
export class ServerProcess {
  readonly child: ChildProcess;
  /** Resolves with the port once the server listens; rejects when it exits first. */
  readonly ready: Promise<number>;
  readonly exited: Promise<void>;
  port: number | undefined;
  /** Set once the test kills or stops it, so that an exit of its own can be told apart. */
  killed = false;
  /** How the process ended, once it did: killed by the test, or by itself (e.g. at an armed fault point). */
  exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  output = '';

  /** `cwd`: where it starts (relative paths of its configuration, `./data` say, are taken from there); `build`: as for `serverEntry`. */
  constructor(env: NodeJS.ProcessEnv, options: { cwd?: string; build?: string } = {}) {
    this.child = spawn(process.execPath, serverEntry('main', options.build ?? serverBuild()), {
      cwd: options.cwd ?? PROJECT_ROOT,
      env: { ...env, PORT: '0', HOST: '127.0.0.1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.exited = new Promise((resolve) =>
      this.child.once('exit', (code, signal) => {
        this.exit = { code, signal };
        resolve();
      }),
    );
    this.ready = new Promise((resolve, reject) => {
      this.child.stdout!.on('data', (chunk: Buffer) => {
        this.output += chunk.toString();
        const match = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(this.output);
        if (match && this.port === undefined) {
          this.port = Number(match[1]);
          resolve(this.port);
        }
      });
      this.child.stderr!.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
      this.child.once('exit', (code, signal) => reject(new Error(`server exited (${code ?? signal}) before listening:\n${this.output}`)));
    });
    this.ready.catch(() => undefined);
  }

  get pid(): number {
    return this.child.pid!;
  }

  get baseUrl(): string {
    if (this.port === undefined) throw new Error('the server is not listening yet');
    return `http://127.0.0.1:${this.port}`;
  }

  /** True while the process runs. */
  get running(): boolean {
    return this.exit === undefined;
  }

  /** True once it listens, until it is killed or exits. */
  get listening(): boolean {
    return this.port !== undefined && !this.killed && this.exit === undefined;
  }

  /** The last lines of its output, for a failure's message. */
  tail(lines = 30): string {
    return this.output.split('\n').slice(-lines).join('\n');
  }

  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    if (this.exit !== undefined) return;
    this.killed = true;
    this.child.kill(signal);
    await this.exited;
  }

  /** Kills it at once (SIGKILL unless told otherwise) and waits for its exit. */
  kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    return this.stop(signal);
  }
}
