import compression from 'compression';
import type { Request, RequestHandler, Response } from 'express';

/**
 * Answers of 1 KB and more are compressed (brotli or gzip, as the client's Accept-Encoding prefers) when the client
 * asks for it: a page of 1 000 results shrinks about tenfold on the wire, a static reference page from megabytes to
 * hundreds of kilobytes. The `compression` middleware decides by the answer's media type (JSON, YAML, HTML, not
 * archives already compressed) once the headers are written; a client that sends no Accept-Encoding (Python's
 * urllib, curl without --compressed, most load generators) never enters it, and gets what it always got.
 */
export const COMPRESS_FROM_BYTES = 1024;

/**
 * A long-poll's answer is held until the dry-run ends and is small: compressing it saves nothing, and the wait it
 * answers must not depend on a compressor's buffering.
 */
const isLongPoll = (req: Request): boolean => req.openapi?.schema.operationId === 'getDryRun' && req.query.timeout !== undefined;

/** YAML (the specs at /v0/swagger) is text, though the media type database does not mark it compressible. */
const YAML = /^(application|text)\/(x-)?yaml\b/;

/**
 * Archives (a validation library, the rbac archive) go out exactly as they were uploaded, gzipped or not: a gzipped
 * tar gains nothing from a second compression, and the media type database marks `application/x-tar` compressible.
 */
const ARCHIVE = /^application\/(x-tar|gzip|x-gzip|zip|octet-stream)\b/;

/** Whether an answer the client may have compressed is: by its media type, never an archive's or a long-poll's. */
export const compressible = (req: Request, res: Response): boolean => {
  const type = String(res.getHeader('Content-Type') ?? '');
  return !isLongPoll(req) && !ARCHIVE.test(type) && (compression.filter(req, res) || YAML.test(type));
};

export function compressWhenAsked(): RequestHandler {
  const compress = compression({ threshold: COMPRESS_FROM_BYTES, filter: compressible });
  return (req, res, next) => {
    if (req.headers['accept-encoding'] === undefined) return next();
    compress(req, res, next);
  };
}
