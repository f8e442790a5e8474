import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Express } from 'express';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { isJsonTextValue, JsonText, jsonOf, jsonTextValue, keepJson, writeJsonDirectly } from './json-response.js';
import { expect } from '../../test/expect.js';

/**
 * Written directly or by Express, an answer is the same: status, headers (names, values, order) and bytes. Two
 * apps with the same routes, one writing JSON directly, answer the same requests.
 */
const keptPage = {
  count: 3,
  items: [0, 1, 2].map((i) => keepJson({ id: `kept-${i}`, name: 'é ☃ "quoted"', tags: ['a', 'b'], nested: { n: i / 7, none: null } })),
  skipped: undefined,
  next_offset: 3,
};
const large = { items: Array.from({ length: 200 }, (_, i) => ({ id: `item-${i}`, name: 'é ☃ 𝄞 "quoted" \\ \u0001', n: i / 3 })) };

function app(direct: boolean): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  if (direct) writeJsonDirectly(app);
  app.all('/small', (_req, res) => void res.json({ ok: true, text: 'é' }));
  app.get('/large', (_req, res) => void res.status(201).json(large));
  app.get('/kept', (_req, res) => void res.json(keptPage));
  app.get('/typed', (_req, res) => void res.type('application/problem+json').json({ title: 'typed' }));
  app.get('/empty', (_req, res) => void res.status(204).json({ gone: true }));
  app.get('/undefined', (_req, res) => void res.json(undefined));
  app.get('/headers', (_req, res) => void res.set('Cache-Control', 'no-store').json([1, 'two', null]));
  // A body given as its JSON text, handed to res.json as the dispatcher hands it: the same answer as the value's.
  for (const parse of [false, true]) {
    app.get(`/text-${parse}`, (_req, res) => void res.json(direct ? jsonTextValue(new JsonText(Buffer.from(JSON.stringify(large))), parse) : large));
  }
  return app;
}

interface Answer {
  status: number | undefined;
  headers: string[];
  body: string;
}

function ask(port: number, method: string, path: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path, headers: { connection: 'close', ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        // Every header but the date, in the order sent.
        const sent = res.rawHeaders.flatMap((value, i) => (i % 2 === 0 ? [`${value}: ${res.rawHeaders[i + 1]}`] : [])).filter((h) => !/^date:/i.test(h));
        resolve({ status: res.statusCode, headers: sent, body: Buffer.concat(chunks).toString('latin1') });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

describe('JSON written directly', () => {
  const servers: Array<ReturnType<Express['listen']>> = [];
  let viaExpress = 0;
  let direct = 0;

  beforeAll(async () => {
    for (const useDirect of [false, true]) {
      const server = app(useDirect).listen(0, '127.0.0.1');
      await new Promise((resolve) => server.once('listening', resolve));
      servers.push(server);
    }
    viaExpress = (servers[0]!.address() as AddressInfo).port;
    direct = (servers[1]!.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  });

  it.each([
    ['GET', '/small', {}],
    ['POST', '/small', {}],
    ['HEAD', '/small', {}],
    ['GET', '/small', { 'if-none-match': '*' }],
    ['GET', '/small', { 'if-modified-since': new Date(0).toUTCString() }],
    ['GET', '/large', {}],
    ['GET', '/kept', {}],
    ['GET', '/typed', {}],
    ['GET', '/empty', {}],
    ['GET', '/undefined', {}],
    ['GET', '/headers', {}],
    ['GET', '/text-false', {}],
    ['GET', '/text-true', {}],
    ['GET', '/text-false', { 'if-none-match': '*' }],
    ['GET', '/text-false', { 'if-modified-since': new Date(0).toUTCString() }],
    ['GET', '/text-true', { 'if-modified-since': new Date(0).toUTCString() }],
  ] as const)('%s %s %j answers as Express does', async (method, path, headers) => {
    const [expected, actual] = await Promise.all([ask(viaExpress, method, path, headers), ask(direct, method, path, headers)]);
    expect(actual).toEqual(expected);
  });
});

describe('kept JSON', () => {
  const kept = (i: number) => keepJson({ id: `k${i}`, list: [i, String(i)], deep: { at: i, also: [{ x: 'é\u2028' }] } });

  it.each([
    ['a list of kept values among other members', { count: 2, items: [kept(1), kept(2)], more: { a: [1] }, gone: undefined, fn: () => 1, last: 'x' }],
    ['only a kept list', { items: [kept(3)] }],
    ['a kept list first and last', { items: [kept(4)], others: [kept(5), kept(6)] }],
    ['a list mixing kept and fresh values', { items: [kept(7), { id: 'fresh' }] }],
    ['an empty list', { items: [] }],
    ['nothing kept', { a: 1, b: [1, 2], c: null }],
    ['only members JSON leaves out', { gone: undefined }],
    ['an array', [kept(8), kept(9)]],
    ['a string', 'text'],
    ['undefined', undefined],
    ['an object with toJSON', { toJSON: () => ({ replaced: true }), items: [kept(10)] }],
    ['a kept value itself', kept(12)],
    ['a kept value that lists kept values', keepJson({ items: [kept(13), kept(14)], n: 1 })],
  ])('writes %s byte for byte as JSON.stringify does', (_name, body) => {
    const written = () => jsonOf(body)?.toString();
    expect(written()).toBe(JSON.stringify(body));
    // And again, now from what was kept.
    expect(written()).toBe(JSON.stringify(body));
  });

  it('writes a list again from its kept bytes only while it lists the same values', () => {
    const [a, b, c] = [kept(20), kept(21), kept(22)];
    for (const items of [[a, b], [a, b], [a, b, c], [a, c], [a], [a, c]]) {
      expect(jsonOf({ count: items.length, items })?.toString()).toBe(JSON.stringify({ count: items.length, items }));
    }
  });

  it('freezes what it keeps, all the way down, so a change cannot go unseen', () => {
    const value = kept(11);
    expect(Object.isFrozen(value) && Object.isFrozen(value.list) && Object.isFrozen(value.deep.also[0])).toBe(true);
    expect(() => (value.list as unknown[]).push(1)).toThrow(TypeError);
  });
});

describe('a body given as its JSON text', () => {
  const bytes = Buffer.from(JSON.stringify(large));

  it('is written as its own bytes, whether or not it is parsed', () => {
    for (const parse of [false, true]) {
      const value = jsonTextValue(new JsonText(bytes), parse);
      expect(isJsonTextValue(value)).toBe(true);
      expect(jsonOf(value)).toBe(bytes);
    }
  });

  it('is parsed for a response validator to judge what is sent', () => {
    expect(jsonTextValue(new JsonText(bytes), true)).toEqual(large);
    expect(jsonTextValue(new JsonText(bytes), false)).toEqual({});
    expect(isJsonTextValue(large)).toBe(false);
  });
});
