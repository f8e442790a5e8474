import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { AppError } from '../domain/errors.js';
import { asUnavailable, ConnectionGate, isUnavailable, RETRY_AFTER_SECONDS, unavailability, withinMs } from './availability.js';

const withCode = (code: string) => Object.assign(new Error('whatever the driver says'), { code });

describe('telling an unavailable database from other errors', () => {
  it.each([
    ['57P01', 'unreachable'], // admin_shutdown: pg_terminate_backend, a fast shutdown
    ['57P02', 'unreachable'],
    ['57P03', 'unreachable'], // the database system is starting up / shutting down
    ['08006', 'unreachable'],
    ['08001', 'unreachable'],
    ['57014', 'statement-timeout'], // statement_timeout
    ['55P03', 'statement-timeout'], // lock_timeout
    ['53300', 'busy'], // too many clients
    ['ECONNREFUSED', 'unreachable'],
    ['ECONNRESET', 'unreachable'],
    ['EPIPE', 'unreachable'],
    ['SQLITE_BUSY', 'busy'],
    ['SQLITE_BUSY_SNAPSHOT', 'busy'],
  ])('%s means %s', (code, reason) => {
    expect(unavailability(withCode(code))).toBe(reason);
    const converted = asUnavailable(withCode(code));
    expect(converted).toBeInstanceOf(AppError);
    expect(converted).toMatchObject({ code: 'unavailable', retryAfter: RETRY_AFTER_SECONDS });
    expect(isUnavailable(converted)).toBe(true);
  });

  it.each(['23505', '40001', '42P01', '22P02', '28P01', 'SQLITE_CONSTRAINT', 'SQLITE_FULL', 'ERR_SOMETHING'])('%s stays what it was', (code) => {
    const error = withCode(code);
    expect(unavailability(error)).toBeUndefined();
    expect(asUnavailable(error)).toBe(error);
  });

  it('judges by the code, never by the text', () => {
    expect(unavailability(new Error('terminating connection due to administrator command'))).toBeUndefined();
    expect(unavailability(new Error('Connection terminated unexpectedly'))).toBeUndefined();
  });

  it('takes any error of a connection seen to break for an unreachable database', () => {
    expect(unavailability(new Error('Client has encountered a connection error and is not queryable'), true)).toBe('unreachable');
  });

  it('leaves the domain’s own errors alone', () => {
    const conflict = new AppError('conflict', 'taken');
    expect(asUnavailable(conflict)).toBe(conflict);
    expect(isUnavailable(conflict)).toBe(false);
  });
});

describe('the connection gate', () => {
  afterEach(() => {
    jest.useRealTimers();
  });

  const settled = async (promise: Promise<unknown>) => {
    let state = 'pending';
    promise.then(
      () => (state = 'admitted'),
      (error: unknown) => (state = `refused: ${(error as AppError).code}`),
    );
    await Promise.resolve();
    await Promise.resolve();
    return state;
  };

  it('admits `size` holders, queues up to `maxWaiting` more in order, and refuses the next at once', async () => {
    const gate = new ConnectionGate({ size: 2, acquireTimeoutMs: 1_000, maxWaiting: 1 });
    await gate.enter();
    await gate.enter();
    const waiting = gate.enter();
    const shed = gate.enter();
    expect(await settled(shed)).toBe('refused: unavailable');
    expect(await settled(waiting)).toBe('pending');
    expect(gate.counts).toEqual({ held: 2, waiting: 1 });
    gate.leave();
    expect(await settled(waiting)).toBe('admitted');
    expect(gate.counts).toEqual({ held: 2, waiting: 0 });
    gate.leave();
    gate.leave();
    expect(gate.counts).toEqual({ held: 0, waiting: 0 });
  });

  it('refuses a waiter once the acquire timeout passes, and forgets it', async () => {
    jest.useFakeTimers();
    const gate = new ConnectionGate({ size: 1, acquireTimeoutMs: 500, maxWaiting: 5 });
    await gate.enter();
    const waiting = gate.enter();
    const outcome = settled(waiting);
    jest.advanceTimersByTime(499);
    expect(await outcome).toBe('pending');
    jest.advanceTimersByTime(1);
    await expect(waiting).rejects.toMatchObject({ code: 'unavailable', retryAfter: RETRY_AFTER_SECONDS });
    expect(gate.counts).toEqual({ held: 1, waiting: 0 });
    gate.leave();
    expect(gate.counts).toEqual({ held: 0, waiting: 0 });
  });

  it('withinMs answers unavailable when the work does not settle in time, and the work’s late failure goes unheard', async () => {
    jest.useFakeTimers();
    let fail: (error: Error) => void = () => {};
    const work = new Promise<never>((_resolve, reject) => (fail = reject));
    const bounded = withinMs(work, 250);
    jest.advanceTimersByTime(250);
    await expect(bounded).rejects.toMatchObject({ code: 'unavailable' });
    fail(new Error('late'));
    await expect(withinMs(Promise.resolve(7), 250)).resolves.toBe(7);
  });
});
