import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Runs `check` (a function making assertions) until it passes, every `interval` ms, and rethrows its last failure
 * once `timeout` ms have passed: for state that settles a moment after the action that causes it (a page that
 * re-renders, a child process that logs).
 */
export async function eventually(check: () => unknown, { timeout = 1_000, interval = 50 } = {}): Promise<void> {
  const deadline = Date.now() + timeout;
  for (;;) {
    try {
      await check();
      return;
    } catch (failure) {
      if (Date.now() >= deadline) throw failure;
    }
    await sleep(interval);
  }
}
