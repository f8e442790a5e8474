import { AppError } from '../domain/errors.js';

/**
 * When the database cannot serve a query now — it cannot be reached, it is shutting down or starting, a statement
 * or a lock wait ran past its timeout, no connection came free in time, or too many requests already wait for one —
 * the caller gets AppError `unavailable` (503 with Retry-After), and may try again. Every other database error stays
 * what it was (a 500 unless a repository makes something of it).
 */

/** What the 503's Retry-After says: long enough for a restarting database or a lock holder, short for a client. */
export const RETRY_AFTER_SECONDS = 2;

export type Unavailability = 'unreachable' | 'statement-timeout' | 'busy';

const MESSAGES: Record<Unavailability, string> = {
  unreachable: 'The database cannot be reached right now; try again shortly',
  'statement-timeout': 'The database did not answer in time; try again shortly',
  busy: 'The server is busy: no database connection came free in time; try again shortly',
};

export function unavailable(reason: Unavailability, cause?: unknown): AppError {
  return new AppError('unavailable', MESSAGES[reason], { retryAfter: RETRY_AFTER_SECONDS, cause });
}

/**
 * PostgreSQL's SQLSTATEs that mean "not now" rather than "never": the connection broke or was refused (class 08),
 * the server is shutting down, crashed or is starting (57P01–57P03), the session was ended for idling (57P05,
 * 25P03), a statement or lock wait ran out of time (57014 query_canceled: statement_timeout; 55P03:
 * lock_timeout), or the server has no room for the work (53000, 53200 out of memory, 53300 too many connections).
 */
const SQLSTATES: ReadonlyMap<string, Unavailability> = new Map([
  ['57P01', 'unreachable'],
  ['57P02', 'unreachable'],
  ['57P03', 'unreachable'],
  ['57P05', 'unreachable'],
  ['25P03', 'unreachable'],
  ['57014', 'statement-timeout'],
  ['55P03', 'statement-timeout'],
  ['53000', 'busy'],
  ['53200', 'busy'],
  ['53300', 'busy'],
]);

/** Node's codes of a socket that could not be opened or broke. */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ECONNABORTED', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'EHOSTDOWN', 'ENETUNREACH', 'ENETDOWN', 'ENOTFOUND', 'EAI_AGAIN']);

const codeOf = (error: unknown): string | undefined => {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
};

/** PostgreSQL's error codes are five characters of digits and capitals; SQLite's are longer. */
const isSqlstate = (code: string): boolean => /^[0-9A-Z]{5}$/.test(code);

/**
 * Why a driver's error means the database cannot serve now, or undefined when it means something else. By code
 * only: a SQLSTATE, Node's code of a failed socket, or SQLite's SQLITE_BUSY (its busy_timeout ran out while another
 * connection held the write lock). `connectionLost`: the error came from a connection the driver saw break, whatever
 * it says (the driver reports a connection closed under a query without a code).
 */
export function unavailability(error: unknown, connectionLost = false): Unavailability | undefined {
  if (error instanceof AppError) return undefined;
  const code = codeOf(error);
  if (code !== undefined) {
    // Node's codes first: EPIPE has a SQLSTATE's shape.
    if (SOCKET_CODES.has(code)) {
      return 'unreachable';
    } else if (isSqlstate(code)) {
      if (code.startsWith('08')) return 'unreachable';
      const reason = SQLSTATES.get(code);
      if (reason) return reason;
    } else if (code === 'SQLITE_BUSY' || code.startsWith('SQLITE_BUSY_')) {
      return 'busy';
    }
  }
  return connectionLost ? 'unreachable' : undefined;
}

/** The error a caller should see: AppError `unavailable` for a database that cannot serve now, otherwise `error` itself. */
export function asUnavailable(error: unknown, connectionLost = false): unknown {
  const reason = unavailability(error, connectionLost);
  return reason ? unavailable(reason, error) : error;
}

/** True for AppError `unavailable`, and for a driver error that means it (see `unavailability`). */
export function isUnavailable(error: unknown): boolean {
  return (error instanceof AppError && error.code === 'unavailable') || unavailability(error) !== undefined;
}

/**
 * Settles as `work` does, or rejects with AppError `unavailable` (busy) after `ms`, whichever comes first: for
 * readers that must not wait on a busy database, like a metrics scrape. A late rejection of `work` is dropped.
 */
export function withinMs<T>(work: Promise<T>, ms: number): Promise<T> {
  work.catch(() => undefined);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(unavailable('busy')), ms);
    timer.unref();
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

export interface ConnectionLimits {
  /** Connections open at most. */
  size: number;
  /** How long a query waits for a connection, counting a new connection's set-up, before it is refused. */
  acquireTimeoutMs: number;
  /** Queries waiting for a connection at most; one more is refused at once. */
  maxWaiting: number;
}

/**
 * Admits at most `size` holders of a connection at a time; the rest wait in order, at most `maxWaiting` of them and
 * each for at most `acquireTimeoutMs`, and are refused with AppError `unavailable` beyond that. In front of the
 * pool, so that the pool itself never queues: a caller that gave up leaves no entry behind in a queue of its own.
 */
export class ConnectionGate {
  private held = 0;
  private readonly waiting = new Set<{ admit(): void }>();

  constructor(private readonly limits: ConnectionLimits) {}

  /** Resolves once the caller may take a connection; it must then call `leave` exactly once. */
  enter(): Promise<void> {
    if (this.held < this.limits.size && this.waiting.size === 0) {
      this.held += 1;
      return Promise.resolve();
    }
    if (this.waiting.size >= this.limits.maxWaiting) return Promise.reject(unavailable('busy'));
    return new Promise((resolve, reject) => {
      const waiter = {
        admit: () => {
          clearTimeout(timer);
          this.waiting.delete(waiter);
          resolve();
        },
      };
      const timer = setTimeout(() => {
        this.waiting.delete(waiter);
        reject(unavailable('busy'));
      }, this.limits.acquireTimeoutMs);
      this.waiting.add(waiter);
    });
  }

  /** A holder is done: the longest waiter takes its place. */
  leave(): void {
    const next = this.waiting.values().next();
    if (next.done) this.held -= 1;
    else next.value.admit();
  }

  /** Holders and waiters right now (tests, diagnostics). */
  get counts(): { held: number; waiting: number } {
    return { held: this.held, waiting: this.waiting.size };
  }
}
