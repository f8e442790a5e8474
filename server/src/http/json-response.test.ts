import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Express } from 'express';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { isJsonTextValue, JsonText, jsonOf, jsonTextValue, writeJsonDirectly } from './json-response.js';
import { expect } from '../../test/expect.js';

/**
 * Written directly or by Express, an answer is the same: status, headers (names, values, order) and bytes. Two
 * apps with the same routes, one writing JSON directly, answer the same requests.
 */
const page = {
  count: 3,
  items: [0, 1, 2].map((i) => ({ id: `item-${i}`, name: 'é ☃ "quoted"', tags: ['a', 'b'], nested: { n: i / 7, none: null } })),
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
  app.get('/page', (_req, res) => void res.json(page));
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
    ['GET', '/page', {}],
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

describe('JSON text', () => {
  it.each([
    ['an object with members JSON leaves out', { count: 2, items: [{ a: 1 }], gone: undefined, fn: () => 1, last: 'x' }],
    ['an array', [{ a: 1 }, null]],
    ['a string', 'text'],
    ['undefined', undefined],
    ['an object with toJSON', { toJSON: () => ({ replaced: true }) }],
  ])('of %s is what JSON.stringify writes', (_name, body) => {
    expect(jsonOf(body)?.toString()).toBe(JSON.stringify(body));
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
