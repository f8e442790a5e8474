import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, it, jest } from '@jest/globals';
import { DRY_RUN_JOB } from '../src/domain/conductor/dry-runs.js';
import { newId } from '../src/domain/ids.js';
import { PROJECT_ROOT } from '../src/paths.js';
import { openDatabase } from '../src/storage/database.js';
import { KyselyDryRunRepository } from '../src/storage/repositories/conductor.js';
import { eventually } from './eventually.js';
import { expect } from './expect.js';
import { basic } from './server.js';
import { serverEntry } from './server-process.js';

/**
 * The server process as an operator runs it, with the open-file limit of many systems (1 024), against a client that
 * opens connections by the thousand and trickles their heads a byte a second: before the caps and timeouts, ~990
 * such connections from one address made every other client's connection fail. Clients from other loopback
 * addresses (Linux routes all of 127/8 to the loopback interface) must be answered meanwhile, one of them curl; the
 * trickling connections must end at the header timeout, a trickled body at the request timeout, and a long poll
 * must still wait as long as it asks, past both.
 */
const run = promisify(execFile);
const ROOT_SECRET = 'connection-limits-root-secret';
const ADMIN_PASSWORD = 'connection limits admin password';
const KEEP_ALIVE_TIMEOUT_MS = 1_000;
const HEADERS_TIMEOUT_MS = 2_000;
const REQUEST_TIMEOUT_MS = 8_000;
/** The server's default cap per address, which the trickling client reaches ten times over. */
const PER_ADDRESS = 100;
const TRICKLING_CONNECTIONS = 1_000;
const OPEN_FILES = 1_024;

// Starting the server through tsx takes seconds on a busy machine; each test waits for timeouts of a few seconds.
jest.setTimeout(120_000);

interface Answer {
  status: number;
  text: string;
}

