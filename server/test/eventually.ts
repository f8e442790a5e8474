import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Runs `check` (a function making assertions) until it passes, every `interval` ms, and rethrows its last failure
 * once `timeout` ms have passed: for state that settles a moment after the action that causes it (a page that
 * re-renders, a child process that logs). The timeout only says when to give up, never how soon the state must
 * settle: a busy machine can delay that moment by seconds, hence the generous default.
 */
export async function eventually(check: () => unknown, { timeout = 10_000, interval = 50 } = {}): Promise<void> {
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
