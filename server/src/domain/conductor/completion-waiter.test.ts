import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { CompletionWaiter } from './completion-waiter.js';

// Timeouts and polls run on jest's fake timers: the tests move time themselves, so a busy machine changes nothing.
beforeEach(() => {
  jest.useFakeTimers();
});
afterEach(() => {
  jest.useRealTimers();
});

/** What a promise has settled to so far, without waiting for it. */
async function settled<T>(promise: Promise<T>): Promise<T | 'pending'> {
  return Promise.race([promise, Promise.resolve('pending' as const)]);
}

describe('waiting for dry-runs to finish', () => {
  it('wakes every waiter of an item when it is notified, and only those; another ends at its timeout, not before', async () => {
    const waiter = new CompletionWaiter(async () => [], 60_000);
    const a = Array.from({ length: 3 }, () => waiter.wait('a', 60_000));
    const b = waiter.wait('b', 50);
    waiter.notify('a');
    expect(await Promise.all(a)).toEqual(['notified', 'notified', 'notified']);
    expect(waiter.waitingCount).toBe(1);
    await jest.advanceTimersByTimeAsync(49);
    expect(await settled(b)).toBe('pending');
    await jest.advanceTimersByTimeAsync(1);
    expect(await settled(b)).toBe('timed-out');
    expect(waiter.waitingCount).toBe(0);
  });

  it('finds items finished elsewhere with one query per poll for all of them, every second, and stops polling when nobody waits', async () => {
    const queries: string[][] = [];
    const finished = new Set<string>();
    const waiter = new CompletionWaiter(async (ids) => {
      queries.push([...ids]);
      return ids.filter((id) => finished.has(id));
    });
    const waits = ['x', 'y', 'z'].map((id) => waiter.wait(id, 5_000));
    await jest.advanceTimersByTimeAsync(999);
    expect(queries).toEqual([]);
    await jest.advanceTimersByTimeAsync(1);
    expect(queries).toEqual([['x', 'y', 'z']]);
    // Recorded by another process: nothing here is notified, the next poll finds them.
    finished.add('x').add('y').add('z');
    await jest.advanceTimersByTimeAsync(1_000);
    expect(queries).toHaveLength(2);
    expect(await Promise.all(waits)).toEqual(['found', 'found', 'found']);
    expect(waiter.waitingCount).toBe(0);
    expect(jest.getTimerCount()).toBe(0);
    await jest.advanceTimersByTimeAsync(10_000);
    expect(queries).toHaveLength(2);
  });

  it('on close, ends every wait at once, and later waits do not wait', async () => {
    const waiter = new CompletionWaiter(async () => [], 60_000);
    const waits = Array.from({ length: 10 }, (_, i) => waiter.wait(`d${i % 3}`, 60_000));
    expect(waiter.close()).toBe(10);
    expect(await Promise.all(waits)).toEqual(Array(10).fill('closed'));
    expect(waiter.waitingCount).toBe(0);
    const timers = jest.getTimerCount();
    const later = waiter.wait('later', 60_000);
    expect(await settled(later)).toBe('closed');
    // No timeout was set for it, nor a poll.
    expect(jest.getTimerCount()).toBe(timers);
    expect(waiter.waitingCount).toBe(0);
  });
});
