import type { Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import express from 'express';
import { afterEach, describe, it } from '@jest/globals';
import { ManualClock } from '../domain/clock.js';
import { Metrics } from '../metrics.js';
import { CapturedLog } from '../../test/captured-log.js';
import { eventually } from '../../test/eventually.js';
import { expect } from '../../test/expect.js';
import { limitConnections, REFUSAL_LOG_INTERVAL_MS, REFUSAL_LOG_MAX_ADDRESSES, type ConnectionLimits, type OpenConnections } from './connection-limits.js';
import { httpServerFor } from './http-server.js';

/** A raw connection from `localAddress` (Linux routes all of 127/8 to the loopback interface): what it received, and when it closed. */
interface Client {
  socket: Socket;
  received: () => string;
  closed: Promise<void>;
  isClosed: () => boolean;
}

function client(port: number, localAddress: string): Client {
  const socket = connect({ port, host: '127.0.0.1', localAddress });
  let received = '';
  let isClosed = false;
  socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
  // A refused connection may be reset rather than closed: either way it ends here.
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  void closed.then(() => (isClosed = true));
  return { socket, received: () => received, closed, isClosed: () => isClosed };
}

const HELLO = 'GET /hello HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n';

interface Limited {
  server: Server;
  port: number;
  counts: OpenConnections;
  metrics: Metrics;
  log: CapturedLog;
  clock: ManualClock;
  clients: Client[];
  /** A connection from `localAddress`, closed after the test. */
  open(localAddress: string): Client;
  refusals(): Promise<Record<string, number>>;
}

let current: Limited | undefined;

async function limitedServer(limits: ConnectionLimits): Promise<Limited> {
  const app = express();
  app.get('/hello', (_req, res) => void res.type('text/plain').send('hello'));
  const server = httpServerFor(app);
  const metrics = new Metrics();
  const log = new CapturedLog();
  const clock = new ManualClock();
  const counts = limitConnections(server, limits, { log: log.logger, clock, counter: metrics });
  metrics.watchConnections(counts);
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const port = (server.address() as AddressInfo).port;
  const clients: Client[] = [];
  current = {
    server,
    port,
    counts,
    metrics,
    log,
    clock,
    clients,
    open(localAddress) {
      const made = client(port, localAddress);
      clients.push(made);
      return made;
    },
    async refusals() {
      const text = await metrics.text();
      const count = (reason: string) => Number(new RegExp(`^http_connections_refused_total\\{reason="${reason}"\\} (\\d+)$`, 'm').exec(text)?.[1]);
      return { max_connections: count('max_connections'), max_connections_per_address: count('max_connections_per_address') };
    },
  };
  return current;
}

afterEach(async () => {
  if (!current) return;
  const { server, clients } = current;
  current = undefined;
  for (const each of clients) each.socket.destroy();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** The lines saying a connection was refused, by the address they name ('' for the lines counting the rest). */
const refusalLines = (log: CapturedLog) => log.records().filter((record) => /connections? .*refused/.test(String(record.msg)));

describe('connection limits', () => {
  it('closes a connection over the cap per address at once, unanswered, while other addresses are served, and takes one again once one closes', async () => {
    const limited = await limitedServer({ maxConnections: 100, maxConnectionsPerAddress: 3 });
    const held = [1, 2, 3].map(() => limited.open('127.0.0.1'));
    await eventually(() => expect(limited.counts.open()).toBe(3));
    expect(limited.counts.busiestAddress()).toBe(3);

    const over = limited.open('127.0.0.1');
    over.socket.write(HELLO);
    await over.closed;
    expect(over.received(), 'a refused connection gets no answer').toBe('');

    const other = limited.open('127.0.0.2');
    other.socket.write(HELLO);
    await other.closed;
    expect(other.received()).toMatch(/^HTTP\/1\.1 200 OK\r\n[^]*\r\n\r\nhello$/);

    held[0]!.socket.destroy();
    await eventually(() => expect(limited.counts.open()).toBe(2));
    const again = limited.open('127.0.0.1');
    again.socket.write(HELLO);
    await again.closed;
    expect(again.received()).toMatch(/^HTTP\/1\.1 200 OK\r\n/);

    expect(await limited.refusals()).toEqual({ max_connections: 0, max_connections_per_address: 1 });
    const text = await limited.metrics.text();
    expect(text).toMatch(/^http_connections_open 2$/m);
    expect(text).toMatch(/^http_connections_open_busiest_address 2$/m);
    expect(refusalLines(limited.log)).toEqual([
      expect.objectContaining({ level: 40, remoteAddress: '127.0.0.1', reason: 'max_connections_per_address', limit: 3, msg: expect.stringMatching(/HTTP_MAX_CONNECTIONS_PER_ADDRESS/) }),
    ]);
  });

  it('closes a connection over the cap in all at once, through Node’s maxConnections, counted and logged by address', async () => {
    const limited = await limitedServer({ maxConnections: 4, maxConnectionsPerAddress: 3 });
    expect(limited.server.maxConnections).toBe(4);
    for (const address of ['127.0.0.1', '127.0.0.1', '127.0.0.1', '127.0.0.2']) limited.open(address);
    await eventually(() => expect(limited.counts.open()).toBe(4));

    const over = limited.open('127.0.0.3');
    over.socket.write(HELLO);
    await over.closed;
    expect(over.received()).toBe('');
    expect(await limited.refusals()).toEqual({ max_connections: 1, max_connections_per_address: 0 });
    expect(limited.counts.open()).toBe(4);
    expect(refusalLines(limited.log)).toEqual([expect.objectContaining({ remoteAddress: '127.0.0.3', reason: 'max_connections', limit: 4, msg: expect.stringMatching(/HTTP_MAX_CONNECTIONS\b/) })]);
  });

  it('logs a refused address at most once a window, counts the rest in one line when the next window starts, and names at most 100 addresses a window', async () => {
    // A cap of 0 refuses every connection: each address below is refused as often as it connects.
    const limited = await limitedServer({ maxConnections: 1_000, maxConnectionsPerAddress: 0 });
    const refuse = async (address: string, times = 1) => {
      for (let i = 0; i < times; i += 1) await limited.open(address).closed;
    };
    await refuse('127.0.0.1', 5);
    await refuse('127.0.0.2', 2);
    expect(refusalLines(limited.log).map((record) => record.remoteAddress)).toEqual(['127.0.0.1', '127.0.0.2']);

    // Still the same window a moment before its end: nothing more is logged.
    limited.clock.set(limited.clock.nowMs() + REFUSAL_LOG_INTERVAL_MS - 1);
    await refuse('127.0.0.1');
    expect(refusalLines(limited.log)).toHaveLength(2);

    // The next window: a line counting the six refusals not logged (five of 127.0.0.1, one of 127.0.0.2), then
    // 127.0.0.1 named again.
    limited.clock.set(limited.clock.nowMs() + 1);
    await refuse('127.0.0.1');
    expect(refusalLines(limited.log).slice(2)).toEqual([
      expect.objectContaining({ unlogged: 6, addresses: 2, msg: expect.stringMatching(/^6 more connections refused in the last window of 10 s/) }),
      expect.objectContaining({ remoteAddress: '127.0.0.1' }),
    ]);

    // A crowd of addresses: the first 100 of a window are named, the others counted.
    limited.clock.set(limited.clock.nowMs() + REFUSAL_LOG_INTERVAL_MS);
    const crowd = Array.from({ length: REFUSAL_LOG_MAX_ADDRESSES + 10 }, (_, i) => `127.0.1.${i + 1}`);
    for (const address of crowd) await refuse(address);
    limited.clock.set(limited.clock.nowMs() + REFUSAL_LOG_INTERVAL_MS);
    await refuse('127.0.0.1');
    const lines = refusalLines(limited.log).slice(4);
    expect(lines.filter((record) => record.remoteAddress !== undefined).map((record) => record.remoteAddress)).toEqual([...crowd.slice(0, REFUSAL_LOG_MAX_ADDRESSES), '127.0.0.1']);
    expect(lines.filter((record) => record.unlogged !== undefined)).toEqual([expect.objectContaining({ unlogged: 10, addresses: REFUSAL_LOG_MAX_ADDRESSES })]);

    // Every refusal is in the metrics, whatever the log left out.
    expect((await limited.refusals()).max_connections_per_address).toBe(5 + 2 + 1 + 1 + crowd.length + 1);
    expect(limited.counts.open()).toBe(0);
  });

  it('wants HTTP’s own connection listener alone on the server', () => {
    const server = httpServerFor(express());
    server.on('connection', () => undefined);
    expect(() => limitConnections(server, { maxConnections: 1, maxConnectionsPerAddress: 1 }, { log: new CapturedLog().logger, clock: new ManualClock() })).toThrow(/found 2 listeners/);
  });
});
