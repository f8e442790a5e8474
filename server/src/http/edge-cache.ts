import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';
import { LRUCache } from 'lru-cache';
import type { ApiDocument } from './apis.js';
import { JSON_CONTENT_TYPE, JsonText, jsonTextValue } from './json-response.js';
import type { AnyHandler, AnyReply, HandlerRequest, ResponsesOf } from './registry.js';

/*
 * The server's one cache, at the HTTP edge: the bytes of the answers of the operations whose spec declares `304`
 * (the reads clients repeat most), by what they depend on, with the ETag that names them.
 *
 * The key of an answer is its operation, its path and query as sent, and the caller's view (for the compliance
 * API: the organization and the environments the caller's groups cover). Kept with it is the version the database
 * keeps of what the answer shows, read before anything else of the answer: while a request reads the same
 * version, the kept bytes are the answer. The database draws a new version at every write, whoever writes
 * (migration 0019's triggers), so what is kept is right across server processes sharing a database and after
 * writes from outside the server. Read before the answer is made, the version can only be older than what the
 * answer shows: an answer is never kept under a version newer than itself.
 *
 * The ETag is a weak entity tag, `W/"<digest>"`: a digest of the API's spec version, the key and the version, the
 * same in every process, so a tag one process answered is honoured by the others. `If-None-Match` naming it (or
 * `*`) is answered 304 with the ETag and no body; anything else is answered as without it. A miss makes the answer
 * as every other operation does (the operation's handler) and keeps it when it is a 200.
 *
 * Everything before the dispatcher — authentication, validation, the caller's access (authorization.ts) — has run
 * when the cache is consulted: a 304 or a kept answer never reaches a caller the operation would refuse, and a
 * caller whose groups restrict it never gets bytes kept for another view.
 */

/** Operations whose spec declares `304 Not Modified`: those the edge cache answers. */
export type Conditional<Ops> = { [K in keyof Ops]: 304 extends keyof ResponsesOf<Ops[K]> ? K : never }[keyof Ops];

/**
 * Reads the version the database keeps of what the operation's answer shows, before anything else of the answer
 * (one point read); undefined when there is nothing to version (an unknown id): the operation then answers as
 * it does without the cache.
 */
export type VersionReader<Op, Principal, Context> = (request: HandlerRequest<Op, Principal>, context: Context) => Promise<number | undefined>;

/** A version reader for every operation that declares 304: a missing one does not compile. */
export type VersionMap<Ops, Principal, Context> = { [K in Conditional<Ops>]: VersionReader<Ops[K], Principal, Context> };

/** What, of the caller, its answers depend on: the same string for every caller that sees the same answers. */
export type ViewOf<Principal> = (principal: Principal) => string;

/** How one API's answers are versioned, as its handler modules declare them. */
export interface AnswerVersions<Principal> {
  /** A VersionMap of the API's operations. */
  versions: object;
  view: ViewOf<Principal>;
}

type AnyReader = (request: HandlerRequest<unknown, unknown>, context: never) => Promise<number | undefined>;

/** An answer kept: its bytes as written, and what names them. */
interface KeptAnswer {
  /** The version read before the answer was made: the answer stays while the database keeps this version. */
  readonly version: number;
  /** The ETag, `W/"…"`. */
  readonly tag: string;
  /** The tag without `W/`: what an entity tag of If-None-Match is compared with (weak comparison, RFC 9110 §8.8.3.2). */
  readonly opaque: string;
  readonly contentType: string;
  readonly contentLength: string;
  readonly bytes: Buffer;
}

/**
 * Begins what a tag is the digest of: moved when answers change shape without a new spec version, so that no tag
 * of the old answers is honoured for the new ones.
 */
const TAG_FORMAT = 'edge-cache tag 1';
/** Characters of the digest in a tag: 132 bits of SHA-256, base64url. */
const TAG_DIGEST_CHARACTERS = 22;
/** Bytes counted for a kept answer besides its bytes and its key (the record, its strings, the cache's entry). */
const ENTRY_OVERHEAD_BYTES = 256;
/** How many bytes of answers are kept by default: 64 MiB, about 2 700 pages of 50 environments or 50 of the largest result pages. */
export const DEFAULT_EDGE_CACHE_BYTES = 64 * 1024 * 1024;

export interface EdgeCacheOptions {
  /** Bytes of answers kept at most: their bytes, keys and records. An answer larger than a quarter of it is not kept. */
  maxBytes?: number;
  /** Answers are validated against the spec (tests): a 304 and a kept 200 then go through `res.json`, which the validator wraps. */
  validating: boolean;
}

/** Separates the entity tags of If-None-Match: commas, and the spaces no entity tag holds. */
const BETWEEN_TAGS = /[\s,]+/;

/**
 * Whether If-None-Match names the answer: `*`, or one of its entity tags by weak comparison (RFC 9110 §13.1.2).
 * Read as Express's freshness check reads it, so that an answer written through Express (with response
 * validation on) is judged the same.
 */
function named(header: string | undefined, kept: KeptAnswer): boolean {
  if (header === undefined) return false;
  if (header === kept.tag) return true;
  const trimmed = header.trim();
  if (trimmed === '*') return true;
  for (const tag of trimmed.split(BETWEEN_TAGS)) {
    if ((tag.startsWith('W/') ? tag.slice(2) : tag) === kept.opaque) return true;
  }
  return false;
}

/** The answers of every API of one app, bounded by their size. */
export class EdgeCache {
  private readonly answers: LRUCache<string, KeptAnswer>;
  private readonly validating: boolean;

