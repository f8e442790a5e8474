import { expect, it } from '@jest/globals';
import { describeEachDatabase } from '../../../test/databases.js';
import { KyselyJobRepository } from '../../storage/repositories/jobs.js';
import { ManualClock } from '../clock.js';
import type { Log } from '../log.js';
import { JobQueue } from './queue.js';

interface LogLine {
  level: string;
  fields: Record<string, unknown>;
  message: string;
}

/** Keeps every line, each with the fields of the child logs it was written through. */
class RecordingLog implements Log {
  constructor(
    readonly lines: LogLine[] = [],
    private readonly bindings: Record<string, unknown> = {},
  ) {}
  private write(level: string, fields: Record<string, unknown>, message: string): void {
    this.lines.push({ level, fields: { ...this.bindings, ...fields }, message });
  }
  debug(fields: Record<string, unknown>, message: string): void {
    this.write('debug', fields, message);
  }
  info(fields: Record<string, unknown>, message: string): void {
    this.write('info', fields, message);
  }
  warn(fields: Record<string, unknown>, message: string): void {
    this.write('warn', fields, message);
  }
  error(fields: Record<string, unknown>, message: string): void {
    this.write('error', fields, message);
  }
  child(fields: Record<string, unknown>): Log {
    return new RecordingLog(this.lines, { ...this.bindings, ...fields });
  }
}

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

  it('logs every start, success, failed attempt and job given up, each line with the job id, kind, attempt and the request behind it', async () => {
    const { clock, repository } = setup();
    const log = new RecordingLog();
    const counted: string[] = [];
    const queue = new JobQueue(repository, clock, {
      leaseMs: LEASE_MS,
      backoffMs: 1_000,
      log,
      metrics: {
        attemptStarted: (kind) => void counted.push(`started ${kind}`),
        attemptEnded: (kind, outcome, seconds) => void counted.push(`ended ${kind} ${outcome} ${seconds >= 0}`),
        abandoned: (kind) => void counted.push(`abandoned ${kind}`),
      },
    });
    queue.register('flaky', async () => {
      throw new Error('cloud unreachable\n  at the edge');
    });
    queue.register('steady', async () => {});
    const job = await queue.enqueue('flaky', {}, { maxAttempts: 2, requestId: 'req-7' });
    await queue.runOnce();
    clock.advanceSeconds(1);
    await queue.runOnce();
    const ids = { jobId: job.id, kind: 'flaky', requestId: 'req-7' };
    expect(log.lines).toEqual([
      { level: 'info', fields: { ...ids, attempt: 1, maxAttempts: 2 }, message: 'job started' },
      {
        level: 'warn',
        fields: { ...ids, attempt: 1, maxAttempts: 2, durationMs: expect.any(Number), retryInMs: 1_000, err: expect.objectContaining({ message: 'cloud unreachable\n  at the edge' }) },
        message: 'job failed, retrying in 1 s',
      },
      { level: 'info', fields: { ...ids, attempt: 2, maxAttempts: 2 }, message: 'job started' },
      {
        level: 'error',
        fields: { ...ids, attempt: 2, maxAttempts: 2, durationMs: expect.any(Number), err: expect.objectContaining({ message: 'cloud unreachable\n  at the edge' }) },
        message: 'job failed on its last attempt, giving up',
      },
    ]);
    expect(counted).toEqual(['started flaky', 'ended flaky retrying true', 'started flaky', 'ended flaky given_up true']);

    log.lines.length = 0;
    counted.length = 0;
    const steady = await queue.enqueue('steady', {});
    await queue.runOnce();
    expect(log.lines).toEqual([
      { level: 'info', fields: { jobId: steady.id, kind: 'steady', attempt: 1, maxAttempts: 3 }, message: 'job started' },
      { level: 'info', fields: { jobId: steady.id, kind: 'steady', attempt: 1, maxAttempts: 3, durationMs: expect.any(Number) }, message: 'job succeeded' },
    ]);
    expect(counted).toEqual(['started steady', 'ended steady succeeded true']);

    log.lines.length = 0;
    counted.length = 0;
    const abandoned = await queue.enqueue('flaky', {}, { maxAttempts: 1 });
    await repository.claim('dead-worker', clock.nowMs(), clock.nowMs() + LEASE_MS);
    clock.advanceSeconds(LEASE_MS / 1000 + 1);
    await queue.runOnce();
    expect(log.lines).toEqual([
      {
        level: 'error',
        fields: { jobId: abandoned.id, kind: 'flaky', attempt: 1, maxAttempts: 1, error: expect.stringMatching(/^abandoned: /) },
        message: 'job given up after 1 attempts',
      },
    ]);
    expect(counted).toEqual(['abandoned flaky']);
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
