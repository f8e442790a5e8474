import type { AccessLevel } from '../../server/src/domain/access/grants.js';
import { loadApiDocument } from '../../server/src/http/apis.js';
import { readAccessDeclarations } from '../../server/src/http/compliance/access-declarations.js';
import { CONDUCTOR_ACCESS } from '../../server/src/http/conductor/authorization.js';
import { CSRF_REFUSED } from '../../server/src/http/errors.js';
import { filesTar } from '../../server/test/fixtures/archives.js';
import type { CapturedLog } from '../../server/test/captured-log.js';
import { basic, type TestServer } from '../../server/test/server.js';
import type { CoverageApi } from '../coverage.js';
import { FAULT_MARKER, type FaultInjector, type FaultKind } from './faults.js';
import { expect } from '../../server/test/expect.js';

/**
 * The pieces of the declared-status table: what one operation needs for a valid call, the scenarios that provoke
 * its other statuses, and the rules that derive the statuses every operation of an API answers alike (a tag still
 * current, an unknown query parameter, no credentials, a policy that denies, an archive over the limit, a fault).
 */

export interface StatusContext {
  server: TestServer;
  faults: FaultInjector;
  /** The conductor's archive size limit on the test server. */
  archiveLimitBytes: number;
  /** The test server's log, where the cause of a 500 goes. */
  log: CapturedLog;
}

/**
 * One HTTP call; `auth` as in TestServer.request (undefined: the current organization's API client), `from` the
 * local address it leaves from (undefined: 127.0.0.1).
 */
export interface Call {
  method: string;
  path: string;
  body?: unknown;
  auth?: string | null;
  headers?: Record<string, string>;
  from?: string;
}

export interface Answer {
  status: number;
  body: any;
  text: string;
  headers: Headers;
}

export const send = (ctx: StatusContext, call: Call): Promise<Answer> =>
  ctx.server.request(call.method, call.path, { body: call.body, auth: call.auth, headers: call.headers, ...(call.from !== undefined && { from: call.from }) });

/** A call that must succeed: set-up steps, so a failing one names itself. */
export async function must(ctx: StatusContext, call: Call): Promise<any> {
  const answer = await send(ctx, call);
  expect(answer.status, `set-up ${call.method} ${call.path}: ${answer.text}`).toBeLessThan(300);
  return answer.body;
}

/** One status of one operation: how it is provoked, and what its body must say beyond the API's error shape. */
export interface Case {
  how: string;
  run(ctx: StatusContext): Promise<Answer>;
  check?(answer: Answer, ctx: StatusContext): void | Promise<void>;
}

export interface OperationStatuses {
  api: CoverageApi;
  operationId: string;
  /** Makes the state a valid call needs and returns that call; the derived scenarios alter it. */
  valid(ctx: StatusContext): Promise<Call>;
  /** The status a valid call gets, and what its body must hold. */
  success: { status: number; check(answer: Answer, ctx: StatusContext): void | Promise<void> };
  /** How its 500 and 503 are provoked: the store fails under the handler (default), or the handler fails (no database read). */
  fault?: FaultKind;
  /** The statuses no rule derives (404, 409, …), or that deserve a scenario of their own. */
  cases?: Partial<Record<number, Case>>;
}

export interface StatusScenario extends Case {
  api: CoverageApi;
  operationId: string;
  status: number;
}

const withQuery = (path: string, query: string) => `${path}${path.includes('?') ? '&' : '?'}${query}`;

const without = (headers: Record<string, string> | undefined, names: string[]) =>
  Object.fromEntries(Object.entries(headers ?? {}).filter(([name]) => !names.includes(name.toLowerCase())));

const UNAUTHENTICATED: Record<CoverageApi, { message: string; challenge?: RegExp }> = {
  compliance: { message: 'The authentication token is invalid or missing', challenge: /^Basic realm="compliance"/ },
  conductor: { message: 'Unauthorized', challenge: /^Basic realm="conductor"/ },
  console: { message: 'Sign in required' },
};