  constructor({ maxBytes = DEFAULT_EDGE_CACHE_BYTES, validating }: EdgeCacheOptions) {
    this.validating = validating;
    this.answers = new LRUCache<string, KeptAnswer>({
      maxSize: maxBytes,
      maxEntrySize: Math.floor(maxBytes / 4),
      sizeCalculation: (kept, key) => kept.bytes.length + key.length * 2 + ENTRY_OVERHEAD_BYTES,
    });
  }

  /**
   * Answers the request whose answer `key` names, at `version`: with the kept bytes when they were kept at this
   * version, else with what the handler answers, kept when it is a 200 in JSON. A request whose If-None-Match names
   * the answer is answered 304. Hands back what the handler answered when it is not kept (another status, headers
   * of its own), for the dispatcher to write as it writes every answer; undefined once the answer is written.
   */
  async answer(
    req: Request,
    res: Response,
    salt: string,
    key: string,
    version: number,
    handler: AnyHandler,
    request: HandlerRequest<unknown, unknown>,
    context: unknown,
  ): Promise<AnyReply | undefined> {
    let kept = this.answers.get(key);
    if (kept === undefined || kept.version !== version) {
      const reply = await handler(request, context as never);
      if (reply.status !== 200 || reply.headers !== undefined || (reply.mediaType !== undefined && reply.mediaType !== 'application/json')) return reply;
      kept = this.keep(salt, key, version, reply.body);
    }
    this.write(req, res, kept);
    return undefined;
  }

  /** How many answers are kept, and their size as counted against the bound. */
  get size(): { answers: number; bytes: number } {
    return { answers: this.answers.size, bytes: this.answers.calculatedSize };
  }

  private keep(salt: string, key: string, version: number, body: unknown): KeptAnswer {
    const bytes = body instanceof JsonText ? body.bytes : Buffer.from(JSON.stringify(body), 'utf8');
    const digest = createHash('sha256').update(`${salt}\n${key}\n${version}`).digest('base64url').slice(0, TAG_DIGEST_CHARACTERS);
    const opaque = `"${digest}"`;
    const kept: KeptAnswer = { version, tag: `W/${opaque}`, opaque, contentType: JSON_CONTENT_TYPE, contentLength: String(bytes.length), bytes };
    this.answers.set(key, kept);
    return kept;
  }

  private write(req: Request, res: Response, kept: KeptAnswer): void {
    res.setHeader('ETag', kept.tag);
    if (named(req.headers['if-none-match'], kept)) {
      res.statusCode = 304;
      // The validator judges that the operation declares a 304 without a body; Express then writes it.
      if (this.validating) res.json(undefined);
      else res.end();
      return;
    }
    res.statusCode = 200;
    if (this.validating) {
      // The validator judges what the bytes parse to; the bytes themselves are written.
      res.json(jsonTextValue(new JsonText(kept.bytes), true));
      return;
    }
    res.setHeader('Content-Type', kept.contentType);
    res.setHeader('Content-Length', kept.contentLength);
    res.end(kept.bytes);
  }
}

/** One API's answers through the edge cache: its operations' version readers, the caller's view, its tags' salt. */
export class ConditionalAnswers {
  private constructor(
    private readonly cache: EdgeCache,
    private readonly readers: ReadonlyMap<string, AnyReader>,
    private readonly view: ViewOf<never>,
    private readonly salt: string,
  ) {}

  /**
   * Binds the readers to the API's operations that declare 304, and refuses to go on when one has no reader, a
   * reader has no such operation, or such an operation fixes a header of its 200 (the cache writes its 200s with
   * their ETag and content headers only): the server then does not start.
   */
  static bind(api: ApiDocument, cache: EdgeCache, declared: AnswerVersions<never> | undefined): ConditionalAnswers {
    const readers = new Map(Object.entries(declared?.versions ?? {}) as Array<[string, AnyReader]>);
    const operations = api.operations.filter((operation) => operation.statuses.includes('304'));
    const conditional = new Set(operations.map((operation) => operation.operationId));
    const problems = [
      ...[...conditional].filter((operationId) => !readers.has(operationId)).map((operationId) => `${operationId} declares 304 but has no version reader`),
      ...[...readers.keys()].filter((operationId) => !conditional.has(operationId)).map((operationId) => `version reader ${operationId} matches no operation of the ${api.name} spec that declares 304`),
      ...operations
        .filter((operation) => operation.fixedResponseHeaders['200'] !== undefined)
        .map((operation) => `${operation.operationId} declares 304 and fixes headers of its 200, which the edge cache would not send`),
    ];
    if (problems.length > 0) throw new Error(`the ${api.name} API cannot start:\n  ${problems.join('\n  ')}`);
    const version = String((api.openapi.info as { version?: unknown } | undefined)?.version ?? '');
    return new ConditionalAnswers(cache, readers, declared?.view ?? (() => ''), `${TAG_FORMAT} ${api.name} ${version}`);
  }

  /** Whether the operation's answers go through the cache. */
  has(operationId: string): boolean {
    return this.readers.has(operationId);
  }

  /**
   * Answers a request of an operation that `has` through the cache (see EdgeCache.answer); without a version to
   * key by, hands back what the handler answers.
   */
  async answer(
    req: Request,
    res: Response,
    operationId: string,
    handler: AnyHandler,
    request: HandlerRequest<unknown, unknown>,
    context: unknown,
  ): Promise<AnyReply | undefined> {
    const version = await this.readers.get(operationId)!(request, context as never);
    if (version === undefined) return handler(request, context as never);
    const key = `${operationId} ${this.view(request.principal as never)} ${req.originalUrl}`;
    return this.cache.answer(req, res, this.salt, key, version, handler, request, context);
  }
}
