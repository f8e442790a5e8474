import { execFile } from 'node:child_process';
import { chownSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import pg from 'pg';

/**
 * A PostgreSQL server of a test's own, which the test may stop, kill and restart: a cluster made by initdb in a
 * temporary directory, listening on 127.0.0.1 at a free port and on a socket in that directory, trusting local
 * connections, and removed afterwards. Run as root, the cluster's commands run as the `postgres` user (PostgreSQL
 * refuses to run as root). The cluster on port 5432 is never touched.
 */
const run = promisify(execFile);

/** The directory of PostgreSQL's server programs (initdb, pg_ctl), the newest installed; undefined when none is. */
export function postgresBinaries(): string | undefined {
  const fromEnv = process.env.POSTGRES_BINDIR;
  if (fromEnv) return existsSync(join(fromEnv, 'initdb')) ? fromEnv : undefined;
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((version) => existsSync(join(root, version, 'bin', 'initdb')) && existsSync(join(root, version, 'bin', 'pg_ctl')))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length > 0 ? join(root, versions[0]!, 'bin') : undefined;
}

/** Why the tests of an own cluster cannot run here, or undefined when they can. */
export function ownPostgresMissing(): string | undefined {
  if (!postgresBinaries()) return 'the PostgreSQL server programs (initdb, pg_ctl) are not installed: apt-get install postgresql, or set POSTGRES_BINDIR';
  if (process.getuid?.() === 0 && !existsSync('/usr/sbin/runuser') && !existsSync('/sbin/runuser')) return 'running as root without runuser to run PostgreSQL as its own user';
  return undefined;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export class OwnPostgres {
  private constructor(
    readonly dir: string,
    readonly port: number,
    private readonly bin: string,
  ) {}

  /** `postgres://postgres@127.0.0.1:<port>/<database>` */
  url(database = 'postgres'): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`;
  }

  get dataDir(): string {
    return join(this.dir, 'data');
  }

  get logFile(): string {
    return join(this.dir, 'postgres.log');
  }

  /** Makes and starts a cluster with a database `app`. */
  static async create(): Promise<OwnPostgres> {
    const missing = ownPostgresMissing();
    if (missing) throw new Error(missing);
    const dir = await mkdtemp(join(tmpdir(), 'own-postgres-'));
    const asRoot = process.getuid?.() === 0;
    if (asRoot) {
      const { stdout } = await run('id', ['-u', 'postgres']);
      const { stdout: gid } = await run('id', ['-g', 'postgres']);
      chownSync(dir, Number(stdout.trim()), Number(gid.trim()));
    }
    let cluster: OwnPostgres | undefined;
    try {
      const bin = postgresBinaries()!;
      cluster = new OwnPostgres(dir, await freePort(), bin);
      await cluster.command('initdb', ['-D', cluster.dataDir, '-U', 'postgres', '--auth=trust', '--no-sync', '--no-instructions', '-E', 'UTF8']);
      await cluster.start();
      await cluster.query('create database app');
      return cluster;
    } catch (error) {
      await cluster?.remove();
      if (!cluster) await rm(dir, { recursive: true, force: true });
      throw error;
    }
  }

  /** A server program run as the cluster's owner. */
  private command(program: string, args: string[]): Promise<{ stdout: string; stderr: string }> {
    const path = join(this.bin, program);
    if (process.getuid?.() === 0) return run('runuser', ['-u', 'postgres', '--', path, ...args], { cwd: this.dir });
    return run(path, args, { cwd: this.dir });
  }

  /** Starts the server and waits until it accepts connections. */
  async start(): Promise<void> {
    // fsync off: the tests stop and kill the server, never the machine.
    const options = `-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off -c max_connections=60`;
    for (let attempt = 0; ; attempt += 1) {
      try {
        await this.command('pg_ctl', ['-D', this.dataDir, '-l', this.logFile, '-o', options, '-w', '-t', '60', 'start']);
        return;
      } catch (error) {
        // After a SIGKILL, the killed server's children may still hold its shared memory for a moment.
        if (attempt >= 20) throw new Error(`starting the own PostgreSQL failed: ${String(error)}\n${this.log()}`, { cause: error });
        await sleep(250);
      }
    }
  }

  /** Stops the server (`fast`: sessions are ended, as `pg_ctlcluster stop` does; `immediate`: no shutdown checkpoint). */
  async stop(mode: 'fast' | 'immediate' = 'fast'): Promise<void> {
    await this.command('pg_ctl', ['-D', this.dataDir, '-m', mode, '-w', '-t', '60', 'stop']);
  }

  /** The postmaster's process id, from its pid file; undefined when it is not running. */
  postmasterPid(): number | undefined {
    try {
      return Number(readFileSync(join(this.dataDir, 'postmaster.pid'), 'utf8').split('\n', 1)[0]);
    } catch {
      return undefined;
    }
  }

  /**
   * SIGKILL to the postmaster and every server process of the cluster, as a crash of the machine's PostgreSQL
   * would leave it: each connection breaks at once, and the next start recovers from the write-ahead log.
   */
  async kill(): Promise<void> {
    const pid = this.postmasterPid();
    if (pid === undefined) throw new Error('the own PostgreSQL is not running');
    const children = childrenOf(pid);
    for (const target of [pid, ...children]) {
      try {
        process.kill(target, 'SIGKILL');
      } catch {
        // gone already
      }
    }
    // Until every one of them is gone, the shared memory they held keeps a new server from starting.
    for (const target of [pid, ...children]) {
      while (alive(target)) await sleep(20);
    }
  }

  /** Runs one statement on a connection of its own (to the `postgres` database unless told otherwise). */
  async query<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values: unknown[] = [], database = 'postgres'): Promise<R[]> {
    const client = new pg.Client({ connectionString: this.url(database), application_name: 'own-postgres admin' });
    client.on('error', () => undefined);
    await client.connect();
    try {
      return (await client.query<R>(text, values)).rows;
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  /** The server's log, for a failure's message. */
  log(): string {
    try {
      return readFileSync(this.logFile, 'utf8').split('\n').slice(-30).join('\n');
    } catch {
      return '(no log)';
    }
  }

  /** Stops the server at once, whatever state it is in, and removes its directory. */
  async remove(): Promise<void> {
    if (this.postmasterPid() !== undefined) {
      await this.stop('immediate').catch(() => this.kill().catch(() => undefined));
    }
    await rm(this.dir, { recursive: true, force: true });
  }
}

/** The processes whose parent is `pid`, from /proc (no procps needed on a bare machine). */
function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // `pid (comm) state ppid …`: the command may hold spaces and parentheses, the fields after its last ')' do not.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) children.push(Number(entry));
    } catch {
      // ended meanwhile
    }
  }
  return children;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
