import type { KyselyPlugin } from 'kysely';
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, beforeEach } from '@jest/globals';
import { ManualClock } from '../src/domain/clock.js';
import { DEFAULT_ORGANIZATION } from '../src/domain/organizations/service.js';
import { createApp, type AppOptions } from '../src/http/app.js';
import { httpServerFor } from '../src/http/http-server.js';
import { createServices, type ServiceOptions, type Services } from '../src/services.js';
import { KyselyJobRepository } from '../src/storage/repositories/jobs.js';
import type { TestDatabase } from './databases.js';
import { listenInProcess } from './in-process-server.js';
import { TEST_PASSWORD_HASHING } from './passwords.js';

export const ROOT_SECRET = 'root-secret-for-tests-0123456789';

export interface TestServer {
  baseUrl: string;
  services: Services;
  clock: ManualClock;
  /** The organization the current test works in; `useNewTenant` replaces it. */
  orgId: string;
  /** Basic credentials of an API client of that organization. */
  auth: string;
  /** Moves the test into a new, empty organization with its own API client. */
  useNewTenant(): Promise<void>;
  /** Basic credentials of the conductor's root. */
  rootAuth: string;
  /** `from`: the local address the request leaves from (a loopback address other than 127.0.0.1 stands for another client). */
  request(
    method: string,
    path: string,
    options?: { body?: unknown; auth?: string | null; headers?: Record<string, string>; from?: string },
  ): Promise<{ status: number; body: any; headers: Headers; text: string }>;
  close(): Promise<void>;
}

/** The services' options, plus what some tests change in the app or in the database it sees. */
export interface TestServerOptions extends ServiceOptions {
  /** The conductor's archive size limit (small, to provoke a 413 without sending megabytes). */
  archiveLimitBytes?: number;
  /** Runs before every handler (see AppOptions); tests inject faults through it. */
  beforeHandler?: AppOptions['beforeHandler'];
  /** Plugins on the services' query builder only, e.g. one that simulates a database outage. */
  databasePlugins?: KyselyPlugin[];
  /** Origins whose pages may call the APIs (CORS_ORIGINS). */
  corsOrigins?: AppOptions['corsOrigins'];
  /** Where request lines go (the services' own lines go to `log` of the services' options). */
  requestLog?: AppOptions['log'];
  /** Proxies believed about the client (TRUST_PROXY). */
  trustProxy?: AppOptions['trustProxy'];
  /** The stateful mock's reset (MOCK_RESET): the app then runs in mock mode. */
  mockReset?: AppOptions['mockReset'];
}

/** For suites that send wrong secrets as part of what they check, not to be refused for it (429). */
export const UNLIMITED_AUTHENTICATION_FAILURES = Object.freeze({ windowSeconds: 60, perAddressAndIdentity: 1_000_000, perIdentity: 1_000_000, perAddress: 1_000_000 });

export const basic = (user: string, secret: string) => `Basic ${Buffer.from(`${user}:${secret}`).toString('base64')}`;

