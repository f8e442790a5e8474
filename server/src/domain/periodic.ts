import { silentLog, type Log } from './log.js';

/**
 * Runs `tick` now and then again `intervalMs` after each run ends (never overlapping itself), until stopped. A
 * failed tick is logged and the next one still comes. The timer does not keep the process alive.
 */
export class PeriodicTask {
  private timer: NodeJS.Timeout | undefined;
  private running = false;

  constructor(
    private readonly label: string,
    private readonly tick: () => Promise<unknown>,
    private readonly log: Log = silentLog,
  ) {}

  start(intervalMs: number): void {
    this.running = true;
    const run = () =>
      void this.tick()
        .catch((error: unknown) => this.log.error({ err: error }, `${this.label} failed`))
        .finally(() => {
          if (!this.running) return;
          this.timer = setTimeout(run, intervalMs);
          this.timer.unref();
        });
    run();
  }

  stop(): void {
    this.running = false;
    clearTimeout(this.timer);
  }
}
