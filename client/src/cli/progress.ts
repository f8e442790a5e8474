/** Where a progress line is drawn: a terminal's stream (`process.stderr`), or a stand-in for one in tests. */
export interface ProgressStream {
  write(chunk: string): unknown;
  isTTY?: boolean;
  /** The terminal's width; a longer line would wrap, and `\r` would then redraw only its last row. */
  columns?: number;
}

/** `\r` back to the start of the line, then the line erased from there to its end. */
const REDRAW = '\r\x1b[K';

/** `7s`, `1m05s`, `1h02m03s`. */
export function formatElapsed(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  const [h, m, s] = [Math.floor(seconds / 3600), Math.floor((seconds % 3600) / 60), seconds % 60];
  if (h > 0) return `${h}h${String(m).padStart(2, '0')}m${String(s).padStart(2, '0')}s`;
  if (m > 0) return `${m}m${String(s).padStart(2, '0')}s`;
  return `${s}s`;
}

/**
 * One line on a terminal saying what is awaited, its last known state and the time waited so far
 * (`scan 7b2e…: IN_PROGRESS, 12s`), redrawn in place every second and at each new state, and erased at the end so
 * what is printed next starts on a clean line.
 */
export class ProgressLine {
  private state = 'waiting';
  private drawn = false;
  private timer: ReturnType<typeof setInterval> | undefined;
  private readonly started: number;

  constructor(
    private readonly stream: ProgressStream,
    private readonly subject: string,
    private readonly now: () => number = Date.now,
  ) {
    this.started = now();
  }

  /** Draws the line now and then every `tickMs`, so the time moves on while a long poll is pending. */
  start(tickMs = 1_000): this {
    this.draw();
    // The n-th tick shows at least n ticks waited: a timer may fire a millisecond early by the wall clock, and the
    // line would then still show the second before.
    let ticks = 0;
    this.timer = setInterval(() => this.draw((ticks += 1) * tickMs), tickMs);
    // The line never keeps the process alive on its own.
    this.timer.unref?.();
    return this;
  }

  update(state: string): void {
    this.state = state;
    this.draw();
  }

  /** `atLeastMs`: the time waited shown is never less than this. */
  draw(atLeastMs = 0): void {
    let text = `${this.subject}: ${this.state}, ${formatElapsed(Math.max(this.now() - this.started, atLeastMs))}`;
    const width = this.stream.columns;
    if (width !== undefined && width > 1 && text.length >= width) text = `${text.slice(0, width - 2)}…`;
    this.stream.write(`${REDRAW}${text}`);
    this.drawn = true;
  }

  /** Stops redrawing and erases the line. */
  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    if (this.drawn) this.stream.write(REDRAW);
    this.drawn = false;
  }
}
