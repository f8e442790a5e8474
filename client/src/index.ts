import createClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { paths as CompliancePaths } from './generated/compliance.js';
import type { paths as ConductorPaths } from './generated/conductor.js';
import type { paths as ConsolePaths } from './generated/console.js';

export type { CompliancePaths, ConductorPaths, ConsolePaths };

export interface BasicCredentials {
  /** Compliance API: the API client id; conductor API: the user name. */
  user: string;
  /** The secret that goes with it. */
  secret: string;
}

export interface ApiClientOptions extends Omit<ClientOptions, 'baseUrl'> {
  /** Where the server runs, e.g. `http://127.0.0.1:3000`; each client adds its API's base path. */
  baseUrl: string;
}

const basicHeader = ({ user, secret }: BasicCredentials): string => {
  const text = `${user}:${secret}`;
  // btoa handles Latin-1 only; encode as UTF-8 first so any secret works in browsers and Node alike.
  const bytes = new TextEncoder().encode(text);
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return `Basic ${btoa(binary)}`;
};

const joinUrl = (baseUrl: string, basePath: string) => `${baseUrl.replace(/\/+$/, '')}${basePath}`;

function basicAuthClient<Paths extends {}>(basePath: string, options: ApiClientOptions & { auth: BasicCredentials }): Client<Paths> {
  const { auth, baseUrl, headers, ...rest } = options;
  return createClient<Paths>({
    ...rest,
    baseUrl: joinUrl(baseUrl, basePath),
    headers: { ...(headers as Record<string, string> | undefined), Authorization: basicHeader(auth) },
  });
}

/** A typed client of the compliance API (`/v0`), authenticated with an API client's id and secret. */
export const createComplianceClient = (options: ApiClientOptions & { auth: BasicCredentials }): Client<CompliancePaths> =>
  basicAuthClient<CompliancePaths>('/v0', options);

/** A typed client of the conductor API (`/api/v0`), authenticated as an rbac user (or `root`). */
export const createConductorClient = (options: ApiClientOptions & { auth: BasicCredentials }): Client<ConductorPaths> =>
  basicAuthClient<ConductorPaths>('/api/v0', options);

/** A typed client of the console API (`/console/api`); the browser's session cookie authenticates it. */
export function createConsoleClient(options: ApiClientOptions): Client<ConsolePaths> {
  const { baseUrl, ...rest } = options;
  return createClient<ConsolePaths>({ credentials: 'same-origin', ...rest, baseUrl: joinUrl(baseUrl, '/console/api') });
}
