import { describe, expect, it } from '@jest/globals';
import { describeEachDatabase } from '../../../test/databases.js';
import { KyselyJobRepository } from '../../storage/repositories/jobs.js';
import { ManualClock } from '../clock.js';
import type { Log } from '../log.js';
import { holdLease, JobQueue, WorkerStoppingError, type JobContext } from './queue.js';
import { conductorTenant, organizationTenant, SHARED_TENANT } from './tenants.js';

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
/** For kinds whose jobs stand for nothing that a give-up would leave unfinished. */
const nothingToSettle = async (): Promise<void> => {};

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
    queue.register('greet', async (payload) => void seen.push(payload), nothingToSettle);
    const job = await queue.enqueue('greet', { name: 'ada' });

    await queue.runOnce();
    expect(await queue.runOnce()).toBeUndefined();

    expect(seen).toEqual([{ name: 'ada' }]);
    expect(await queue.get(job.id)).toMatchObject({ status: 'succeeded', attempts: 1, lastError: null });
  });

  it('when a worker dies mid-job, another takes the job over after the lease runs out and it succeeds once', async () => {
    const { clock, repository, queue } = setup();
    let runs = 0;
    queue.register('scan', async () => void (runs += 1), nothingToSettle);
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
    queue.register('scan', async () => void (runs += 1), nothingToSettle);
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
    queue.register(
      'flaky',
      async () => {
        runs += 1;
        throw new Error(`boom ${runs}`);
      },
      nothingToSettle,
    );
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
    queue.register(
      'flaky',
      async () => {
        throw new Error('cloud unreachable\n  at the edge');
      },
      nothingToSettle,
    );
    queue.register('steady', async () => {}, nothingToSettle);
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
    queue.register('notify', async () => void (runs += 1), nothingToSettle);
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
    queue.register(
      'long',
      async (_payload, context) => {
        clock.advanceSeconds(LEASE_MS / 1000 - 1);
        expect(await context.heartbeat()).toBe(true);
        clock.advanceSeconds(LEASE_MS / 1000 - 1);
        takenOver = await repository.claim('other-worker', clock.nowMs(), clock.nowMs() + LEASE_MS);
      },
      nothingToSettle,
    );
    const job = await queue.enqueue('long', {});
    await queue.runOnce();

    expect(takenOver).toBeUndefined();
    expect(await queue.get(job.id)).toMatchObject({ status: 'succeeded', attempts: 1 });
  });

  it('a worker never takes over, nor gives up, its own attempt whose lease ran out while it was busy', async () => {
    const { clock, repository, queue } = setup();
    const seen: unknown[] = [];
    queue.register(
      'paused',
      async (_payload, context) => {
        // A pause longer than the lease, e.g. a starved machine: the attempt is alive, and this worker knows it.
        clock.advanceSeconds(LEASE_MS / 1000 + 1);
        seen.push(await queue.runOnce());
        expect(await context.heartbeat()).toBe(true);
      },
      async () => void seen.push('given up'),
    );
    for (const maxAttempts of [2, 1]) {
      const job = await queue.enqueue('paused', {}, { maxAttempts });
      await queue.runOnce();
      expect(await queue.get(job.id)).toMatchObject({ status: 'succeeded', attempts: 1 });
    }
    expect(seen).toEqual([undefined, undefined]);
    // Another worker does take over an attempt whose lease ran out.
    await queue.enqueue('paused', {});
    const claimed = await repository.claim('other-worker', clock.nowMs(), clock.nowMs() + LEASE_MS);
    clock.advanceSeconds(LEASE_MS / 1000 + 1);
    expect(await repository.claim('third-worker', clock.nowMs(), clock.nowMs() + LEASE_MS)).toMatchObject({ id: claimed!.id, attempts: 2 });
  });

  it('a kind cannot be registered without a give-up handler', () => {
    const { queue } = setup();
    // @ts-expect-error: the give-up handler is required, so that no kind can leave its work pending for good.
    expect(() => queue.register('careless', async () => {})).toThrow("job kind 'careless' needs a give-up handler");
  });

  it('records a job failed only once its work is settled: a give-up that fails is tried again after the lease', async () => {
    const { clock, repository, queue } = setup();
    const settled: string[] = [];
    let settling = 0;
    queue.register('settle', async () => {}, async (_payload, reason) => {
      settling += 1;
      if (settling === 1) throw new Error('database unreachable');
      settled.push(reason);
    });
    const job = await queue.enqueue('settle', {}, { maxAttempts: 1 });
    await repository.claim('dead-worker', clock.nowMs(), clock.nowMs() + LEASE_MS);
    clock.advanceSeconds(LEASE_MS / 1000 + 1);

    await queue.runOnce();
    // Not failed yet: leased to this worker, which gives it up again once that lease runs out too.
    expect(await queue.get(job.id)).toMatchObject({ status: 'running', attempts: 1 });
    await queue.runOnce();
    expect(settling).toBe(1);

    clock.advanceSeconds(LEASE_MS / 1000 + 1);
    await queue.runOnce();
    expect(settled).toEqual([expect.stringMatching(/^abandoned: /)]);
    expect(await queue.get(job.id)).toMatchObject({ status: 'failed', lastError: settled[0] });
    await queue.runOnce();
    expect(settling).toBe(2);
  });

  describe('a worker that stops', () => {
    /** A handler that works in steps, calling heartbeat between them, until the worker stops it. */
    const stepper = () => {
      const seen = { steps: 0, stoppedBy: undefined as unknown, wroteAfterStop: false };
      let started!: () => void;
      const running = new Promise<void>((resolve) => (started = resolve));
      const handler = async (_payload: unknown, context: JobContext) => {
        started();
        for (;;) {
          try {
            await holdLease(context.heartbeat);
          } catch (error) {
            seen.stoppedBy = error;
            throw error;
          }
          seen.steps += 1;
          if (context.signal.aborted) seen.wroteAfterStop = true;
          await new Promise((resolve) => setImmediate(resolve));
        }
      };
      return { seen, running, handler };
    };

    it('hands its running job back: the handler is stopped, the lease released and the attempt not counted', async () => {
      const { clock, repository, queue } = setup();
      const { seen, running, handler } = stepper();
      queue.register('long', handler, nothingToSettle);
      const job = await queue.enqueue('long', {}, { maxAttempts: 2 });
      const attempt = queue.runOnce();
      await running;

      await queue.stop();
      await attempt;
      expect(seen.stoppedBy).toBeInstanceOf(WorkerStoppingError);
      expect(seen.wroteAfterStop).toBe(false);
      expect(await queue.get(job.id)).toMatchObject({ status: 'queued', attempts: 0, runAt: clock.nowMs(), leaseOwner: null, leaseExpiresAt: null, lastError: null });

      // Due now, for any worker: taken at once, as attempt 1 of 2 again.
      const other = new JobQueue(repository, clock, { leaseMs: LEASE_MS });
      let ranAgain = 0;
      other.register('long', async () => void (ranAgain += 1), nothingToSettle);
      expect(await other.runOnce()).toMatchObject({ id: job.id, attempts: 1 });
      expect(ranAgain).toBe(1);
      expect(await other.get(job.id)).toMatchObject({ status: 'succeeded', attempts: 1 });
    });

    it('whatever the stopped handler throws is no failure: the job is handed back, not retried later nor given up', async () => {
      const { clock, queue } = setup();
      const givenUp: string[] = [];
      let started!: () => void;
      const running = new Promise<void>((resolve) => (started = resolve));
      queue.register(
        'fragile',
        async (_payload, context) => {
          started();
          await new Promise((resolve) => context.signal.addEventListener('abort', resolve));
          throw new Error('driver has already been destroyed');
        },
        async (_payload, reason) => void givenUp.push(reason),
      );
      const job = await queue.enqueue('fragile', {}, { maxAttempts: 1 });
      const attempt = queue.runOnce();
      await running;
      await queue.stop();
      await attempt;
      expect(givenUp).toEqual([]);
      expect(await queue.get(job.id)).toMatchObject({ status: 'queued', attempts: 0, runAt: clock.nowMs(), lastError: null });
    });

    it('leaves a job whose handler does not stop in time to its lease, and records nothing the handler does later', async () => {
      const { clock, repository, queue } = setup();
      let started!: () => void;
      const running = new Promise<void>((resolve) => (started = resolve));
      let finish!: () => void;
      const finished = new Promise<void>((resolve) => (finish = resolve));
      queue.register(
        'stubborn',
        async () => {
          started();
          await finished;
        },
        nothingToSettle,
      );
      const job = await queue.enqueue('stubborn', {});
      const attempt = queue.runOnce();
      await running;
      await queue.stop(10);
      // Not handed back: what the handler still writes could land after another worker took the job up.
      const held = await queue.get(job.id);
      expect(held).toMatchObject({ status: 'running', attempts: 1, leaseExpiresAt: clock.nowMs() + LEASE_MS });
      finish();
      await attempt;
      expect(await queue.get(job.id)).toEqual(held);

      // Taken over once the lease runs out, as after a crash.
      clock.advanceSeconds(LEASE_MS / 1000 + 1);
      expect(await repository.claim('other-worker', clock.nowMs(), clock.nowMs() + LEASE_MS)).toMatchObject({ id: job.id, attempts: 2 });
    });

    it('a job that finishes while the worker stops is recorded as it ended', async () => {
      const { queue } = setup();
      let started!: () => void;
      const running = new Promise<void>((resolve) => (started = resolve));
      queue.register(
        'almost-done',
        async (_payload, context) => {
          started();
          await new Promise((resolve) => context.signal.addEventListener('abort', resolve));
        },
        nothingToSettle,
      );
      const job = await queue.enqueue('almost-done', {});
      const attempt = queue.runOnce();
      await running;
      await queue.stop();
      await attempt;
      expect(await queue.get(job.id)).toMatchObject({ status: 'succeeded', attempts: 1 });
    });

    it('a started worker hands back what it runs when stopped, and takes it up again once started again', async () => {
      const { repository, clock } = setup();
      const queue = new JobQueue(repository, clock, { leaseMs: LEASE_MS, pollMs: 10 });
      let starts = 0;
      let started!: () => void;
      let running = new Promise<void>((resolve) => (started = resolve));
      queue.register(
        'long',
        async (_payload, context) => {
          starts += 1;
          started();
          for (;;) {
            await holdLease(context.heartbeat);
            await new Promise((resolve) => setImmediate(resolve));
          }
        },
        nothingToSettle,
      );
      const job = await queue.enqueue('long', {});
      queue.start();
      await running;
      await queue.stop();
      expect(await queue.get(job.id)).toMatchObject({ status: 'queued', attempts: 0, leaseOwner: null });

      running = new Promise<void>((resolve) => (started = resolve));
      queue.start();
      await running;
      expect(starts).toBe(2);
      expect(await queue.get(job.id)).toMatchObject({ status: 'running', attempts: 1 });
      await queue.stop();
      expect(await queue.get(job.id)).toMatchObject({ status: 'queued', attempts: 0, leaseOwner: null });
    });
  });
});

