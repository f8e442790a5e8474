/**
 * All time comes from one clock so that tests can move it. The APIs speak Unix seconds; leases and timers need
 * milliseconds, so the clock offers both.
 */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  nowMs(): number;
  /** Whole seconds since the Unix epoch. */
  nowSeconds(): number;
}

export const systemClock: Clock = {
  nowMs: () => Date.now(),
  nowSeconds: () => Math.floor(Date.now() / 1000),
};

/** A clock that only moves when told to. */
export class ManualClock implements Clock {
  private ms: number;

  constructor(startMs = Date.UTC(2026, 0, 1)) {
    this.ms = startMs;
  }

  nowMs(): number {
    return this.ms;
  }

  nowSeconds(): number {
    return Math.floor(this.ms / 1000);
  }

  advanceSeconds(seconds: number): void {
    this.ms += seconds * 1000;
  }

  set(ms: number): void {
    this.ms = ms;
  }
}
