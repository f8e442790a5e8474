import type { CommandContext, FlagSpec } from './command.js';

export const WAIT_FLAGS: Record<string, FlagSpec> = {
  timeout: { type: 'string', value: '<duration>', description: 'give up waiting after this long, e.g. 90s, 10m (default 10m); exit code 4' },
  interval: { type: 'string', value: '<duration>', description: 'pause between polls (default 2s for scans; dry-runs are long-polled)' },
};

/** The library's wait options from `--timeout` and `--interval`, with a progress line on a terminal. */
export function waitOptions<Current>(ctx: CommandContext, describe: (current: Current) => string) {
  const timeoutMs = ctx.duration('timeout');
  const intervalMs = ctx.duration('interval');
  const onTerminal = ctx.io.stderr.isTTY === true;
  return {
    ...(timeoutMs !== undefined && { timeoutMs }),
    ...(intervalMs !== undefined && { intervalMs }),
    ...(onTerminal && { onProgress: (current: Current) => void ctx.io.stderr.write(`${describe(current)}\n`) }),
  };
}
