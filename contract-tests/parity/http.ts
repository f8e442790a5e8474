import { urlPath, type ExampleRequest } from './examples.js';

/** An answer, read in full. */
export interface Answer {
  status: number;
  /** The media type without parameters (`application/json`), or undefined when the answer has no Content-Type. */
  mediaType: string | undefined;
  headers: Headers;
  text: string;
  /** The parsed body when the media type is JSON and the body parses. */
  json?: unknown;
}

export const mediaTypeOf = (contentType: string | null): string | undefined =>
  contentType ? contentType.split(';')[0]!.trim().toLowerCase() : undefined;

const isJson = (mediaType: string | undefined) => mediaType === 'application/json' || Boolean(mediaType?.endsWith('+json'));

/** Sends an example request to `base` (scheme, host and port) with the given headers; never throws on a status. */
export async function send(base: string, request: ExampleRequest, headers: Record<string, string>): Promise<Answer> {
  const body = request.archive ?? (request.json === undefined ? undefined : JSON.stringify(request.json));
  const contentType = request.archive ? 'application/x-tar' : request.json === undefined ? undefined : 'application/json';
  const res = await fetch(`${base}${urlPath(request)}`, {
    method: request.method,
    headers: { ...headers, ...(contentType && { 'content-type': contentType }) },
    body,
    signal: AbortSignal.timeout(60_000),
  });
  const text = await res.text();
  const mediaType = mediaTypeOf(res.headers.get('content-type'));
  let json: unknown;
  if (isJson(mediaType) && text !== '') {
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
  }
  return { status: res.status, mediaType, headers: res.headers, text, json };
}

export const basic = (user: string, secret: string): string => `Basic ${Buffer.from(`${user}:${secret}`).toString('base64')}`;
