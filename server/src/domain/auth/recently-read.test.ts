import { describe, expect, it } from '@jest/globals';
import { RecentlyRead } from './recently-read.js';

function cache(maxEntries = 100) {
  const time = { now: 0 };
  const recent = new RecentlyRead<string>({ maxAgeMs: 1000, maxEntries, now: () => time.now });
  return { time, recent };
}

/** A read whose answer arrives when the test says so. */
function pendingRead() {
  let answer!: (value: string) => void;
  const promise = new Promise<string>((resolve) => (answer = resolve));
  return { load: () => promise, answer };
}

describe('answers read recently', () => {
  it('are reused until the maximum age, counted from when the read began', async () => {
    const { time, recent } = cache();
    const read = pendingRead();
    const reading = recent.read('k', read.load);
    time.now = 300; // the database took 300 ms to answer
    read.answer('v1');
    expect(await reading).toBe('v1');
    time.now = 999;
    expect(recent.get('k')).toBe('v1');
    time.now = 1000;
    expect(recent.get('k')).toBeUndefined();
    expect(await recent.read('k', async () => 'v2')).toBe('v2');
  });

  it('are read once while fresh', async () => {
    const { recent } = cache();
    let reads = 0;
    const load = async () => `v${++reads}`;
    for (let i = 0; i < 5; i += 1) expect(await recent.read('k', load)).toBe('v1');
    expect(reads).toBe(1);
  });

  it('are read again at once after forget', async () => {
    const { recent } = cache();
    await recent.read('k', async () => 'old');
    recent.forget('k');
    expect(await recent.read('k', async () => 'new')).toBe('new');
  });

  it('are never stored by a read that was in flight when something was forgotten', async () => {
    const { recent } = cache();
    const read = pendingRead();
    const reading = recent.read('k', read.load);
    recent.forget('k'); // a change committed while the read was on its way
    read.answer('before the change');
    expect(await reading).toBe('before the change'); // the request in flight may use it …
    expect(recent.get('k')).toBeUndefined(); // … but no later request does
  });

  it('are all dropped by forgetAll, in flight included', async () => {
    const { recent } = cache();
    await recent.read('a', async () => 'a');
    const read = pendingRead();
    const reading = recent.read('b', read.load);
    recent.forgetAll();
    read.answer('b');
    await reading;
    expect(recent.get('a')).toBeUndefined();
    expect(recent.get('b')).toBeUndefined();
    expect(recent.size).toBe(0);
  });

  it('keep at most maxEntries, dropping the least recently stored', async () => {
    const { recent } = cache(2);
    await recent.read('a', async () => 'a');
    await recent.read('b', async () => 'b');
    await recent.read('c', async () => 'c');
    expect(recent.size).toBe(2);
    expect(recent.get('a')).toBeUndefined();
    expect(recent.get('b')).toBe('b');
    expect(recent.get('c')).toBe('c');
  });

  it('are not stored when the read fails', async () => {
    const { recent } = cache();
    await expect(recent.read('k', async () => Promise.reject(new Error('database down')))).rejects.toThrow('database down');
    expect(recent.size).toBe(0);
  });
});
