import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import type { Clock } from '../domain/clock.js';

/**
 * Caps on the HTTP server's open connections. Each connection holds an open file of the process; with none, one
 * client opening connections by the thousand (a few bytes each, never finishing a request) used every file the
 * process may open, and every other client's connection failed. A connection over a cap is closed at once, before
 * HTTP reads a byte of it: nothing is answered, the client sees its connection closed (or reset).
 *
 * The cap in all is Node's own `server.maxConnections` (Node closes the connection as it accepts it and emits
 * `drop`). The cap per address counts connections by the socket's remote address, never X-Forwarded-For: which
 * client holds a connection is a matter of the transport, and a header is whatever the client wrote. Counting is a
 * map lookup when a connection opens and another when it closes, nothing per request.
 */
export interface ConnectionLimits {
  maxConnections: number;
  maxConnectionsPerAddress: number;
}

export type RefusalReason = 'max_connections' | 'max_connections_per_address';

/** What the metrics count: refusals by reason; open connections are read when scraped. */
export interface RefusalCounter {
  connectionRefused(reason: RefusalReason): void;
}

/** The connections open now: in all, and from the address holding the most. */
export interface OpenConnections {
  open(): number;
  busiestAddress(): number;
}

/** A refused address is logged at most once in this long; refusals past that are counted in one line a window. */
export const REFUSAL_LOG_INTERVAL_MS = 10_000;
/** Addresses named in the log at most per window: a crowd of addresses over the cap in all costs as many lines. */
export const REFUSAL_LOG_MAX_ADDRESSES = 100;

const VARIABLE: Record<RefusalReason, string> = {
  max_connections: 'HTTP_MAX_CONNECTIONS',
  max_connections_per_address: 'HTTP_MAX_CONNECTIONS_PER_ADDRESS',
};

/**
 * The log of refusals, which must not flood when one client is refused a thousand times a second: windows of
 * REFUSAL_LOG_INTERVAL_MS, each starting at the first refusal after the last ended; in each, the first refusal of
 * an address (of the first REFUSAL_LOG_MAX_ADDRESSES) is logged, and the others are counted and logged in one line
 * when the next window starts. Every refusal is in the metrics anyway; the log says who.
 */
class RefusalLog {
  private windowStartedAt = Number.NEGATIVE_INFINITY;
  /** Addresses logged in this window, and how many of their refusals since were not. */
  private readonly named = new Map<string, number>();
  /** Refusals of addresses past the window's first REFUSAL_LOG_MAX_ADDRESSES. */
  private unnamed = 0;

  constructor(
    private readonly log: Logger,
    private readonly clock: Clock,
    private readonly limits: ConnectionLimits,
  ) {}

  refused(reason: RefusalReason, address: string): void {
    const now = this.clock.nowMs();
    if (now - this.windowStartedAt >= REFUSAL_LOG_INTERVAL_MS) this.startWindow(now);
    const since = this.named.get(address);
    if (since !== undefined) {
      this.named.set(address, since + 1);
      return;
    }
    if (this.named.size >= REFUSAL_LOG_MAX_ADDRESSES) {
      this.unnamed += 1;
      return;
    }
    this.named.set(address, 0);
    const limit = reason === 'max_connections' ? this.limits.maxConnections : this.limits.maxConnectionsPerAddress;
    const held = reason === 'max_connections' ? `the server holds ${limit} connections` : `${address} holds ${limit} connections`;
    this.log.warn(
      { remoteAddress: address, reason, limit },
      `connection from ${address} refused: ${held} (${VARIABLE[reason]}); refusals are logged at most once per address every ${REFUSAL_LOG_INTERVAL_MS / 1000} s`,
    );
  }

  private startWindow(now: number): void {
    let unlogged = this.unnamed;
    for (const count of this.named.values()) unlogged += count;
    if (unlogged > 0) {
      this.log.warn({ unlogged, addresses: this.named.size }, `${unlogged} more connections refused in the last window of ${REFUSAL_LOG_INTERVAL_MS / 1000} s, without a line each`);
    }
    this.named.clear();
    this.unnamed = 0;
    this.windowStartedAt = now;
  }
}

/**
 * Puts the caps on `server` (before it listens): sets `maxConnections`, and moves HTTP's own connection listener
 * behind the count per address, so that a refused connection never reaches HTTP's parser. Returns the counts.
 */
export function limitConnections(
  server: Server,
  limits: ConnectionLimits,
  deps: { log: Logger; clock: Clock; counter?: RefusalCounter },
): OpenConnections {
  const listeners = server.listeners('connection');
  const http = listeners[0] as ((this: Server, socket: Socket) => void) | undefined;
  if (!http || listeners.length !== 1) throw new Error(`limitConnections wants a server with HTTP's connection listener alone, found ${listeners.length} listeners`);
  server.removeListener('connection', http);
  server.maxConnections = limits.maxConnections;

  const refusals = new RefusalLog(deps.log, deps.clock, limits);
  const refuse = (reason: RefusalReason, address: string) => {
    deps.counter?.connectionRefused(reason);
    refusals.refused(reason, address);
  };
  const byAddress = new Map<string, number>();
  let open = 0;

  server.on('drop', (data) => refuse('max_connections', data?.remoteAddress ?? 'an unknown address'));
  server.on('connection', function countConnection(this: Server, socket: Socket) {
    const address = socket.remoteAddress;
    // No address: the client left before its connection was accepted; there is nothing to serve or count.
    if (address === undefined) {
      socket.destroy();
      return;
    }
    const held = byAddress.get(address) ?? 0;
    if (held >= limits.maxConnectionsPerAddress) {
      socket.destroy();
      refuse('max_connections_per_address', address);
      return;
    }
    byAddress.set(address, held + 1);
    open += 1;
    socket.once('close', () => {
      open -= 1;
      const left = byAddress.get(address)! - 1;
      if (left === 0) byAddress.delete(address);
      else byAddress.set(address, left);
    });
    http.call(this, socket);
  });

  return {
    open: () => open,
    busiestAddress: () => {
      let most = 0;
      for (const count of byAddress.values()) if (count > most) most = count;
      return most;
    },
  };
}