/** One request from `localAddress` on a connection of its own, closed after the answer. */
function call(port: number, localAddress: string, method: string, path: string, options: { headers?: Record<string, string>; body?: string } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, localAddress, method, path, agent: false, timeout: 60_000, headers: { connection: 'close', ...options.headers } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${method} ${path}: no answer within the hang guard`)));
    req.on('error', reject);
    req.end(options.body);
  });
}

/** A raw connection from `localAddress`: what it received once it closed. */
function rawConnection(port: number, localAddress: string): { socket: Socket; ended: Promise<string> } {
  const socket = connect({ port, host: '127.0.0.1', localAddress });
  let received = '';
  socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
  socket.on('error', () => undefined);
  const guard = setTimeout(() => socket.destroy(), 60_000);
  const ended = new Promise<string>((resolve) =>
    socket.once('close', () => {
      clearTimeout(guard);
      resolve(received);
    }),
  );
  return { socket, ended };
}

/**
 * A client that keeps `target` connections open from one address, each sending the head of a request a byte every
 * second and never its end; while it tops up, every connection that ends is replaced at the next second. It records
 * how each ended: closed without a byte (refused over a cap), answered 408 (the header timeout), or anything else.
 */
class Trickler {
  private readonly sockets = new Set<Socket>();
  readonly ended = { refused: 0, timedOut: 0, other: [] as string[] };
  private toppingUp = true;
  private readonly timer: NodeJS.Timeout;
  private tickWaiters: Array<() => void> = [];

  constructor(
    private readonly port: number,
    private readonly localAddress: string,
    private readonly target: number,
  ) {
    this.fill();
    this.timer = setInterval(() => this.tick(), 1_000);
  }

  /** Connections open (or still connecting) on this side. */
  get open(): number {
    return this.sockets.size;
  }

  /** Resolves at the next second's byte (and top-up). */
  nextTick(): Promise<void> {
    return new Promise((resolve) => this.tickWaiters.push(resolve));
  }

  /** From now on, a connection that ends is not replaced. */
  stopToppingUp(): void {
    this.toppingUp = false;
  }

  stop(): void {
    clearInterval(this.timer);
    for (const socket of this.sockets) socket.destroy();
  }

  private fill(): void {
    while (this.sockets.size < this.target) this.connect();
  }

  private connect(): void {
    const socket = connect({ port: this.port, host: '127.0.0.1', localAddress: this.localAddress });
    let received = '';
    let connected = false;
    socket.on('connect', () => {
      connected = true;
      socket.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Trickle: ');
    });
    socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
    // A refused connection may be reset, and a byte written to it may fail: it ends at 'close' all the same.
    socket.on('error', () => undefined);
    socket.once('close', () => {
      this.sockets.delete(socket);
      if (!connected && received === '') this.ended.other.push('never connected');
      else if (received === '') this.ended.refused += 1;
      else if (received.startsWith('HTTP/1.1 408 Request Timeout\r\n')) this.ended.timedOut += 1;
      else this.ended.other.push(received);
    });
    this.sockets.add(socket);
  }

  private tick(): void {
    for (const socket of this.sockets) if (!socket.connecting && socket.writable) socket.write('a');
    if (this.toppingUp) this.fill();
    const waiters = this.tickWaiters;
    this.tickWaiters = [];
    for (const resolve of waiters) resolve();
  }
}

describe('connection limits and slow senders, on a server process limited to 1 024 open files', () => {
  let dir: string;
  let child: ChildProcess;
  let output = '';
  let port = 0;
  let closed: Promise<number | null>;
  let client: { id: string; secret: string };
  let dryRunId: string;

  const metrics = async (): Promise<string> => {
    const answer = await call(port, '127.0.0.2', 'GET', '/metrics');
    expect(answer.status).toBe(200);
    return answer.text;
  };
  const sample = (text: string, series: string): number => {
    const escaped = series.replace(/[{}"\\]/g, (c) => `\\${c}`);
    const match = new RegExp(`^${escaped} (\\d+)$`, 'm').exec(text);
    if (!match) throw new Error(`no sample of ${series} in /metrics`);
    return Number(match[1]);
  };
  const logRecords = () =>
    output
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, any>);

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'connection-limits-'));
    const databaseUrl = `sqlite:${join(dir, 'app.db')}`;
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATABASE_URL: databaseUrl,
      CONDUCTOR_ROOT_SECRET: ROOT_SECRET,
      CONDUCTOR_ROOT_SECRET_FILE: join(dir, 'root-secret'),
      CONSOLE_ADMIN_PASSWORD: ADMIN_PASSWORD,
      CONSOLE_ADMIN_PASSWORD_FILE: join(dir, 'admin-password'),
      DEMO_DATA: 'false',
      PORT: '0',
      HOST: '127.0.0.1',
      HTTP_KEEP_ALIVE_TIMEOUT_MS: String(KEEP_ALIVE_TIMEOUT_MS),
      HTTP_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
      HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
    };
    delete env.HTTP_MAX_CONNECTIONS;
    delete env.HTTP_MAX_CONNECTIONS_PER_ADDRESS;
    delete env.TRUST_PROXY;
    // prlimit sets the limit and then becomes the server (exec): the process id is the server's.
    child = spawn('prlimit', [`--nofile=${OPEN_FILES}:${OPEN_FILES}`, process.execPath, ...serverEntry('main')], { cwd: PROJECT_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    closed = new Promise((resolve) => child.once('close', (code) => resolve(code)));
    port = await new Promise<number>((resolve, reject) => {
      child.stdout!.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        const match = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(output);
        if (match) resolve(Number(match[1]));
      });
      child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.once('exit', (code) => reject(new Error(`server exited with ${code} before listening:\n${output}`)));
    });

    // The console's admin makes an API client, as a user would.
    const base = `http://127.0.0.1:${port}`;
    const signedIn = await fetch(`${base}/console/api/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'admin@example.com', password: ADMIN_PASSWORD }) });
    expect(signedIn.status).toBe(200);
    const browser = { cookie: signedIn.headers.get('set-cookie')!.split(';')[0]!, 'x-csrf-token': ((await signedIn.json()) as { csrf_token: string }).csrf_token, 'content-type': 'application/json' };
    const created = await fetch(`${base}/console/api/api-clients`, { method: 'POST', headers: browser, body: JSON.stringify({ name: 'connection-limits' }) });
    expect(created.status).toBe(201);
    const { client_id: id } = (await created.json()) as { client_id: string };
    const issued = await fetch(`${base}/console/api/api-clients/${id}/secret`, { method: 'POST', headers: browser });
    expect(issued.status).toBe(201);
    client = { id, secret: ((await issued.json()) as { client_secret: string }).client_secret };

    // A dry-run another server process is computing, its job leased for an hour: nothing in this one finishes it,
    // so a long poll of it waits as long as it asks.
    const database = openDatabase(databaseUrl);
    dryRunId = newId();
    const now = Date.now();
    const job = { id: newId(), kind: DRY_RUN_JOB, payload: { dryRunId }, status: 'running' as const, attempts: 1, maxAttempts: 3, runAt: now, leaseOwner: 'another-process', leaseExpiresAt: now + 3_600_000, lastError: null, createdAt: now, updatedAt: now, finishedAt: null, requestId: null };
    try {
      await new KyselyDryRunRepository(database.db).insert(
        { id: dryRunId, command: 'KILL', status: 'RUNNING', processFid: null, accountName: null, importResources: false, compositionText: null, errors: [], plan: [], jobId: job.id, createdAt: Math.floor(now / 1000), finishedAt: null },
        job,
      );
    } finally {
      await database.close();
    }
  }, 120_000);

  afterAll(async () => {
    if (child && child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const guard = setTimeout(() => child.kill('SIGKILL'), 30_000);
      await closed;
      clearTimeout(guard);
    }
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('runs with an open-file limit of 1 024', () => {
    const limits = readFileSync(`/proc/${child.pid}/limits`, 'utf8');
    expect(limits).toMatch(new RegExp(`^Max open files\\s+${OPEN_FILES}\\s+${OPEN_FILES}\\s+files`, 'm'));
  });

  it('while 1 000 trickling connections from 127.0.0.1 hold its cap, answers clients from other addresses throughout, and the header timeout ends every trickling connection', async () => {
    const authorization = basic(client.id, client.secret);
    const trickler = new Trickler(port, '127.0.0.1', TRICKLING_CONNECTIONS);
    try {
      // The cap is held: 100 connections open from 127.0.0.1, the other 900 closed as they came.
      await eventually(
        async () => {
          const text = await metrics();
          expect(sample(text, 'http_connections_open_busiest_address')).toBe(PER_ADDRESS);
          expect(sample(text, 'http_connections_refused_total{reason="max_connections_per_address"}')).toBeGreaterThanOrEqual(TRICKLING_CONNECTIONS - PER_ADDRESS);
        },
        { timeout: 30_000 },
      );

      // Round after round, each at a second's trickle and top-up, each begun while 127.0.0.1 holds its cap: the
      // rounds outlast the header timeout, so connections it ended were replaced meanwhile.
      const answers: Array<{ round: number; what: string; status: number }> = [];
      const rounds = 6;
      for (let round = 0; round < rounds; round += 1) {
        await trickler.nextTick();
        await eventually(async () => expect(sample(await metrics(), 'http_connections_open_busiest_address')).toBe(PER_ADDRESS), { timeout: 30_000 });
        answers.push({ round, what: 'healthz', status: (await call(port, '127.0.0.2', 'GET', '/healthz')).status });
        const listed = await call(port, '127.0.0.2', 'GET', '/v0/environments', { headers: { authorization } });
        expect(listed.status, listed.text).toBe(200);
        answers.push({ round, what: 'environments', status: listed.status });
        if (round === rounds / 2) {
          // A client nobody here wrote, from a third address.
          for (const path of ['/healthz', '/v0/environments']) {
            const { stdout } = await run('curl', ['--silent', '--show-error', '--max-time', '60', '--interface', '127.0.0.3', '--user', `${client.id}:${client.secret}`, '--output', '/dev/null', '--write-out', '%{http_code}', `http://127.0.0.1:${port}${path}`], { timeout: 90_000 });
            answers.push({ round, what: `curl ${path}`, status: Number(stdout) });
          }
        }
      }
      expect(answers.filter((answer) => answer.status !== 200)).toEqual([]);
      expect(answers).toHaveLength(rounds * 2 + 2);

      // No more top-ups: the trickling connections left are ended by the header timeout, every one answered 408.
      trickler.stopToppingUp();
      await eventually(() => expect(trickler.open).toBe(0), { timeout: 30_000 });
      expect(trickler.ended.other).toEqual([]);
      expect(trickler.ended.timedOut).toBeGreaterThanOrEqual(PER_ADDRESS);

      // The server's own count: each refusal it counted is a connection the client saw closed without a byte; none
      // over the cap in all; and once the trickling ones ended, only the scrape's own connection is open.
      await eventually(async () => {
        const text = await metrics();
        expect(sample(text, 'http_connections_refused_total{reason="max_connections_per_address"}')).toBe(trickler.ended.refused);
        expect(sample(text, 'http_connections_refused_total{reason="max_connections"}')).toBe(0);
        expect(sample(text, 'http_connections_open')).toBe(1);
        expect(sample(text, 'http_connections_open_busiest_address')).toBe(1);
      });

      // Refusals by the thousand, logged at most once per address every 10 s by the log's own clock.
      const lines = logRecords().filter((record) => record.remoteAddress === '127.0.0.1' && record.reason === 'max_connections_per_address');
      expect(lines.length).toBeGreaterThanOrEqual(1);
      expect(lines.length).toBeLessThan(trickler.ended.refused / 100);
      for (let i = 1; i < lines.length; i += 1) expect(Date.parse(lines[i]!.time) - Date.parse(lines[i - 1]!.time)).toBeGreaterThanOrEqual(10_000);
    } finally {
      trickler.stop();
    }
  });

  it('answers 408 to a body trickled past the request timeout, and takes a body sent after the header timeout within it', async () => {
    const body = JSON.stringify({ email: 'admin@example.com', password: ADMIN_PASSWORD });
    const head = `POST /console/api/session HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n`;

    const trickled = rawConnection(port, '127.0.0.4');
    trickled.socket.write(head);
    let sent = 0;
    const trickle = setInterval(() => {
      if (sent < body.length - 1 && trickled.socket.writable) trickled.socket.write(body[sent++]!);
    }, 1_000);
    const late = rawConnection(port, '127.0.0.5');
    try {
      // The head at once, the body once the header timeout (and a check of it) has passed.
      late.socket.write(head);
      await sleep(HEADERS_TIMEOUT_MS + 1_500);
      late.socket.write(body);
      expect(await late.ended).toMatch(/^HTTP\/1\.1 200 OK\r\n/);

      expect(await trickled.ended).toBe('HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n');
      // It ended before its body did: a byte a second, the body would have taken far longer than the timeout.
      expect(sent).toBeLessThan(body.length - 1);
    } finally {
      clearInterval(trickle);
      trickled.socket.destroy();
      late.socket.destroy();
    }
  });

  it('answers a long poll that waits longer than the request timeout, to a Python client', async () => {
    // Python's standard library, from a loopback address of its own: the dry-run never finishes, so the answer is
    // its state once the wait of `timeout` seconds ran out, well past the 8 s the request had to arrive.
    const script = `
import http.client, json, sys
connection = http.client.HTTPConnection("127.0.0.1", int(sys.argv[1]), timeout=60, source_address=("127.0.0.6", 0))
connection.request("GET", sys.argv[2], headers={"Authorization": sys.argv[3]})
answer = connection.getresponse()
print(json.dumps({"status": answer.status, "body": json.loads(answer.read())}))
`;
    const waitSeconds = Math.ceil(REQUEST_TIMEOUT_MS / 1000) + 2;
    const { stdout } = await run('python3', ['-c', script, String(port), `/api/v0/dry-run/${dryRunId}?timeout=${waitSeconds}`, basic('root', ROOT_SECRET)], { timeout: 90_000 });
    expect(JSON.parse(stdout)).toEqual({ status: 200, body: expect.objectContaining({ id: dryRunId, status: 'RUNNING', finished_at: null }) });
  });
});