let addresses = 0;
/** A loopback address no scenario used before: a client whose failed authentications nobody counted yet. */
const freshAddress = () => {
  addresses += 1;
  return `127.3.${Math.floor(addresses / 250)}.${(addresses % 250) + 1}`;
};

/** Failed attempts sent before giving up on being refused: a hang guard, far above any limit the tests set. */
const MAX_FAILED_ATTEMPTS = 200;

/**
 * The attempt with wrong credentials that counts against the same limits as `call`: its Basic secret changed, the
 * sign-in's password changed, or, for a call with a session cookie (which names nobody), a failed sign-in with an
 * email of its own, counting against the address.
 */
function failingAttempt(ctx: StatusContext, api: CoverageApi, operationId: string, call: Call, attempt: number): Call {
  if (api === 'console' && operationId === 'signIn') return { ...call, body: { ...(call.body as object), password: 'not the password at all' } };
  if (api === 'console') {
    return { method: 'POST', path: '/console/api/session', auth: null, body: { email: `nobody-${attempt}@example.com`, password: 'not the password at all' } };
  }
  const [user] = Buffer.from((call.auth ?? ctx.server.auth).slice('Basic '.length), 'base64').toString('utf8').split(':');
  return { ...call, auth: basic(user!, 'not the secret at all') };
}

/** A policy that declares a user and grants it nothing. */
const DENYING_POLICY = 'users: [mallory]\nrules: []\n';

/** Attaches the denying policy and returns mallory's credentials; root keeps every right. */
async function deniedUser(ctx: StatusContext): Promise<string> {
  const root = ctx.server.rootAuth;
  await must(ctx, { method: 'POST', path: '/api/v0/rbac', auth: root, body: await filesTar({ 'policy.yaml': DENYING_POLICY }) });
  const { secret } = await must(ctx, { method: 'PUT', path: '/api/v0/rbac/users/mallory/secret', auth: root });
  return basic('mallory', secret as string);
}

/** Detaches whatever policy is attached (none is fine): scenarios that need one attach their own. */
export async function detachPolicy(ctx: StatusContext): Promise<void> {
  const answer = await send(ctx, { method: 'DELETE', path: '/api/v0/rbac', auth: ctx.server.rootAuth });
  expect([200, 404], answer.text).toContain(answer.status);
}

/** The conductor operations whose 200 lists only what the caller may read: they answer no 403. */
export const isConductorListing = (operationId: string): boolean =>
  'listing' in (CONDUCTOR_ACCESS as Record<string, object>)[operationId]!;

/** Policies just below each access level (see "Access control" in the compliance spec). */
const POLICY_BELOW: Partial<Record<AccessLevel, string>> = {
  read: 'builtin:ORGANIZATION_REPORT_VIEWER',
  edit: 'builtin:AUDITOR',
  contribute: 'builtin:EDITOR',
  manage: 'builtin:CONTRIBUTOR',
};

/** The `x-access` declaration of each compliance operation (see "Access control" in the spec). */
let complianceAccess: ReturnType<typeof readAccessDeclarations>['declarations'] | undefined;

/**
 * A compliance 403: the call made by an API client placed in a group that falls short of what the operation needs:
 * for operations that name environments, a MANAGER group covering no environment (EnvironmentAccessDenied, or
 * AuthorizationError where the call reaches all environments); for creating environments, a CONTRIBUTOR group not
 * covering all of them; otherwise (listings too) a policy just below the level.
 */
