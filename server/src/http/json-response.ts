import express, { type Express, type Response } from 'express';
import { deepFreeze } from '../domain/freeze.js';

/*
 * Express's res.json answers through res.send, which looks up four settings, sets the content type through a MIME
 * table lookup, copies a body of 1 000 characters or more into a Buffer (for an ETag this server never sends) and so
 * writes headers and body in two pieces. For the answers this server gives (a JSON body, no ETag, no conditional
 * request, no HEAD) the same bytes are written directly: the same headers in the same order, with the body as text,
 * which Node sends together with the headers in one write. Everything else is left to Express.
 */

/**
 * From this length on, the text is encoded once into a Buffer that is then written as it is. Written as text, a
 * body is measured for Content-Length, measured again by Node and then encoded: three passes over it, which for a
 * page of 50 environments (62 KB) took ~90 µs more than one. Shorter bodies stay text, which Node sends in one
 * piece with the headers.
 */
const ENCODE_ONCE_FROM = 4096;

/**
 * The JSON text of values that never change, by identity: a list answer whose items are all such values writes
 * their text again instead of serializing each anew (`keepJson`). Weak, so a value's text goes when the value does.
 */
const keptJson = new WeakMap<object, string>();

/**
 * Marks `value` as never changing from now on (it is frozen, deeply: a change would otherwise go unseen by answers
 * that write its kept text), so that answers listing it keep its JSON text. Answers the value.
 */
export function keepJson<T extends object>(value: T): T {
  if (!keptJson.has(value)) keptJson.set(deepFreeze(value), JSON.stringify(value));
  return value;
}

const isKeptList = (value: unknown): value is object[] =>
  Array.isArray(value) && value.length > 0 && value.every((item) => typeof item === 'object' && item !== null && keptJson.has(item));

/** The bytes of a list of kept values as last written, by its first value: pages are asked for again and again. */
const keptLists = new WeakMap<object, { items: readonly object[]; bytes: Buffer }>();

function keptListBytes(items: readonly object[]): Buffer {
  const kept = keptLists.get(items[0]!);
  if (kept?.items.length === items.length && kept.items.every((item, i) => item === items[i])) return kept.bytes;
  const bytes = Buffer.from(`[${items.map((item) => keptJson.get(item)!).join(',')}]`, 'utf8');
  keptLists.set(items[0]!, { items: [...items], bytes });
  return bytes;
}

/**
 * An answer's body given as the bytes of its JSON text, of a value of type `T`: for the largest answers, which a
 * writer that knows their shape and repeats what repeats in them writes several times faster than JSON.stringify
 * writes the same value built as objects. The dispatcher hands res.json `jsonTextValue(text, …)`.
 */
export class JsonText<T> {
  /** Only for the compiler: the type of the value these bytes are the JSON text of. */
  declare readonly of?: T;

  constructor(readonly bytes: Buffer) {}
}

/** The bytes to write for the values `jsonTextValue` handed out. */
const writtenAs = new WeakMap<object, Buffer>();

/**
 * What res.json is given for a body given as JSON text: with `parse`, the value the text parses to, so that the
 * response validator judges exactly what is sent; otherwise an empty stand-in. Either way the text's own bytes are
 * written.
 */
export function jsonTextValue(text: JsonText<unknown>, parse: boolean): object {
  const value = parse ? (JSON.parse(text.bytes.toString('utf8')) as object) : {};
  writtenAs.set(value, text.bytes);
  return value;
}

/** Whether `value` is what `jsonTextValue` handed out, to be written as a JSON text. */
export const isJsonTextValue = (value: unknown): boolean => typeof value === 'object' && value !== null && writtenAs.has(value);

/**
 * What JSON.stringify(body) writes, byte for byte: the kept text of a kept value, as text, or, when the body lists
 * kept values (see keepJson), as
 * bytes with those lists written from what was kept. A page of 50 environments took ~120 µs to serialize item by
 * item and ~35 µs more to encode; the same page again takes the copy of its bytes.
 */
export function jsonOf(body: unknown): string | Buffer | undefined {
  if (typeof body === 'object' && body !== null) {
    const kept = keptJson.get(body) ?? writtenAs.get(body);
    if (kept !== undefined) return kept;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body) || 'toJSON' in body) return JSON.stringify(body);
  // Most answers list nothing kept: a list's check stops at its first item that is not.
  if (!Object.values(body).some(isKeptList)) return JSON.stringify(body);
  const parts: Buffer[] = [];
  let text = '{';
  let first = true;
  for (const [key, value] of Object.entries(body)) {
    const kept = isKeptList(value);
    const json = kept ? '' : (JSON.stringify(value) as string | undefined);
    // Left out as JSON.stringify leaves them out: undefined, functions and symbols.
    if (json === undefined) continue;
    text += `${first ? '' : ','}${JSON.stringify(key)}:${json}`;
    first = false;
    if (kept) {
      parts.push(Buffer.from(text, 'utf8'), keptListBytes(value));
      text = '';
    }
  }
  parts.push(Buffer.from(`${text}}`, 'utf8'));
  return Buffer.concat(parts);
}

/** Where the body may be written directly: what Express would do comes down to the same two headers and the text. */
function plainAnswer(res: Response): boolean {
  const { req } = res;
  const settings = res.app.settings as Record<string, unknown>;
  const status = res.statusCode;
  return (
    !res.headersSent &&
    req.method !== 'HEAD' &&
    status !== 204 &&
    status !== 205 &&
    status !== 304 &&
    req.headers['if-none-match'] === undefined &&
    req.headers['if-modified-since'] === undefined &&
    !res.hasHeader('content-type') &&
    !res.hasHeader('transfer-encoding') &&
    settings['etag fn'] === undefined &&
    settings['json replacer'] === undefined &&
    settings['json spaces'] === undefined &&
    !settings['json escape']
  );
}

/**
 * Makes every `res.json` of `app` write plain answers directly. The validator's response validation wraps
 * `res.json` per request, so with it on, an answer is validated first and then written here.
 */
export function writeJsonDirectly(app: Express): void {
  const viaExpress = express.response.json;
  app.response.json = function json(this: Response, body: unknown): Response {
    if (!plainAnswer(this)) {
      const bytes = typeof body === 'object' && body !== null ? writtenAs.get(body) : undefined;
      if (bytes === undefined) return viaExpress.call(this, body);
      // What res.json would do with the text: the JSON media type, then everything else as Express does it.
      if (!this.hasHeader('content-type')) this.setHeader('Content-Type', 'application/json; charset=utf-8');
      return this.send(bytes);
    }
    const json = jsonOf(body);
    if (json === undefined) return viaExpress.call(this, body);
    this.setHeader('Content-Type', 'application/json; charset=utf-8');
    if (typeof json !== 'string') {
      this.setHeader('Content-Length', String(json.length));
      this.end(json);
    } else if (json.length < ENCODE_ONCE_FROM) {
      this.setHeader('Content-Length', String(Buffer.byteLength(json)));
      this.end(json);
    } else {
      const bytes = Buffer.from(json, 'utf8');
      this.setHeader('Content-Length', String(bytes.length));
      this.end(bytes);
    }
    return this;
  };
}
