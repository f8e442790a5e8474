import type { AddressInfo } from 'node:net';
import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import { describe, expect, it } from '@jest/globals';
import { inOneLayer } from './app.js';

/** Handlers in one layer behave as Express runs them in separate layers: the same order, the same error path. */
async function answer(handlers: RequestHandler[]): Promise<{ status: number; body: unknown }> {
  const app = express();
  const renderError: ErrorRequestHandler = (error: Error, _req, res, _next) => {
    res.status(500).json({ error: error.message });
  };
  app.use('/v0', inOneLayer(handlers), renderError);
  app.use((_req, res) => {
    res.status(404).json({ error: 'after the layer' });
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  try {
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v0/x`);
    return { status: res.status, body: await res.json() };
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

describe('handlers in one layer', () => {
  it('run in order, each after the previous one calls next, synchronously or later', async () => {
    const seen: string[] = [];
    const result = await answer([
      (_req, _res, next) => {
        seen.push('a');
        next();
      },
      async (_req, _res, next) => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        seen.push('b');
        next();
      },
      (req, res) => {
        seen.push('c');
        res.json({ baseUrl: req.baseUrl, path: req.path });
      },
    ]);
    expect(seen).toEqual(['a', 'b', 'c']);
    expect(result).toEqual({ status: 200, body: { baseUrl: '/v0', path: '/x' } });
  });

  it('go on after next(null), as Express does (the cors middleware calls it for a request without an Origin)', async () => {
    const result = await answer([(_req, _res, next) => next(null as never), (_req, res) => void res.json({ reached: true })]);
    expect(result).toEqual({ status: 200, body: { reached: true } });
  });

  it('go on past the layer when the last one calls next', async () => {
    expect(await answer([(_req, _res, next) => next()])).toEqual({ status: 404, body: { error: 'after the layer' } });
  });

  it.each([
    ['next(error)', ((_req, _res, next) => next(new Error('passed on'))) as RequestHandler, 'passed on'],
    ['a throw', (() => {
      throw new Error('thrown');
    }) as RequestHandler, 'thrown'],
    ['a rejected promise', (async () => {
      throw new Error('rejected');
    }) as RequestHandler, 'rejected'],
  ])('skip the rest and reach the error handler on %s', async (_how, failing, message) => {
    let reached = false;
    const result = await answer([
      failing,
      () => {
        reached = true;
      },
    ]);
    expect(reached).toBe(false);
    expect(result).toEqual({ status: 500, body: { error: message } });
  });
});
