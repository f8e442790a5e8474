import type { Client, MaybeOptionalInit } from 'openapi-fetch';
import { operationOf } from './clients.js';
import type { components as ComplianceComponents } from './generated/compliance.js';
import type { components as ConductorComponents } from './generated/conductor.js';
import type { components as ConsoleComponents } from './generated/console.js';

export type HttpMethod = 'get' | 'put' | 'post' | 'delete' | 'options' | 'head' | 'patch' | 'trace';

/** The body type of a response object of the generated types: its JSON schema, or `undefined` when it has none. */
export type BodyOf<Response> = Response extends { content: infer Content }
  ? Content extends { 'application/json': infer Body }
    ? Body
    : Content[keyof Content]
  : undefined;

type ResponsesOf<Operation> = Operation extends { responses: infer Responses } ? Responses : never;
type IsSuccessStatus<Status extends number> = `${Status}` extends `2${string}` ? true : false;

/** The successful answers an operation documents: `{ ok: true; status: 200; data: <its body> } | ...`. */
export type SuccessResult<Operation> = {
  [Status in keyof ResponsesOf<Operation>]: Status extends number
    ? IsSuccessStatus<Status> extends true
      ? { ok: true; status: Status; data: BodyOf<ResponsesOf<Operation>[Status]>; error?: never; response: Response }
      : never
    : never;
}[keyof ResponsesOf<Operation>];

/** The error answers an operation documents: `{ ok: false; status: 404; error: NotFoundError } | ...`. */
export type ErrorResult<Operation> = {
  [Status in keyof ResponsesOf<Operation>]: Status extends number
    ? IsSuccessStatus<Status> extends true
      ? never
      : { ok: false; status: Status; error: BodyOf<ResponsesOf<Operation>[Status]>; data?: never; response: Response }
    : never;
}[keyof ResponsesOf<Operation>];

/** Every answer an operation documents, discriminated on `ok` and `status`. */
export type ApiResult<Operation> = SuccessResult<Operation> | ErrorResult<Operation>;

/** The error statuses an operation documents, each with the API's error body for it. */
export type OperationError<Operation> = ErrorResult<Operation> extends infer Result
  ? Result extends { status: infer Status; error: infer Body }
    ? { status: Status; body: Body }
    : never
  : never;

/** The operation object of the generated types for a path and method, e.g. `Operation<CompliancePaths, '/scans', 'post'>`. */
export type Operation<Paths, Path extends keyof Paths, Method extends HttpMethod> = Paths[Path] extends Record<Method, infer Op> ? Op : never;

type JsonBodies<Responses> = { [Name in keyof Responses]: BodyOf<Responses[Name]> }[keyof Responses];

/** Every error body of the compliance API (`{ type, code, message }`). */
export type ComplianceErrorBody = JsonBodies<ComplianceComponents['responses']>;
/** The conductor API's error body (`{ code, message, errors }`). */
export type ConductorErrorBody = ConductorComponents['schemas']['Error'];
/** Every error body of the console API. */
export type ConsoleErrorBody = JsonBodies<ConsoleComponents['responses']>;
/** The error body of any of the three APIs; text when a proxy in between answered with something else. */
export type ApiErrorBody = ComplianceErrorBody | ConductorErrorBody | ConsoleErrorBody | string | undefined;

const describe = (body: unknown): string | undefined => {
  if (typeof body === 'string') return body.trim().slice(0, 200) || undefined;
  if (typeof body === 'object' && body !== null && typeof (body as { message?: unknown }).message === 'string') {
    const { message, errors } = body as { message: string; errors?: Array<{ message?: unknown; location?: unknown }> };
    const details = Array.isArray(errors)
      ? errors.map((detail) => [detail.location, detail.message].filter((part) => typeof part === 'string' && part !== '').join(': ')).filter(Boolean)
      : [];
    return details.length > 0 ? `${message} (${details.join('; ')})` : message;
  }
  return undefined;
};

