/**
 * A stall detector for the server's request thread, not a latency measure (the benchmarks under bench/ measure): it
 * asks /healthz every `everyMs` until stopped and records how long after it was due each answer came. A request
 * thread held busy shows even between requests (the test's client shares that thread when the server runs in the
 * test's process). `stalled` rejects at the first answer later than `stallMs`, a bound of seconds that a busy
 * machine never reaches with the work where it belongs.
 */
export function watchHealth(baseUrl: string, { stallMs, everyMs }: { stallMs: number; everyMs: number }) {
  const waits: number[] = [];
  let running = true;
  let stall: (error: Error) => void = () => undefined;
  const stalled = new Promise<never>((_, reject) => (stall = reject));
  stalled.catch(() => undefined);
  const record = (wait: number) => {
    waits.push(wait);
    if (wait > stallMs) stall(new Error(`the request thread was held: /healthz answered ${Math.round(wait)} ms after it was due (at most ${stallMs} ms)`));
  };
  const done = (async () => {
    let due = performance.now();
    while (running) {
      // A request thread held for longer than the keep-alive timeout drops idle connections: ask again on a new one.
      const res = await fetch(`${baseUrl}/healthz`).catch(() => fetch(`${baseUrl}/healthz`));
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`/healthz answered ${res.status}`);
      record(performance.now() - due);
      due = Math.max(due + everyMs, performance.now());
      await new Promise((resolve) => setTimeout(resolve, due - performance.now()));
      // Stopped while asleep: how late it woke up still counts, the thread may have been held meanwhile.
      if (!running) record(performance.now() - due);
    }
  })();
  return {
    stalled,
    /** Stops asking; the waits of every answer, in ms after it was due. */
    async stop(): Promise<number[]> {
      running = false;
      await done;
      return waits;
    },
  };
}
