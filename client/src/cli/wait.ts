import type { WaitOptions } from '../index.js';
import type { CommandContext, FlagSpec } from './command.js';
import { ProgressLine } from './progress.js';

export const WAIT_FLAGS: Record<string, FlagSpec> = {
  timeout: { type: 'string', value: '<duration>', description: 'give up waiting after this long, e.g. 90s, 10m (default 10m); exit code 4' },
  interval: { type: 'string', value: '<duration>', description: 'pause between polls (default 2s for scans; dry-runs are long-polled)' },
};

/**
 * Whether a wait shows its progress line: only to a person at a terminal. Output piped or redirected (stdout not a
 * terminal), `--json`, or stderr going to a file would otherwise collect redrawn lines.
 */
export function showsProgress(ctx: CommandContext): boolean {
  return ctx.io.stdout.isTTY === true && ctx.io.stderr.isTTY === true && !ctx.out.json;
}

/**
 * Runs `wait` with the library's wait options from `--timeout` and `--interval`. On a terminal a progress line on
 * stderr shows `subject`, the state read last and the time waited, and is erased before anything else is printed.
 */
export async function waitWithProgress<Current, Result>(
  ctx: CommandContext,
  subject: string,
  stateOf: (current: Current) => string,
  wait: (options: WaitOptions<Current>) => Promise<Result>,
): Promise<Result> {
  const timeoutMs = ctx.duration('timeout');
  const intervalMs = ctx.duration('interval');
  const options: WaitOptions<Current> = {
    ...(timeoutMs !== undefined && { timeoutMs }),
    ...(intervalMs !== undefined && { intervalMs }),
  };
  if (!showsProgress(ctx)) return wait(options);
  const line = new ProgressLine(ctx.io.stderr, subject).start();
  try {
    return await wait({ ...options, onProgress: (current) => line.update(stateOf(current)) });
  } finally {
    line.stop();
  }
}
