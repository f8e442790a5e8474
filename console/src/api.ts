import { createConsoleClient, type ConsolePaths } from '@compliance-conductor/client';

type JsonBody<R> = R extends { content: { 'application/json': infer Body } } ? Body : never;

export type Session = JsonBody<ConsolePaths['/session']['get']['responses'][200]>;
export type Access = Session['access'];
export type Invitation = JsonBody<ConsolePaths['/invitations/{token}']['get']['responses'][200]>;
export type ApiClientPage = JsonBody<ConsolePaths['/api-clients']['get']['responses'][200]>;
export type ApiClient = ApiClientPage['items'][number];
export type ApiClientSecret = JsonBody<ConsolePaths['/api-clients/{client_id}/secret']['post']['responses'][201]>;
export type ListQuery = Required<NonNullable<ConsolePaths['/api-clients']['get']['parameters']['query']>>;
export type OrderBy = ListQuery['order_by'];
export type OrderDirection = ListQuery['order_direction'];
export type PageSize = ListQuery['max_items'];

export const PAGE_SIZES: readonly PageSize[] = [10, 20, 50, 100];

/** A failed call, carrying the API's own error body so the user sees its message, not a generic one. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

const client = createConsoleClient({ baseUrl: window.location.origin });

// The CSRF token lives only in memory: after a page load getSession hands it out again, so it is never written to
// storage where another script could read it later.
let csrfToken: string | null = null;

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

client.use({
  onRequest({ request }) {
    if (csrfToken !== null && !SAFE_METHODS.has(request.method)) request.headers.set('X-CSRF-Token', csrfToken);
    return request;
  },
});

interface Outcome<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

function isErrorBody(value: unknown): value is { type: string; message: string } {
  return typeof value === 'object' && value !== null && typeof (value as { message?: unknown }).message === 'string' && typeof (value as { type?: unknown }).type === 'string';
}

/** Unwraps an openapi-fetch result: the body on success, an ApiError with the server's message otherwise. */
async function unwrap<T>(call: Promise<Outcome<T>>): Promise<T> {
  let outcome: Outcome<T>;
  try {
    outcome = await call;
  } catch (cause) {
    // fetch rejects only when no answer arrived at all (server down, network gone).
    throw new ApiError(0, 'NetworkError', `Cannot reach the server (${cause instanceof Error ? cause.message : String(cause)})`);
  }
  const { data, error, response } = outcome;
  if (response.ok) return data as T;
  if (isErrorBody(error)) throw new ApiError(response.status, error.type, error.message);
  throw new ApiError(response.status, 'HttpError', `The server answered ${response.status} ${response.statusText}`.trim());
}

export async function getSession(): Promise<Session> {
  const session = await unwrap(client.GET('/session'));
  csrfToken = session.csrf_token;
  return session;
}

export async function signIn(email: string, password: string): Promise<Session> {
  const session = await unwrap(client.POST('/session', { body: { email, password } }));
  csrfToken = session.csrf_token;
  return session;
}

export async function signOut(): Promise<void> {
  try {
    await unwrap(client.DELETE('/session'));
  } finally {
    csrfToken = null;
  }
}

/** Forgets the token when the server reports the session gone, so no stale token is sent later. */
export function forgetSession(): void {
  csrfToken = null;
}

export const listApiClients = (query: ListQuery) => unwrap(client.GET('/api-clients', { params: { query } }));

/** Creates the client with its first secret in the same call, so the one answer that carries the secret is this one. */
export const createApiClient = (name: string) => unwrap(client.POST('/api-clients', { body: { name, with_secret: true } }));

const byId = (clientId: string) => ({ params: { path: { client_id: clientId } } });

export const getApiClient = (clientId: string) => unwrap(client.GET('/api-clients/{client_id}', byId(clientId)));

export const generateApiClientSecret = (clientId: string) => unwrap(client.POST('/api-clients/{client_id}/secret', byId(clientId)));

export const revokeApiClientSecret = (clientId: string) => unwrap(client.DELETE('/api-clients/{client_id}/secret', byId(clientId)));

export const deleteApiClient = (clientId: string) => unwrap(client.DELETE('/api-clients/{client_id}', byId(clientId)));

const byToken = (token: string) => ({ params: { path: { token } } });

/** What the invitation of an emailed link is for; 404 or 410 (with the server's reason) when it cannot be used. */
export const getInvitation = (token: string) => unwrap(client.GET('/invitations/{token}', byToken(token)));

/** Accepts the invitation with the chosen password: the answer is the new user's session, as a sign-in's. */
export async function acceptInvitation(token: string, password: string): Promise<Session> {
  const session = await unwrap(client.POST('/invitations/{token}', { ...byToken(token), body: { password } }));
  csrfToken = session.csrf_token;
  return session;
}
