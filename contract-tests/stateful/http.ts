import type { ApiName } from '../../server/src/http/apis.js';
import { answerProblem } from '../property/checks.js';
import type { SpecOperation } from '../property/operations.js';
import { operationById } from './spec.js';

/** One answer, as JSON when it is JSON and as the exact bytes always (archives come back byte for byte). */
export interface Exchange {
  status: number;
  headers: Headers;
  body: any;
  bytes: Buffer;
  text: string;
}

export interface CallInput {
  /** Path parameters by name. */
  path?: Record<string, string>;
  query?: Record<string, string | number | boolean | undefined>;
  /** A Buffer is sent as an archive (`application/x-tar`), anything else as JSON. */
  body?: unknown;
  /** A URL path the server handed out (a `Location`), requested instead of the operation's own path. */
  url?: string;
}

/**
 * Calls operations by operationId on a running server, with each API's credentials. Every answer must be one the
 * spec allows (no 5xx, a declared status, the API's error body on a 4xx); it is then reported to `onAnswer`.
 */
export class StatefulClient {
  constructor(
    private readonly baseUrl: string,
    private readonly headersOf: (api: ApiName) => Record<string, string>,
    private readonly onAnswer: (api: ApiName, operationId: string, status: number) => void,
  ) {}

  /** The URL path of an operation with its parameters filled in (base path included). */
  urlOf(op: SpecOperation, input: CallInput = {}): string {
    const path = op.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
      const value = input.path?.[name];
      if (value === undefined) throw new Error(`${op.operationId}: no value for path parameter ${name}`);
      return encodeURIComponent(value);
    });
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(input.query ?? {})) if (value !== undefined) query.set(name, String(value));
    const search = query.toString();
    return `${op.basePath}${path}${search ? `?${search}` : ''}`;
  }

  async call(api: ApiName, operationId: string, input: CallInput = {}): Promise<Exchange> {
    const op = operationById(api, operationId);
    const url = input.url ?? this.urlOf(op, input);
    const headers: Record<string, string> = { ...this.headersOf(api) };
    let body: string | Buffer | undefined;
    if (Buffer.isBuffer(input.body)) {
      body = input.body;
      headers['content-type'] = 'application/x-tar';
    } else if (input.body !== undefined) {
      body = JSON.stringify(input.body);
      headers['content-type'] = 'application/json';
    }
    const res = await fetch(`${this.baseUrl}${url}`, { method: op.method, headers, body });
    const bytes = Buffer.from(await res.arrayBuffer());
    const text = bytes.toString('utf8');
    let parsed: unknown;
    if ((res.headers.get('content-type') ?? '').includes('json')) {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
    }
    const exchange: Exchange = { status: res.status, headers: res.headers, body: parsed, bytes, text };
    const problem = answerProblem(op, exchange);
    if (problem) throw new Error(`${op.method} ${url} (${operationId}): ${problem}`);
    this.onAnswer(api, operationId, res.status);
    return exchange;
  }
}