/** The whole app on port 0 over a test database, with response validation on. */
export async function startTestServer(db: TestDatabase, options: TestServerOptions = {}): Promise<TestServer> {
  const { archiveLimitBytes, beforeHandler, databasePlugins = [], corsOrigins, requestLog, trustProxy, mockReset, ...serviceOptions } = options;
  // The same metrics count the services' work and time the requests, and GET /metrics answers with them.
  const { metrics } = serviceOptions;
  const clock = new ManualClock(Date.UTC(2026, 5, 1, 12));
  const handle = databasePlugins.reduce((current, plugin) => ({ ...current, db: current.db.withPlugin(plugin) }), db.handle);
  // Console passwords are hashed at a test's cost unless a test asks for another (see passwords.ts).
  const services = createServices(handle, clock, { passwordHashing: TEST_PASSWORD_HASHING, ...serviceOptions });
  await services.conductorUsers.ensureRoot({ configured: ROOT_SECRET, file: '/nonexistent/never-written' });
  const app = createApp({
    services,
    validateResponses: true,
    ...(archiveLimitBytes !== undefined && { archiveLimitBytes }),
    ...(beforeHandler && { beforeHandler }),
    ...(corsOrigins && { corsOrigins }),
    ...(requestLog && { log: requestLog }),
    ...(metrics && { metrics }),
    ...(trustProxy !== undefined && { trustProxy }),
    ...(mockReset && { mockReset }),
  });
  const server = httpServerFor(app.express);
  const baseUrl = await listenInProcess(server);
  let tenants = 0;
  const testServer: TestServer = {
    baseUrl,
    services,
    clock,
    orgId: '',
    auth: '',
    rootAuth: basic('root', ROOT_SECRET),
    async useNewTenant() {
      tenants += 1;
      const org = await services.organizations.ensure(tenants === 1 ? DEFAULT_ORGANIZATION : `tenant-${tenants}`);
      const { client, secret } = await services.apiClients.createWithSecret(org.id, 'tests');
      testServer.orgId = org.id;
      testServer.auth = basic(client.clientId, secret);
    },
    async request(method, path, options = {}) {
      const headers: Record<string, string> = { ...options.headers };
      const authorization = options.auth === undefined ? testServer.auth : options.auth;
      if (authorization !== null) headers.authorization = authorization;
      let body: string | Buffer | undefined;
      if (Buffer.isBuffer(options.body)) {
        // Archives (conductor uploads) go as raw bytes.
        body = options.body;
        headers['content-type'] ??= 'application/x-tar';
      } else if (options.body !== undefined) {
        body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
        headers['content-type'] ??= 'application/json';
      }
      const res = options.from === undefined ? await fetch(`${baseUrl}${path}`, { method, headers, body }) : await sentFrom(options.from, `${baseUrl}${path}`, method, headers, body);
      const text = await res.text();
      let parsed: unknown = undefined;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        parsed = undefined;
      }
      return { status: res.status, body: parsed, headers: res.headers, text };
    },
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await services.evaluation.close();
    },
  };
  await testServer.useNewTenant();
  return testServer;
}

/** A request sent from `localAddress`, answered as fetch answers (fetch cannot choose the address it leaves from). */
function sentFrom(localAddress: string, url: string, method: string, headers: Record<string, string>, body: string | Buffer | undefined): Promise<Response> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers, localAddress, agent: false });
    req.once('error', reject);
    req.once('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.once('error', reject);
      res.once('end', () => {
        const answered = new Headers();
        for (const [name, value] of Object.entries(res.headers)) {
          for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) answered.append(name, one);
        }
        const status = res.statusCode!;
        const content = status === 204 || status === 304 ? null : Buffer.concat(chunks);
        resolve(new Response(content, { status, headers: answered }));
      });
    });
    req.end(body);
  });
}

/**
 * One server for the whole suite (starting one compiles three specs), with every test moved into a new, empty
 * organization of its own. Returns the running server.
 */
export function useTestServer(db: () => TestDatabase, options: TestServerOptions = {}): () => TestServer {
  let server: TestServer | undefined;
  beforeAll(async () => {
    server = await startTestServer(db(), options);
  });
  beforeEach(async () => {
    await server!.useNewTenant();
  });
  afterAll(async () => {
    await server?.close();
  });
  return () => server!;
}

/**
 * Makes the next due job's every attempt die with its worker: claims it `attempts` times as vanished workers,
 * letting each lease run out, so that the queue gives the job up on its next run.
 */
export async function abandonNextJob(server: TestServer, db: TestDatabase, attempts: number): Promise<void> {
  const jobs = new KyselyJobRepository(db.handle.db, db.handle.dialect);
  for (let attempt = 0; attempt < attempts; attempt += 1) {
    const now = server.clock.nowMs();
    if (!(await jobs.claim(`vanished-worker-${attempt}`, now, now + 1_000))) throw new Error('no job is due');
    server.clock.advanceSeconds(2);
  }
}
