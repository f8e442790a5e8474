import express, { type Express, type Response } from 'express';

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
    if (!plainAnswer(this)) return viaExpress.call(this, body);
    const text = JSON.stringify(body) as string | undefined;
    if (text === undefined) return viaExpress.call(this, body);
    this.setHeader('Content-Type', 'application/json; charset=utf-8');
    if (text.length < ENCODE_ONCE_FROM) {
      this.setHeader('Content-Length', String(Buffer.byteLength(text)));
      this.end(text);
    } else {
      const bytes = Buffer.from(text, 'utf8');
      this.setHeader('Content-Length', String(bytes.length));
      this.end(bytes);
    }
    return this;
  };
}
