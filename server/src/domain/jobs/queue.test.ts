import { expect, it, jest } from '@jest/globals';
import { describeEachDatabase } from '../../../test/databases.js';
import { KyselyJobRepository } from '../../storage/repositories/jobs.js';
import { ManualClock } from '../clock.js';
import { JobQueue } from './queue.js';

const LEASE_MS = 30_000;

describeEachDatabase('job queue', (db) => {
  const setup = () => {
    const { handle } = db();
    const clock = new ManualClock();
    const repository = new KyselyJobRepository(handle.db, handle.dialect);
    const queue = new JobQueue(repository, clock, { leaseMs: LEASE_MS, backoffMs: 1_000 });
    return { clock, repository, queue };
  };

  it('runs a queued job once and records its success', async () => {
    const { queue } = setup();
    const seen: unknown[] = [];
    queue.register('greet', async (payload) => void seen.push(payload));
    const job = await queue.enqueue('greet', { name: 'ada' });

    await queue.runOnce();
    expect(await queue.runOnce()).toBeUndefined();

    expect(seen).toEqual([{ name: 'ada' }]);
    expect(await queue.get(job.id)).toMatchObject({ status: 'succeeded', attempts: 1, lastError: null });
  });

  it('when a worker dies mid-job, another takes the job over after the lease runs out and it succeeds once', async () => {
    const { clock, repository, queue } = setup();
    let runs = 0;
    queue.register('scan', async () => void (runs += 1));
    const job = await queue.enqueue('scan', {});

    // A worker claims the job and dies without finishing: nothing else happens to its claim.
    const dead = await repository.claim('dead-worker', clock.nowMs(), clock.nowMs() + LEASE_MS);
    expect(dead?.id).toBe(job.id);

    // While the lease holds, nobody else may take the job.
    expect(await queue.runOnce()).toBeUndefined();

    clock.advanceSeconds(LEASE_MS / 1000 + 1);
    const retried = await queue.runOnce();
    expect(retried).toMatchObject({ id: job.id, attempts: 2 });
    expect(runs).toBe(1);
    expect(await queue.get(job.id)).toMatchObject({ status: 'succeeded', attempts: 2 });

    // The dead worker, were it to wake up, cannot record a second outcome.
    expect(await repository.complete(job.id, 'dead-worker', clock.nowMs())).toBe(false);
    expect(await repository.fail(job.id, 'dead-worker', 'late', clock.nowMs())).toBe(false);
    expect(await queue.get(job.id)).toMatchObject({ status: 'succeeded', lastError: null });
  });

  it('when the dead worker used the last attempt, the job is failed with a message instead of run again', async () => {
    const { clock, repository, queue } = setup();
    let runs = 0;
    queue.register('scan', async () => void (runs += 1));
    const job = await queue.enqueue('scan', {}, { maxAttempts: 1 });
    await repository.claim('dead-worker', clock.nowMs(), clock.nowMs() + LEASE_MS);

    clock.advanceSeconds(LEASE_MS / 1000 + 1);
    expect(await queue.runOnce()).toBeUndefined();

    expect(runs).toBe(0);
    const failed = await queue.get(job.id);
    expect(failed).toMatchObject({ status: 'failed', attempts: 1 });
    expect(failed?.lastError).toMatch(/abandoned: the worker stopped before finishing/);
  });

  it('retries a failing job with growing backoff and keeps the last error when attempts run out', async () => {
    const { clock, queue } = setup();
    let runs = 0;
    queue.register('flaky', async () => {
      runs += 1;
      throw new Error(`boom ${runs}`);
    });
    const job = await queue.enqueue('flaky', {}, { maxAttempts: 3 });

    await queue.runOnce();
    expect(await queue.get(job.id)).toMatchObject({ status: 'queued', lastError: 'boom 1', runAt: clock.nowMs() + 1_000 });
    expect(await queue.runOnce()).toBeUndefined(); // not due yet

    clock.advanceSeconds(1);
    await queue.runOnce();
    expect(await queue.get(job.id)).toMatchObject({ status: 'queued', lastError: 'boom 2', runAt: clock.nowMs() + 2_000 });

    clock.advanceSeconds(2);
    await queue.runOnce();
    expect(await queue.get(job.id)).toMatchObject({ status: 'failed', attempts: 3, lastError: 'boom 3' });
    expect(runs).toBe(3);
  });

  it('logs every failed attempt and every job given up on stderr, one line each with the job id, kind, attempt and error', async () => {
    const { clock, repository, queue } = setup();
    const logged = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      queue.register('flaky', async () => {
        throw new Error('cloud unreachable\n  at the edge');
      });
      const job = await queue.enqueue('flaky', {}, { maxAttempts: 2 });
      await queue.runOnce();
      clock.advanceSeconds(1);
      await queue.runOnce();
      expect(logged.mock.calls).toEqual([
        [`job ${job.id} (flaky) attempt 1/2 failed, retrying in 1 s: cloud unreachable at the edge`],
        [`job ${job.id} (flaky) attempt 2/2 failed, giving up: cloud unreachable at the edge`],
      ]);

      logged.mockClear();
      const abandoned = await queue.enqueue('flaky', {}, { maxAttempts: 1 });
      await repository.claim('dead-worker', clock.nowMs(), clock.nowMs() + LEASE_MS);
      clock.advanceSeconds(LEASE_MS / 1000 + 1);
      await queue.runOnce();
      expect(logged.mock.calls).toEqual([[expect.stringMatching(new RegExp(`^job ${abandoned.id} \\(flaky\\) given up after 1 attempts: abandoned: `))]]);
    } finally {
      logged.mockRestore();
    }
  });

  it('tells the kind once when it gives a job up, whether its last attempt failed or its worker vanished', async () => {
    const { clock, repository, queue } = setup();
    const givenUp: Array<{ payload: unknown; reason: string }> = [];
    queue.register(
      'settle',
      async () => {
        throw new Error('cloud unreachable');
      },
      async (payload, reason) => void givenUp.push({ payload, reason }),
    );
    await queue.enqueue('settle', { n: 1 }, { maxAttempts: 1 });
    await queue.runOnce();
    expect(givenUp).toEqual([{ payload: { n: 1 }, reason: 'cloud unreachable' }]);

    await queue.enqueue('settle', { n: 2 }, { maxAttempts: 1 });
    await repository.claim('dead-worker', clock.nowMs(), clock.nowMs() + LEASE_MS);
    clock.advanceSeconds(LEASE_MS / 1000 + 1);
    await queue.runOnce();
    await queue.runOnce();
    expect(givenUp).toHaveLength(2);
    expect(givenUp[1]).toMatchObject({ payload: { n: 2 }, reason: expect.stringMatching(/^abandoned/) });
  });

  it('queues work with a dedupe key at most once, even after it ran', async () => {
    const { queue } = setup();
    let runs = 0;
    queue.register('notify', async () => void (runs += 1));
    await queue.enqueue('notify', {}, { dedupeKey: 'notify:n1:s1' });
    await queue.enqueue('notify', {}, { dedupeKey: 'notify:n1:s1' });
    while (await queue.runOnce());
    await queue.enqueue('notify', {}, { dedupeKey: 'notify:n1:s1' });
    await queue.enqueue('notify', {}, { dedupeKey: 'notify:n1:s2' });
    while (await queue.runOnce());
    expect(runs).toBe(2);
  });

  it('a job of a kind nobody handles fails with a message rather than staying queued forever', async () => {
    const { queue } = setup();
    const job = await queue.enqueue('unknown-kind', {});
    await queue.runOnce();
    expect(await queue.get(job.id)).toMatchObject({ status: 'failed', lastError: "no handler for job kind 'unknown-kind'" });
  });

  it('concurrent claims never hand the same job to two workers', async () => {
    const { clock, repository, queue } = setup();
    const ids = new Set<string>();
    for (let i = 0; i < 20; i += 1) ids.add((await queue.enqueue('work', { i })).id);

    const now = clock.nowMs();
    const claims = await Promise.all(
      Array.from({ length: 30 }, (_, i) => repository.claim(`worker-${i % 3}`, now, now + LEASE_MS)),
    );
    const claimed = claims.filter((job) => job !== undefined).map((job) => job.id);

    expect(new Set(claimed).size).toBe(claimed.length);
    expect(new Set(claimed)).toEqual(ids);
  });

  it('a heartbeat keeps the lease, so long work is not taken over while it runs', async () => {
    const { clock, repository, queue } = setup();
    let takenOver: unknown;
    queue.register('long', async (_payload, context) => {
      clock.advanceSeconds(LEASE_MS / 1000 - 1);
      expect(await context.heartbeat()).toBe(true);
      clock.advanceSeconds(LEASE_MS / 1000 - 1);
      takenOver = await repository.claim('other-worker', clock.nowMs(), clock.nowMs() + LEASE_MS);
    });
    const job = await queue.enqueue('long', {});
    await queue.runOnce();

    expect(takenOver).toBeUndefined();
    expect(await queue.get(job.id)).toMatchObject({ status: 'succeeded', attempts: 1 });
  });
});
