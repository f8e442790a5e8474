import { describe, expect, it } from '@jest/globals';
import { CompletionWaiter } from './completion-waiter.js';

describe('waiting for dry-runs to finish', () => {
  it('wakes every waiter of an item when it is notified, and only those', async () => {
    const waiter = new CompletionWaiter(async () => [], 60_000);
    let woken = 0;
    const a = Array.from({ length: 3 }, () => waiter.wait('a', 60_000).then(() => (woken += 1)));
    void waiter.wait('b', 50);
    waiter.notify('a');
    await Promise.all(a);
    expect(woken).toBe(3);
    expect(waiter.waitingCount).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(waiter.waitingCount).toBe(0);
  });

  it('finds items finished elsewhere with one query per poll for all of them, and stops polling when nobody waits', async () => {
    const queries: string[][] = [];
    const finished = new Set<string>();
    const waiter = new CompletionWaiter(async (ids) => {
      queries.push([...ids]);
      return ids.filter((id) => finished.has(id));
    }, 20);
    const waits = ['x', 'y', 'z'].map((id) => waiter.wait(id, 5_000));
    finished.add('x').add('y').add('z');
    await Promise.all(waits);
    expect(queries[0]).toEqual(['x', 'y', 'z']);
    const polls = queries.length;
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(queries.length).toBe(polls);
  });

  it('on close, ends every wait at once, and later waits do not wait', async () => {
    const waiter = new CompletionWaiter(async () => [], 60_000);
    const waits = Array.from({ length: 10 }, (_, i) => waiter.wait(`d${i % 3}`, 60_000));
    waiter.close();
    await Promise.all(waits);
    expect(waiter.waitingCount).toBe(0);
    const started = Date.now();
    await waiter.wait('later', 60_000);
    expect(Date.now() - started).toBeLessThan(100);
    expect(waiter.waitingCount).toBe(0);
  });
});
