import express, { type Express, type Response } from 'express';

/*
 * Express's res.json answers through res.send, which looks up four settings, sets the content type through a MIME
 * table lookup, copies a body of 1 000 characters or more into a Buffer (for an ETag Express never makes here: the
 * edge cache, edge-cache.ts, sets the ETags this server sends) and so writes headers and body in two pieces. For
 * the answers this server gives (a JSON body, no conditional request, no HEAD) the same bytes are written directly:
 * the same headers in the same order, with the body as text, which Node sends together with the headers in one
 * write. Everything else is left to Express.
 */

/** The media type of every JSON answer, as Express writes it. */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/**
 * From this length on, the text is encoded once into a Buffer that is then written as it is. Written as text, a
 * body is measured for Content-Length, measured again by Node and then encoded: three passes over it, which for a
 * page of 50 environments (62 KB) took ~90 µs more than one. Shorter bodies stay text, which Node sends in one
 * piece with the headers.
 */
const ENCODE_ONCE_FROM = 4096;

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

/** What JSON.stringify(body) writes: the text's own bytes for a body given as JSON text (`jsonTextValue`). */
export function jsonOf(body: unknown): string | Buffer | undefined {
  if (typeof body === 'object' && body !== null) {
    const bytes = writtenAs.get(body);
    if (bytes !== undefined) return bytes;
  }
  return JSON.stringify(body);
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
      if (!this.hasHeader('content-type')) this.setHeader('Content-Type', JSON_CONTENT_TYPE);
      return this.send(bytes);
    }
    const json = jsonOf(body);
    if (json === undefined) return viaExpress.call(this, body);
    this.setHeader('Content-Type', JSON_CONTENT_TYPE);
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
