import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { describeEachDatabase } from '../../../test/databases.js';
import { KyselyJobRepository } from '../../storage/repositories/jobs.js';
import { ManualClock } from '../clock.js';
import { claimedFile, faultPoints, type FaultTraceLine } from './fault-points.js';
import { JobQueue } from './queue.js';

const traceOf = (file: string): FaultTraceLine[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as FaultTraceLine);

describe('fault points', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'fault-points-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('are no hook at all unless a file is configured', () => {
    expect(faultPoints({})).toBeUndefined();
    expect(faultPoints({ armedFile: undefined, traceFile: undefined })).toBeUndefined();
  });

  it('trace every pass, counted per point', () => {
    const traceFile = join(dir, 'trace');
    const point = faultPoints({ traceFile, pid: 7 })!;
    point('job:scan:claimed');
    point('job:scan:heartbeat');
    point('job:scan:heartbeat');
    expect(traceOf(traceFile)).toEqual([
      { pid: 7, point: 'job:scan:claimed', hit: 1 },
      { pid: 7, point: 'job:scan:heartbeat', hit: 1 },
      { pid: 7, point: 'job:scan:heartbeat', hit: 2 },
    ]);
  });

  it('kill at the armed hit of the armed point, counting the passes of every process from when the fault is armed, and claim it once', () => {
    const armedFile = join(dir, 'armed');
    const traceFile = join(dir, 'trace');
    const deaths: number[] = [];
    const first = faultPoints({ armedFile, traceFile, pid: 1, die: () => deaths.push(1) })!;
    const second = faultPoints({ armedFile, traceFile, pid: 2, die: () => deaths.push(2) })!;
    // Passes before the fault is armed do not count towards it.
    first('job:scan:heartbeat');
    writeFileSync(armedFile, JSON.stringify({ id: 'f1', point: 'job:scan:heartbeat', hit: 3 }));
    first('job:scan:heartbeat');
    second('job:scan:heartbeat');
    first('job:scan:claimed');
    expect(deaths).toEqual([]);
    // The third pass of the point, whichever process makes it.
    second('job:scan:heartbeat');
    expect(deaths).toEqual([2]);
    expect(existsSync(armedFile)).toBe(false);
    expect(JSON.parse(readFileSync(claimedFile(armedFile), 'utf8'))).toMatchObject({ id: 'f1' });
    // Passes after the fault was claimed: the others carry on.
    first('job:scan:heartbeat');
    expect(deaths).toEqual([2]);
    expect(traceOf(traceFile)).toEqual([
      { pid: 1, point: 'job:scan:heartbeat', hit: 1 },
      { pid: 1, point: 'job:scan:heartbeat', hit: 1 },
      { pid: 2, point: 'job:scan:heartbeat', hit: 2 },
      { pid: 1, point: 'job:scan:claimed', hit: 1 },
      { pid: 2, point: 'job:scan:heartbeat', hit: 3, fault: 'f1' },
      // With nothing armed, a process counts its own passes again.
      { pid: 1, point: 'job:scan:heartbeat', hit: 2 },
    ]);

    // A new fault starts the counts again.
    writeFileSync(armedFile, JSON.stringify({ id: 'f2', point: 'job:scan:heartbeat', hit: 1 }));
    first('job:scan:heartbeat');
    expect(deaths).toEqual([2, 1]);
  });
});

describeEachDatabase('job queue fault points', (db) => {
  it('every job passes claimed, its heartbeats and its handler’s points, handled and recorded, in order; none without a hook', async () => {
    const { handle } = db();
    const passed: string[] = [];
    const queue = new JobQueue(new KyselyJobRepository(handle.db, handle.dialect), new ManualClock(), { faultPoint: (point) => passed.push(point) });
    queue.register(
      'sync',
      async (_payload, context) => {
        await context.heartbeat();
        context.reached('sent');
        await context.heartbeat();
      },
      async () => {},
    );
    await queue.enqueue('sync', {});
    await queue.runOnce();
    expect(passed).toEqual(['job:sync:claimed', 'job:sync:heartbeat', 'job:sync:sent', 'job:sync:heartbeat', 'job:sync:handled', 'job:sync:recorded']);

    const unwatched = new JobQueue(new KyselyJobRepository(handle.db, handle.dialect), new ManualClock());
    unwatched.register('sync', async (_payload, context) => context.reached('sent'), async () => {});
    await unwatched.enqueue('sync', {});
    expect((await unwatched.runOnce())?.kind).toBe('sync');
    expect(passed).toHaveLength(6);
  });
});
