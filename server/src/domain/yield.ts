import { setImmediate } from 'node:timers/promises';

/**
 * Resolves after the event loop has had its turn at I/O. Promise continuations alone never give it one, and SQLite
 * queries (better-sqlite3) complete synchronously, so a loop of batches calls this between batches to let waiting
 * requests in.
 */
export const yieldToEventLoop = (): Promise<void> => setImmediate();