/**
 * An answer that was not 2xx, thrown by `unwrap` and by the helpers built on it. Not generic: `error instanceof
 * ApiError` then gives `body` the type of every error body the APIs document (a generic class would narrow to
 * `ApiError<any>`); `results(client)` gives each status its own body type.
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  /** The HTTP status. */
  readonly status: number;
  /** The API's error body (parsed JSON; text when the answer was not JSON). */
  readonly body: ApiErrorBody;
  readonly response: Response;
  /** The operation that failed, e.g. `GET /environments/{environment_id}`. */
  readonly operation: string;

  constructor(init: { status: number; body: ApiErrorBody; response: Response; operation: string }) {
    const detail = describe(init.body);
    super(`${init.operation} answered ${init.status}${detail ? `: ${detail}` : ` ${init.response.statusText}`.trimEnd()}`);
    this.status = init.status;
    this.body = init.body;
    this.response = init.response;
    this.operation = init.operation;
  }
}

/** What an openapi-fetch call resolves to. */
export interface FetchOutcome<Data, Error> {
  data?: Data;
  error?: Error;
  response: Response;
}

const describeOperation = (response: Response, known?: string): string => {
  if (known) return known;
  const recorded = operationOf(response);
  if (recorded) return recorded;
  try {
    return new URL(response.url).pathname;
  } catch {
    return 'request';
  }
};

/**
 * The data of a successful call; throws `ApiError` (with the API's error body) when the status is not 2xx.
 * A 2xx answer without a body resolves to `undefined`.
 */
export async function unwrap<Data, Error>(pending: Promise<FetchOutcome<Data, Error>>, operation?: string): Promise<Data> {
  const { data, error, response } = await pending;
  if (response.ok) return data as Data;
  throw new ApiError({ status: response.status, body: error as ApiErrorBody, response, operation: describeOperation(response, operation) });
}

// The same shapes as openapi-fetch's own method types, so arguments are checked exactly as `client.GET` checks them.
type RequiredKeysOfHelper<T> = { [K in keyof T]: {} extends Pick<T, K> ? never : K }[keyof T];
type RequiredKeysOf<T> = RequiredKeysOfHelper<T> extends undefined ? never : RequiredKeysOfHelper<T>;
type InitParam<Init> = RequiredKeysOf<Init> extends never ? [(Init & { [key: string]: unknown })?] : [Init & { [key: string]: unknown }];
type PathsWithMethod<Paths, Method extends HttpMethod> = {
  [Path in keyof Paths]: Paths[Path] extends { [M in Method]: unknown } ? Path : never;
}[keyof Paths];

/** The paths, indexable by any path and method in the constraints below; only keys of `Paths` are ever used. */
type Indexable<Paths> = Paths & Record<string, Record<HttpMethod, {}>>;

type ResultMethod<Paths, Method extends HttpMethod> = <
  Path extends PathsWithMethod<Paths, Method>,
  Init extends MaybeOptionalInit<Indexable<Paths>[Path], Method>,
>(
  url: Path,
  ...init: InitParam<Init>
) => Promise<ApiResult<Indexable<Paths>[Path][Method]>>;

/** A client whose calls resolve to `ApiResult`s: documented statuses, each with its own body type. */
export interface ResultClient<Paths extends {}> {
  GET: ResultMethod<Paths, 'get'>;
  PUT: ResultMethod<Paths, 'put'>;
  POST: ResultMethod<Paths, 'post'>;
  PATCH: ResultMethod<Paths, 'patch'>;
  DELETE: ResultMethod<Paths, 'delete'>;
}

/**
 * The same client, with calls that resolve to a result discriminated on `ok` and `status` instead of
 * `{ data?, error? }`, so each error status comes with its own body type:
 *
 * ```ts
 * const result = await results(client).GET('/environments/{environment_id}', { params: { path: { environment_id } } });
 * if (result.ok) use(result.data);
 * else if (result.status === 404) console.log(result.error.message);
 * ```
 *
 * The types list the statuses the API documents (the server answers no others); a status outside them, e.g.
 * from a proxy in between, still arrives as `ok: false` with its body.
 */
export function results<Paths extends {}>(client: Client<Paths>): ResultClient<Paths> {
  const method =
    (name: 'GET' | 'PUT' | 'POST' | 'PATCH' | 'DELETE') =>
    async (url: string, init?: unknown): Promise<never> => {
      const call = client[name] as unknown as (url: string, init?: unknown) => Promise<FetchOutcome<unknown, unknown>>;
      const { data, error, response } = await call(url, init);
      const result = response.ok ? { ok: true, status: response.status, data, response } : { ok: false, status: response.status, error, response };
      return result as never;
    };
  return { GET: method('GET'), PUT: method('PUT'), POST: method('POST'), PATCH: method('PATCH'), DELETE: method('DELETE') } as ResultClient<Paths>;
}
