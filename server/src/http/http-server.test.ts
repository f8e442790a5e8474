import type { AddressInfo } from 'node:net';
import express from 'express';
import { describe, it } from '@jest/globals';
import { bornWith, httpServerFor } from './http-server.js';
import { expect } from '../../test/expect.js';

describe('the HTTP server of an app', () => {
  it('makes requests and responses with the app’s prototypes before Express sees them, and Express works on them as ever', async () => {
    const app = express();
    app.set('query parser', 'simple');
    app.get('/echo/:name', (req, res) => {
      res.status(201).set('X-Seen', req.get('x-sent') ?? '').json({ name: req.params.name, query: req.query, path: req.path, app: req.app === app });
    });
    const server = httpServerFor(app);
    const born: boolean[] = [];
    // Runs before the app does: what Node made, before Express's Object.setPrototypeOf.
    server.prependListener('request', (req, res) => born.push(Object.getPrototypeOf(req) === app.request && Object.getPrototypeOf(res) === app.response));
    server.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      for (let i = 0; i < 3; i += 1) {
        const res = await fetch(`${base}/echo/n${i}?a=1&a=2&b=%20x`, { headers: { 'x-sent': `s${i}` } });
        expect(res.status).toBe(201);
        expect(res.headers.get('x-seen')).toBe(`s${i}`);
        expect(await res.json()).toEqual({ name: `n${i}`, query: { a: ['1', '2'], b: ' x' }, path: `/echo/n${i}`, app: true });
      }
      const missing = await fetch(`${base}/nowhere`);
      expect(missing.status).toBe(404);
      expect(born).toEqual([true, true, true, true]);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('refuses, when the server is made, a Node whose requests or responses are made by a class', () => {
    class Request {}
    expect(() => bornWith(Request as never, {})).toThrow(/Request is a class in Node/);
  });
});
