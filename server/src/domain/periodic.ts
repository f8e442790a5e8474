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
  ) {}

  start(intervalMs: number): void {
    this.running = true;
    const run = () =>
      void this.tick()
        .catch((error) => console.error(`${this.label} failed:`, error))
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