function groupPolicyDenial(op: OperationStatuses): Case | undefined {
  complianceAccess ??= readAccessDeclarations(loadApiDocument('compliance').openapi).declarations;
  const access = complianceAccess.get(op.operationId);
  if (!access || access.public) return undefined;
  // A listing answers only what the caller's groups cover; a policy below its level is still refused.
  const everywhere = !access.listing && access.sources.some((source) => source.at === 'all');
  const onEnvironment = !access.listing && !everywhere && access.sources.length > 0;
  const [policy, environmentIds, type] = onEnvironment
    ? (['builtin:MANAGER', [], 'EnvironmentAccessDenied'] as const)
    : everywhere
      ? (['builtin:CONTRIBUTOR', [], 'AuthorizationError'] as const)
      : ([POLICY_BELOW[access.level], ['*'], 'AuthorizationError'] as const);
  if (!policy) return undefined;
  return {
    how: `an API client in a ${policy} group over ${environmentIds.length === 0 ? 'no environment' : 'all environments'}`,
    run: async (ctx) => {
      const call = await op.valid(ctx);
      const { client, secret } = await ctx.server.services.apiClients.createWithSecret(ctx.server.orgId, `restricted ${op.operationId} ${Math.random()}`);
      await must(ctx, {
        method: 'POST',
        path: '/v0/groups',
        body: { name: `restricted ${op.operationId} ${Math.random()}`, policy, environment_ids: environmentIds, api_client_ids: [client.clientId] },
      });
      return send(ctx, { ...call, auth: basic(client.clientId, secret) });
    },
    check: ({ body }) => expect(body.type).toBe(onEnvironment && body.message.includes("over all environments ('*')") ? 'AuthorizationError' : type),
  };
}

