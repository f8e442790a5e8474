/**
 * Answers read from the database that later requests may reuse for a short, bounded time.
 *
 * Two guarantees, which the credential and grant caches of API clients rely on:
 *  - In this process, a change takes effect on the next request: whoever changes the data calls `forget` once the
 *    change is committed. A read that began before that call is never stored afterwards (every `forget` starts a
 *    new generation, and a read stores its answer only into the generation it began in), so a request in flight
 *    during the change cannot put the old answer back.
 *  - Changes made by other processes on the same database take effect within `maxAgeMs`: an answer is reused only
 *    until `maxAgeMs` after its read *began*, so it can be at most that much older than any change committed after
 *    the read started. Nothing has to be told, so an operator command, a second server, or a restore all count.
 *
 * Ages come from a monotonic clock (not the product clock tests move, nor wall time, which can step back).
 */
export interface RecentlyReadOptions {
  /** How long an answer is reused, counted from when its read began. */
  maxAgeMs: number;
  /** Entries kept at most; the least recently stored goes first. */
  maxEntries: number;
  /** A monotonic clock in milliseconds. */
  now: () => number;
}

/** Taken before a read; the answer may be stored only with the ticket of the read that produced it. */
export interface ReadTicket {
  readonly generation: number;
  readonly startedAt: number;
}

interface Entry<V> {
  value: V;
  startedAt: number;
}

export class RecentlyRead<V> {
  private readonly entries = new Map<string, Entry<V>>();
  private generation = 0;

  constructor(private readonly options: RecentlyReadOptions) {}

  /** The answer stored for `key`, while it is younger than `maxAgeMs`. */
  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (this.options.now() - entry.startedAt >= this.options.maxAgeMs) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  /** Call right before reading the database for `key`. */
  begin(): ReadTicket {
    return { generation: this.generation, startedAt: this.options.now() };
  }

  /** Keeps the answer of a read, unless something was forgotten since the read began. */
  store(ticket: ReadTicket, key: string, value: V): void {
    if (ticket.generation !== this.generation) return;
    this.entries.delete(key);
    if (this.entries.size >= this.options.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { value, startedAt: ticket.startedAt });
  }

  /** The cached answer, or `load`'s, which is kept for later requests. */
  async read(key: string, load: () => Promise<V>): Promise<V> {
    const cached = this.get(key);
    if (cached !== undefined) return cached;
    const ticket = this.begin();
    const value = await load();
    this.store(ticket, key, value);
    return value;
  }

  /** Drops `key`'s answer; reads in flight are not stored. Call after the change is committed. */
  forget(key: string): void {
    this.generation += 1;
    this.entries.delete(key);
  }

  /** Drops every answer; reads in flight are not stored. */
  forgetAll(): void {
    this.generation += 1;
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}