describeEachDatabase('job queue across tenants', (db) => {
  const setup = () => {
    const { handle } = db();
    const clock = new ManualClock();
    const repository = new KyselyJobRepository(handle.db, handle.dialect);
    const queue = new JobQueue(repository, clock, { leaseMs: LEASE_MS });
    const claimedTenants: string[] = [];
    queue.register('work', async (_payload, context) => void claimedTenants.push(context.job.tenant!), nothingToSettle);
    /** Queues `count` jobs of the tenant, each a second after the one before, so that their order is their age. */
    const enqueue = async (tenant: string, count: number, kind = 'work') => {
      const jobs = [];
      for (let i = 0; i < count; i += 1) {
        jobs.push(await queue.enqueue(kind, { i }, { tenant }));
        clock.advanceSeconds(1);
      }
      return jobs;
    };
    const claim = (owner: string, limits = {}) => repository.claim(owner, clock.nowMs(), clock.nowMs() + LEASE_MS, [], limits);
    return { clock, repository, queue, claimedTenants, enqueue, claim };
  };

  const runAll = async (queue: JobQueue) => {
    while (await queue.runOnce());
  };

  it('one worker takes a job queued after another tenant’s 20 second, not 21st', async () => {
    const { queue, claimedTenants, enqueue } = setup();
    await enqueue(organizationTenant('a'), 20);
    const [late] = await enqueue(organizationTenant('b'), 1);

    await runAll(queue);

    // Neither was served before: they tie, and 'org:a' goes first by name; then 'org:b', served longer ago.
    expect(claimedTenants).toEqual(['org:a', 'org:b', ...Array.from({ length: 19 }, () => 'org:a')]);
    expect(await queue.get(late!.id)).toMatchObject({ status: 'succeeded', tenant: 'org:b' });
  });

  it('tenants with backlogs take turns, the one served longest ago first', async () => {
    const { queue, claimedTenants, enqueue } = setup();
    await enqueue(organizationTenant('a'), 3);
    await enqueue(organizationTenant('c'), 3);
    await enqueue(conductorTenant('prod'), 3);

    await runAll(queue);

    // Tenants never served tie, and go in the order of their names.
    expect(claimedTenants).toEqual(Array.from({ length: 3 }, () => ['conductor:prod', 'org:a', 'org:c']).flat());
  });

  it('workers claiming at once take the next tenant’s job rather than two of the tenant just served', async () => {
    const { enqueue, claim } = setup();
    await enqueue(organizationTenant('a'), 20);
    await enqueue(organizationTenant('b'), 1);

    // Two workers, each still running what it claimed: the other tenant's job is among the first two.
    const claimed = await Promise.all([claim('worker-1'), claim('worker-2')]);

    expect(claimed.map((job) => job?.tenant).sort()).toEqual(['org:a', 'org:b']);
  });

  it('jobs queued without a tenant share one, and take their turns like any other', async () => {
    const { queue, claimedTenants, enqueue } = setup();
    await enqueue(organizationTenant('a'), 2);
    const shared = await queue.enqueue('work', {});

    await runAll(queue);

    expect(shared.tenant).toBe(SHARED_TENANT);
    expect(claimedTenants).toEqual(['org:a', SHARED_TENANT, 'org:a']);
  });

  it('a tenant’s job of a kind at its running limit stays queued while its other work and other tenants’ go first', async () => {
    const { repository, clock, enqueue, claim } = setup();
    const limits = { scan: 2 };
    const scans = await enqueue(organizationTenant('a'), 3, 'scan');
    const [delivery] = await enqueue(organizationTenant('a'), 1, 'delivery');

    const first = await claim('worker-1', limits);
    const second = await claim('worker-2', limits);
    expect([first?.id, second?.id]).toEqual([scans[0]!.id, scans[1]!.id]);
    // Two scans run: the third waits, the organization's delivery does not.
    expect((await claim('worker-3', limits))?.id).toBe(delivery!.id);
    expect(await claim('worker-3', limits)).toBeUndefined();
    expect(await repository.get(scans[2]!.id)).toMatchObject({ status: 'queued', attempts: 0 });

    // Another organization's scan is not held back by the first one's.
    const [other] = await enqueue(organizationTenant('b'), 1, 'scan');
    expect((await claim('worker-4', limits))?.id).toBe(other!.id);

    // Once one of the two ends, the third runs.
    expect(await repository.complete(scans[0]!.id, 'worker-1', clock.nowMs())).toBe(true);
    expect((await claim('worker-1', limits))?.id).toBe(scans[2]!.id);
  });

  it('workers claiming at once never run more of a tenant’s jobs of a kind than its limit', async () => {
    const { enqueue, claim } = setup();
    await enqueue(organizationTenant('a'), 6, 'scan');

    const claimed = await Promise.all(Array.from({ length: 6 }, (_, i) => claim(`worker-${i}`, { scan: 2 })));

    expect(claimed.filter((job) => job !== undefined)).toHaveLength(2);
  });

  it('a job whose worker vanished is taken over first, without counting again against its tenant’s limit', async () => {
    const { clock, enqueue, claim } = setup();
    const limits = { scan: 1 };
    const [scan] = await enqueue(organizationTenant('a'), 1, 'scan');
    await enqueue(organizationTenant('a'), 1, 'scan');
    await enqueue(organizationTenant('b'), 1, 'work');
    expect((await claim('vanished', limits))?.id).toBe(scan!.id);

    clock.advanceSeconds(LEASE_MS / 1000 + 1);

    expect(await claim('worker-1', limits)).toMatchObject({ id: scan!.id, attempts: 2, leaseOwner: 'worker-1' });
    expect(await claim('worker-1', limits)).toMatchObject({ tenant: 'org:b' });
    expect(await claim('worker-1', limits)).toBeUndefined();
  });
});
