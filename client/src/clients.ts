import createClient, { type Client, type ClientOptions, type Middleware } from 'openapi-fetch';
import type { paths as CompliancePaths } from './generated/compliance.js';
import type { paths as ConductorPaths } from './generated/conductor.js';
import type { paths as ConsolePaths } from './generated/console.js';

export type { CompliancePaths, ConductorPaths, ConsolePaths };

/** A typed client of the compliance API: `GET`, `POST`, `PUT`, `PATCH`, `DELETE` on the paths of its spec. */
export type ComplianceClient = Client<CompliancePaths>;
/** A typed client of the conductor API. */
export type ConductorClient = Client<ConductorPaths>;
/** A typed client of the console API. */
export type ConsoleClient = Client<ConsolePaths>;

/** Base paths of the three APIs on a server. */
export const BASE_PATHS = { compliance: '/v0', conductor: '/api/v0', console: '/console/api' } as const;

export interface BasicCredentials {
  /** Compliance API: the API client's id; conductor API: an rbac user name or `root`. */
  user: string;
  /** The secret that goes with it. */
  secret: string;
}

export interface ApiClientOptions extends Omit<ClientOptions, 'baseUrl'> {
  /**
   * Where the server runs, e.g. `https://compliance.example.com` (each client adds its API's base path). For the
   * console client in a browser, `window.location.origin` (or `''` for the page's own origin).
   */
  baseUrl: string;
}

export interface BasicAuthClientOptions extends ApiClientOptions {
  auth: BasicCredentials;
}

export interface ConsoleClientOptions extends ApiClientOptions {
  /**
   * The session's CSRF token (`csrf_token` of `GET /session` or `POST /session`), sent as `X-CSRF-Token` on every
   * state-changing call. A function is asked on each call, so a token learnt after signing in is picked up.
   */
  csrfToken?: string | (() => string | null | undefined);
}

/** `"GET /environments/{environment_id}"` for each response a client of this package received. */
const operations = new WeakMap<Response, string>();

/** The operation a response answered, as `METHOD /path/{template}`, when a client of this package made the call. */
export const operationOf = (response: Response): string | undefined => operations.get(response);

const recordOperation: Middleware = {
  onResponse({ request, schemaPath, response }) {
    operations.set(response, `${request.method} ${schemaPath}`);
    return undefined;
  },
};

export const basicAuthorization = ({ user, secret }: BasicCredentials): string => {
  // btoa takes Latin-1 only; encode as UTF-8 first so any user name or secret works in browsers and Node alike.
  const bytes = new TextEncoder().encode(`${user}:${secret}`);
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return `Basic ${btoa(binary)}`;
};

const joinUrl = (baseUrl: string, basePath: string) => `${baseUrl.replace(/\/+$/, '')}${basePath}`;

/** The caller's headers as a record (they may come as a `Headers` object or as pairs), so one more can be added. */
function headerRecord(headers: ClientOptions['headers']): Record<string, unknown> {
  if (!(headers instanceof Headers) && !Array.isArray(headers)) return { ...headers };
  const record: Record<string, string> = {};
  new Headers(headers).forEach((value, name) => {
    record[name] = value;
  });
  return record;
}

function basicAuthClient<Paths extends {}>(basePath: string, options: BasicAuthClientOptions): Client<Paths> {
  const { auth, baseUrl, headers, ...rest } = options;
  const client = createClient<Paths>({
    ...rest,
    baseUrl: joinUrl(baseUrl, basePath),
    headers: { ...headerRecord(headers), Authorization: basicAuthorization(auth) } as ClientOptions['headers'],
  });
  client.use(recordOperation);
  return client;
}

/**
 * `GET /swagger` asks for the document as JSON unless the call names another `Accept`, so the client's JSON parsing
 * gives the document as an object; `{ parseAs: 'text', headers: { Accept: 'application/yaml' } }` gives the YAML.
 */
const specDocumentAsJson: Middleware = {
  onRequest({ request, schemaPath }) {
    if (schemaPath === '/swagger' && !request.headers.has('Accept')) request.headers.set('Accept', 'application/json');
    return request;
  },
};

/** A typed client of the compliance API (`/v0`), authenticated with an API client's id and secret. */
export function createComplianceClient(options: BasicAuthClientOptions): ComplianceClient {
  const client = basicAuthClient<CompliancePaths>(BASE_PATHS.compliance, options);
  client.use(specDocumentAsJson);
  return client;
}

/** A typed client of the conductor API (`/api/v0`), authenticated as an rbac user (or `root`). */
export function createConductorClient(options: BasicAuthClientOptions): ConductorClient {
  const client = basicAuthClient<ConductorPaths>(BASE_PATHS.conductor, options);
  client.use(specDocumentAsJson);
  return client;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * A typed client of the console API (`/console/api`). The browser's session cookie authenticates it (credentials
 * `same-origin`); state-changing calls carry `X-CSRF-Token` when a token is given.
 */
export function createConsoleClient(options: ConsoleClientOptions): ConsoleClient {
  const { baseUrl, csrfToken, ...rest } = options;
  const client = createClient<ConsolePaths>({ credentials: 'same-origin', ...rest, baseUrl: joinUrl(baseUrl, BASE_PATHS.console) });
  client.use(recordOperation);
  if (csrfToken !== undefined) {
    const tokenNow = typeof csrfToken === 'function' ? csrfToken : () => csrfToken;
    client.use({
      onRequest({ request }) {
        const token = tokenNow();
        if (token && !SAFE_METHODS.has(request.method)) request.headers.set('X-CSRF-Token', token);
        return request;
      },
    });
  }
  return client;
}
