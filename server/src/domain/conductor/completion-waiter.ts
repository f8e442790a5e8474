import { silentLog, type Log } from '../log.js';

/**
 * Why a wait ended: `notified` by the job that finished the item in this process, `found` finished by the poll (a
 * result recorded by another process), `timed-out` at its timeout, `closed` by `close`.
 */
export type WaitEnd = 'notified' | 'found' | 'timed-out' | 'closed';

/**
 * Lets any number of requests wait for items (dry-runs) to finish without costing anything while they wait.
 * A waiter is resolved by `notify`, which the job that finishes an item calls in this server process; a result
 * finished by another server process sharing the database is found by one poll for every waited-on item at
 * once, every `pollMs` while anyone waits (and not at all otherwise). A waiter also ends at its timeout, and at
 * `close`, which a draining server calls so that long polls answer with the current state instead of holding up
 * the shutdown.
 */
export class CompletionWaiter {
  private readonly waiting = new Map<string, Set<(end: WaitEnd) => void>>();
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    /** Those of `ids` that have finished. */
    private readonly finishedAmong: (ids: readonly string[]) => Promise<string[]>,
    private readonly pollMs = 1_000,
    private readonly log: Log = silentLog,
  ) {}

  /**
   * Resolves when `id` is notified or found finished, or after `timeoutMs`, whichever comes first; at once after
   * `close`. Resolves with what ended the wait.
   */
  wait(id: string, timeoutMs: number): Promise<WaitEnd> {
    if (this.closed) return Promise.resolve('closed');
    return new Promise((resolve) => {
      const done = (end: WaitEnd) => {
        clearTimeout(timeout);
        const waiters = this.waiting.get(id);
        waiters?.delete(done);
        if (waiters?.size === 0) this.waiting.delete(id);
        resolve(end);
      };
      const timeout = setTimeout(() => done('timed-out'), timeoutMs);
      const waiters = this.waiting.get(id) ?? new Set();
      waiters.add(done);
      this.waiting.set(id, waiters);
      this.schedulePoll();
    });
  }

  notify(id: string, end: WaitEnd = 'notified'): void {
    for (const done of [...(this.waiting.get(id) ?? [])]) done(end);
  }

  /** Ends every wait now and every later one at once; returns how many waits it ended. */
  close(): number {
    this.closed = true;
    const ended = this.waiterCount;
    for (const id of [...this.waiting.keys()]) this.notify(id, 'closed');
    return ended;
  }

  /** Items waited on right now; for tests and diagnostics. */
  get waitingCount(): number {
    return this.waiting.size;
  }

  /** Requests waiting right now (several may wait on one item): the long-poll waiters metric. */
  get waiterCount(): number {
    let count = 0;
    for (const waiters of this.waiting.values()) count += waiters.size;
    return count;
  }

  private schedulePoll(): void {
    if (this.timer !== undefined) return;
    this.timer = setTimeout(() => void this.poll(), this.pollMs);
    // Waiting requests keep the server alive; the poll alone must not.
    this.timer.unref();
  }

  private async poll(): Promise<void> {
    try {
      const ids = [...this.waiting.keys()];
      if (ids.length > 0) for (const id of await this.finishedAmong(ids)) this.notify(id, 'found');
    } catch (error) {
      this.log.error({ err: error }, 'polling for finished dry-runs failed');
    } finally {
      this.timer = undefined;
      if (this.waiting.size > 0) this.schedulePoll();
    }
  }
}