/** The statuses every operation that declares them answers alike; undefined where no rule applies. */
function derived(op: OperationStatuses, status: number): Case | undefined {
  const { api, operationId } = op;
  switch (status) {
    case 304:
      return {
        how: 'the valid call again, naming the ETag of its 200 in If-None-Match',
        run: async (ctx) => {
          const call = await op.valid(ctx);
          const first = await send(ctx, call);
          expect(first.status, first.text.slice(0, 500)).toBe(op.success.status);
          const tag = first.headers.get('etag');
          expect(tag, 'the 200 carries an ETag').toMatch(/^W\/"/);
          return send(ctx, { ...call, headers: { ...call.headers, 'If-None-Match': tag! } });
        },
        check: ({ text, headers }) => {
          expect(text).toBe('');
          expect(headers.get('etag')).toMatch(/^W\/"/);
        },
      };
    case 400:
      return {
        how: 'an unknown query parameter',
        run: async (ctx) => {
          const call = await op.valid(ctx);
          return send(ctx, { ...call, path: withQuery(call.path, 'unexpected_parameter=1') });
        },
        check: ({ body }) => expect(body.message).toContain("Unknown query parameter 'unexpected_parameter'"),
      };
    case 401:
      return {
        how: 'a call without credentials',
        run: async (ctx) => {
          const call = await op.valid(ctx);
          return send(ctx, { ...call, auth: null, headers: without(call.headers, ['authorization', 'cookie', 'x-csrf-token']) });
        },
        check: ({ body, headers }) => {
          expect(body.message).toBe(UNAUTHENTICATED[api].message);
          const challenge = UNAUTHENTICATED[api].challenge;
          if (challenge) expect(headers.get('www-authenticate')).toMatch(challenge);
        },
      };
    case 403:
      if (api === 'console') {
        return {
          how: 'a session without its CSRF token',
          run: async (ctx) => {
            const call = await op.valid(ctx);
            return send(ctx, { ...call, headers: { ...call.headers, 'x-csrf-token': 'not-the-session-token-'.padEnd(43, 'x') } });
          },
          check: ({ body }) => expect(body).toEqual({ type: 'InvalidCsrfToken', code: 403, message: CSRF_REFUSED }),
        };
      }
      if (api === 'compliance') return groupPolicyDenial(op);
      if (api !== 'conductor' || isConductorListing(operationId)) return undefined;
      return {
        how: 'a user the rbac policy grants nothing',
        run: async (ctx) => {
          const call = await op.valid(ctx);
          const mallory = await deniedUser(ctx);
          try {
            return await send(ctx, { ...call, auth: mallory });
          } finally {
            await detachPolicy(ctx);
          }
        },
        check: ({ body }) => {
          const { action } = (CONDUCTOR_ACCESS as unknown as Record<string, { action: string }>)[operationId]!;
          expect(body).toMatchObject({ code: 403, message: 'Forbidden', errors: [{ code: 'rbac.denied', location: 'policy.yaml' }] });
          expect(body.errors[0].message).toMatch(new RegExp(`^user 'mallory' may not ${action} on `));
        },
      };
    case 429:
      return {
        how: 'the valid call from an address refused after failed authentications',
        run: async (ctx) => {
          const call = await op.valid(ctx);
          const from = freshAddress();
          for (let attempt = 1; ; attempt += 1) {
            const failed = await send(ctx, { ...failingAttempt(ctx, api, operationId, call, attempt), from });
            if (failed.status === 429) break;
            expect(failed.status, `failed attempt ${attempt}: ${failed.text}`).toBe(401);
            expect(attempt, 'failed attempts were refused in the end').toBeLessThan(MAX_FAILED_ATTEMPTS);
          }
          return send(ctx, { ...call, from });
        },
        check: ({ body, headers }) => {
          expect(body.message).toMatch(/^Too many failed authentication attempts; try again in [1-9][0-9]* seconds$/);
          expect(headers.get('retry-after')).toMatch(/^[1-9][0-9]*$/);
          expect(body.message).toContain(`in ${headers.get('retry-after')} seconds`);
          expect(headers.get('www-authenticate')).toBeNull();
          if (api === 'conductor') expect(body.errors).toEqual([]);
          else expect(body.type).toBe('TooManyRequests');
        },
      };
    case 413:
      return {
        how: 'an archive one byte over the size limit',
        run: async (ctx) => {
          const call = await op.valid(ctx);
          return send(ctx, { ...call, body: Buffer.alloc(ctx.archiveLimitBytes + 1, 7) });
        },
        check: ({ body }) => expect(body).toEqual({ code: 413, message: 'body: larger than the size limit', errors: [] }),
      };
    case 500:
    case 503: {
      const kind = op.fault ?? 'database';
      const effect = status === 500 ? 'fails' : 'unavailable';
      const where = kind === 'database' ? 'under the handler' : 'in the handler';
      return {
        how: status === 500 ? (kind === 'database' ? 'a database outage under the handler' : 'a failing handler') : `a database that cannot serve now, met ${where}`,
        run: async (ctx) => {
          const call = await op.valid(ctx);
          const logged = ctx.log.lines.length;
          ctx.faults.arm(api, operationId, kind, effect);
          try {
            const answer = await send(ctx, call);
            expect(ctx.faults.settle(), 'the call reached the handler').toBe(true);
            if (kind === 'database') expect(ctx.faults.outage.refused.length, 'the handler read or wrote the database').toBeGreaterThan(0);
            // The cause goes to the server's log (the request's line, at level error), and only there.
            expect(ctx.log.lines.slice(logged).join('')).toContain(FAULT_MARKER);
            return answer;
          } finally {
            ctx.faults.settle();
          }
        },
        check: ({ body, text, headers }) => {
          if (status === 500) {
            expect(body.message).toBe('Internal server error');
            expect(headers.get('retry-after')).toBeNull();
          } else {
            expect(body.message).toMatch(/try again shortly$/);
            expect(headers.get('retry-after')).toMatch(/^[1-9][0-9]*$/);
          }
          if (api === 'conductor') expect(body.errors).toEqual([]);
          else expect(body.type).toBe(status === 500 ? 'InternalServerError' : 'ServiceUnavailable');
          for (const leak of [FAULT_MARKER, 'QueryNode', 'Error:', '    at ']) expect(text).not.toContain(leak);
        },
      };
    }
    default:
      return undefined;
  }
}

/** Every scenario of one operation, one per declared status that an explicit case or a rule provides. */
export function scenariosOf(op: OperationStatuses, declared: readonly number[]): StatusScenario[] {
  const scenarios: StatusScenario[] = [];
  for (const status of declared) {
    const base = { api: op.api, operationId: op.operationId, status };
    if (status === op.success.status) {
      scenarios.push({ ...base, how: 'a valid call', run: async (ctx) => send(ctx, await op.valid(ctx)), check: op.success.check });
      continue;
    }
    const scenario = op.cases?.[status] ?? derived(op, status);
    if (scenario) scenarios.push({ ...base, ...scenario });
  }
  return scenarios;
}
