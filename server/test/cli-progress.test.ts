import { describe, expect, it, jest } from '@jest/globals';
import { formatElapsed, ProgressLine, type ProgressStream } from '../../client/src/cli/progress.js';

/**
 * The CLI's progress line on a stand-in terminal: what it writes, frame by frame. The CLI's suites
 * (server/test/cli.test.ts) show it in `--wait` runs, in process and under a pseudo-terminal.
 */
const REDRAW = '\r\x1b[K';

function terminal(columns?: number): ProgressStream & { written: string[] } {
  const written: string[] = [];
  return { isTTY: true, columns, written, write: (chunk: string) => written.push(chunk) };
}

/** A clock the test moves by hand. */
function clock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => void (now += ms) };
}

describe('the progress line', () => {
  it('says what is awaited, its state and the time waited, redrawn in place, and erases itself at the end', () => {
    const stream = terminal();
    const time = clock();
    const line = new ProgressLine(stream, 'scan 7b2e4f6a', time.now).start(60_000);
    line.update('IN_PROGRESS');
    time.advance(1_400);
    line.draw();
    time.advance(64_000);
    line.update('SUCCESS');
    line.stop();
    expect(stream.written).toEqual([
      `${REDRAW}scan 7b2e4f6a: waiting, 0s`,
      `${REDRAW}scan 7b2e4f6a: IN_PROGRESS, 0s`,
      `${REDRAW}scan 7b2e4f6a: IN_PROGRESS, 1s`,
      `${REDRAW}scan 7b2e4f6a: SUCCESS, 1m05s`,
      REDRAW,
    ]);
    // Never a line break: the line stays one line, whatever follows starts where it was.
    expect(stream.written.join('')).not.toContain('\n');
  });

  it('moves the time on every tick while no new state comes (a long poll pending)', () => {
    // The ticks come from jest's fake timers and the time shown from the hand-moved clock: both move only when told.
    jest.useFakeTimers();
    try {
      const stream = terminal();
      const time = clock();
      const line = new ProgressLine(stream, 'dry-run 9a8b', time.now).start(1_000);
      for (let tick = 0; tick < 3; tick += 1) {
        time.advance(1_000);
        jest.advanceTimersByTime(1_000);
      }
      expect(stream.written).toEqual(['0s', '1s', '2s', '3s'].map((waited) => `${REDRAW}dry-run 9a8b: waiting, ${waited}`));
      line.stop();
      expect(stream.written.at(-1)).toBe(REDRAW);
      const drawn = stream.written.length;
      // Stopped: no tick draws again.
      jest.advanceTimersByTime(10_000);
      expect(stream.written).toHaveLength(drawn);
      expect(jest.getTimerCount()).toBe(0);
    } finally {
      jest.useRealTimers();
    }
  });

  it('shows at least the ticks waited, even when the clock reads a moment less', () => {
    jest.useFakeTimers();
    try {
      const stream = terminal();
      const time = clock();
      const line = new ProgressLine(stream, 'dry-run 9a8b', time.now).start(1_000);
      // The timer fires a millisecond before the clock says a second went by.
      time.advance(999);
      jest.advanceTimersByTime(1_000);
      line.stop();
      expect(stream.written).toEqual([`${REDRAW}dry-run 9a8b: waiting, 0s`, `${REDRAW}dry-run 9a8b: waiting, 1s`, REDRAW]);
    } finally {
      jest.useRealTimers();
    }
  });

  it('is cut to the terminal width, so it never wraps onto a second row that \\r could not redraw', () => {
    const stream = terminal(24);
    const line = new ProgressLine(stream, 'scan 7b2e4f6a-1c3d-4e5f-8a9b-0c1d2e3f4a5b', clock().now).start(60_000);
    line.stop();
    expect(stream.written[0]).toBe(`${REDRAW}scan 7b2e4f6a-1c3d-4e5…`);
    expect(stream.written[0]!.length - REDRAW.length).toBe(23);
  });

  it('erases nothing it did not draw', () => {
    const stream = terminal();
    new ProgressLine(stream, 'scan x', clock().now).stop();
    expect(stream.written).toEqual([]);
  });

  it.each([
    [0, '0s'],
    [999, '0s'],
    [59_999, '59s'],
    [60_000, '1m00s'],
    [3_599_000, '59m59s'],
    [3_723_000, '1h02m03s'],
  ])('shows %d ms waited as %s', (ms, shown) => {
    expect(formatElapsed(ms)).toBe(shown);
  });
});
