import { isIP } from 'node:net';
import { DEFAULT_AUTHENTICATION_LIMITS, type AuthenticationLimits } from './domain/auth/throttle.js';
import { DEFAULT_QUOTAS, QUOTA_SETTINGS, type QuotaName, type Quotas } from './domain/quotas.js';
/**
 * Configuration comes from environment variables only. A bad value stops start-up with a message that names the
 * variable, so an operator never has to guess which setting is wrong.
 */
export interface Config {
  port: number;
  host: string;
  databaseUrl: string;
  /** PostgreSQL only: how many connections, and how long a query may wait for one and run, before it is refused. */
  databasePool: DatabasePoolConfig;
  demoData: boolean;
  conductorRootSecret: string | undefined;
  conductorRootSecretFile: string;
  /** The first console user of the default organization. */
  consoleAdminEmail: string;
  consoleAdminPassword: string | undefined;
  consoleAdminPasswordFile: string;
  validateResponses: boolean;
  shutdownTimeoutMs: number;
  /** Share of an account's resources the simulated cloud changes between two scans. */
  simDriftRate: number;
  /** How often the scan scheduler looks for due environments. */
  schedulerIntervalMs: number;
  /** How often the conductor compares processes with enforcement on with the cloud, and corrects drift. */
  enforcementIntervalMs: number;
  /** How long a job's claim lasts without a heartbeat before another worker may take the job over. */
  jobLeaseMs: number;
  /**
   * Scans of one organization running at once, counted across every server process sharing the database; more
   * wait queued while other organizations' work goes first.
   */
  maxConcurrentScansPerOrg: number;
  /**
   * How many environments, custom rules (and characters of their text), notifications, groups and API clients one
   * organization may have, and
   * processes one conductor account (MAX_ENVIRONMENTS_PER_ORG, …, MAX_PROCESSES_PER_ACCOUNT); a create past one is
   * refused with 409.
   */
  quotas: Quotas;
  /** SMTP server of email notifications (`smtp://` or `smtps://`); unset, email deliveries fail saying so. */
  smtpUrl: string | undefined;
  /** Sender address of email notifications. */
  smtpFrom: string;
  /**
   * The address people reach the server at (`https://compliance.example.com`), where the links of invitation emails
   * point; unset, they point to the address the inviting request was sent to.
   */
  publicUrl: string | undefined;
  /** Let webhooks target loopback, private and link-local addresses (local use only). */
  webhookAllowPrivate: boolean;
  /** Origins whose browser pages may call the APIs (CORS), or `*` for any; unset, none. */
  corsOrigins: CorsOrigins | undefined;
  /**
   * Which proxies in front of the server to believe about the client (X-Forwarded-For, X-Forwarded-Proto): none
   * (false), a number of hops, or addresses and subnets. Decides the address rate limits count and whether a request
   * came over TLS (the session cookie is then `Secure`). Express's `trust proxy` setting.
   */
  trustProxy: TrustProxy;
  /**
   * Failed authentications allowed in a window on every API, per client address and identity, per identity (against
   * addresses that failed with it) and per client address, before attempts are refused unchecked (AUTH_…).
   */
  authenticationLimits: AuthenticationLimits;
  /** The stateful mock (`MOCK_RESET=true`): demo data on SQLite, `POST /mock/reset` restores it, `POST /mock/scenarios/{name}` loads others. Never in production. */
  mockReset: boolean;
  /** The stateful mock only (`MOCK_LARGE_AT_START`): make the `large` scenario right after start (else on its first load). */
  mockLargeAtStart: boolean;
  /** The least severe level the log writes. */
  logLevel: LogLevel;
  /** Serve GET /metrics on this port (on `host`) instead of the main port; unset, on the main port. */
  metricsPort: number | undefined;
  /** How long the HTTP server waits for a slow sender and an idle connection, and how many connections it holds. */
  http: HttpServerConfig;
  /**
   * Tests only (the fault matrix): the file naming a fault point at which this process kills itself, and the file
   * every pass of a fault point is appended to. Unset, as in production, background work has no fault points.
   */
  faultPointsFile: string | undefined;
  faultTraceFile: string | undefined;
}

/** The bounds of the PostgreSQL pool (DATABASE_POOL_SIZE, …); past them a query fails as unavailable (503). */
export interface DatabasePoolConfig {
  size: number;
  /** How long a query waits for a free connection (a new one's set-up included). */
  acquireTimeoutMs: number;
  /** How long a statement may run before the server cancels it. */
  statementTimeoutMs: number;
  /** Queries waiting for a connection at most; one more is refused at once. */
  maxWaiting: number;
}

/**
 * The HTTP server's transport bounds: a connection costs an open file, so a client sending slowly or opening many
 * connections must not hold them all (HTTP_KEEP_ALIVE_TIMEOUT_MS, HTTP_HEADERS_TIMEOUT_MS, …).
 */
export interface HttpServerConfig {
  /** How long a connection may stay idle between two requests. */
  keepAliveTimeoutMs: number;
  /** How long a request's head (request line and headers) may take to arrive, from its first byte. */
  headersTimeoutMs: number;
  /** How long a whole request, head and body, may take to arrive; the answer's time is not counted. */
  requestTimeoutMs: number;
  /** Open connections at most, from every client together. */
  maxConnections: number;
  /** Open connections at most from one client address (the socket's, never X-Forwarded-For). */
  maxConnectionsPerAddress: number;
}

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    problem: string,
  ) {
    super(`${variable}: ${problem}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^[0-9]+$/.test(raw)) throw new ConfigError(name, `must be a whole number, got '${raw}'`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${value}`);
  return value;
}

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new ConfigError(name, `must be 'true' or 'false', got '${raw}'`);
}

function fraction(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!/^[0-9.]+$/.test(raw) || !(value >= 0 && value <= 1)) throw new ConfigError(name, `must be a number from 0 to 1, got '${raw}'`);
  return value;
}

function adminEmail(env: Env): string {
  const raw = env.CONSOLE_ADMIN_EMAIL || 'admin@example.com';
  if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(raw)) throw new ConfigError('CONSOLE_ADMIN_EMAIL', `must be an email address, got '${raw}'`);
  return raw.toLowerCase();
}

function adminPassword(env: Env): string | undefined {
  const raw = env.CONSOLE_ADMIN_PASSWORD;
  if (raw === undefined || raw === '') return undefined;
  if (raw.length < 12) throw new ConfigError('CONSOLE_ADMIN_PASSWORD', 'must be at least 12 characters long');
  return raw;
}

function databaseUrl(env: Env): string {
  const raw = env.DATABASE_URL;
  if (raw === undefined || raw === '') return 'sqlite:./data/app.db';
  if (/^sqlite:.+/.test(raw) || /^postgres(ql)?:\/\/.+/.test(raw)) return raw;
  // The value may carry a password: the message shows only its scheme.
  throw new ConfigError('DATABASE_URL', `must be 'sqlite:<path>' or 'postgres://…', got one starting '${raw.split(/[:/]/, 1)[0]}'`);
}

function databasePool(env: Env): DatabasePoolConfig {
  return {
    // Start-up holds one connection for its lock while it migrates on another.
    size: integer(env, 'DATABASE_POOL_SIZE', 10, 2, 1_000),
    acquireTimeoutMs: integer(env, 'DATABASE_ACQUIRE_TIMEOUT_MS', 3_000, 10, 600_000),
    statementTimeoutMs: integer(env, 'DATABASE_STATEMENT_TIMEOUT_MS', 5_000, 10, 3_600_000),
    maxWaiting: integer(env, 'DATABASE_POOL_MAX_WAITING', 50, 0, 100_000),
  };
}

/** The database a URL names, for logs and operators: the SQLite path, or the PostgreSQL URL without its password. */
export function describeDatabase(url: string): string {
  if (url.startsWith('sqlite:')) return `SQLite ${url.slice('sqlite:'.length)}`;
  const parsed = new URL(url);
  if (parsed.password) parsed.password = '***';
  return `PostgreSQL ${parsed.toString()}`;
}

function rootSecret(env: Env): string | undefined {
  const raw = env.CONDUCTOR_ROOT_SECRET;
  if (raw === undefined || raw === '') return undefined;
  if (raw.length < 16) throw new ConfigError('CONDUCTOR_ROOT_SECRET', 'must be at least 16 characters long');
  if (raw.includes(':')) throw new ConfigError('CONDUCTOR_ROOT_SECRET', "must not contain ':'");
  return raw;
}

function smtpUrl(env: Env): string | undefined {
  const raw = env.SMTP_URL;
  if (raw === undefined || raw === '') return undefined;
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    url = undefined;
  }
  // The value may carry a password: the message shows only the scheme and host.
  if (!url || (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') || url.hostname === '') {
    throw new ConfigError('SMTP_URL', "must be 'smtp://host:port' or 'smtps://user:password@host:port'");
  }
  return raw;
}

/** `PUBLIC_URL`: `http(s)://host[:port]`, kept without a trailing slash; no query, fragment or credentials. */
function publicUrl(env: Env): string | undefined {
  const raw = env.PUBLIC_URL?.trim();
  if (!raw) return undefined;
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '' || raw.includes('?') || raw.includes('#')) {
    throw new ConfigError('PUBLIC_URL', `must be 'http(s)://host[:port]', optionally with a path, got '${raw}'`);
  }
  return `${url.origin}${url.pathname}`.replace(/\/+$/, '');
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

function logLevel(env: Env): LogLevel {
  const raw = env.LOG_LEVEL;
  if (raw === undefined || raw === '') return 'info';
  const level = LOG_LEVELS.find((known) => known === raw.toLowerCase());
  if (!level) throw new ConfigError('LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')}, got '${raw}'`);
  return level;
}

/** `METRICS_PORT`: unset, the metrics are served on the main port; set, on this one alone. */
function metricsPort(env: Env, port: number): number | undefined {
  if (env.METRICS_PORT === undefined || env.METRICS_PORT === '') return undefined;
  const value = integer(env, 'METRICS_PORT', 0, 0, 65535);
  if (value !== 0 && value === port) throw new ConfigError('METRICS_PORT', `must differ from PORT (${port}): unset it to serve the metrics on the main port`);
  return value;
}

/**
 * The HTTP server's timeouts and connection caps. Node wants the head's timeout longer than the keep-alive timeout
 * (an idle connection is closed as idle, not as a request too slow to arrive) and no longer than the whole
 * request's. Behind a trusted proxy every connection comes from the proxy's address, so the cap per address
 * defaults to the total cap there.
 */
function httpServer(env: Env, proxied: boolean): HttpServerConfig {
  const keepAliveTimeoutMs = integer(env, 'HTTP_KEEP_ALIVE_TIMEOUT_MS', 5_000, 1_000, 600_000);
  const headersTimeoutMs = integer(env, 'HTTP_HEADERS_TIMEOUT_MS', 10_000, 1_000, 600_000);
  if (headersTimeoutMs <= keepAliveTimeoutMs) {
    throw new ConfigError('HTTP_HEADERS_TIMEOUT_MS', `must be greater than HTTP_KEEP_ALIVE_TIMEOUT_MS (${keepAliveTimeoutMs}), got ${headersTimeoutMs}`);
  }
  const requestTimeoutMs = integer(env, 'HTTP_REQUEST_TIMEOUT_MS', 30_000, 1_000, 3_600_000);
  if (requestTimeoutMs < headersTimeoutMs) {
    throw new ConfigError('HTTP_REQUEST_TIMEOUT_MS', `must be at least HTTP_HEADERS_TIMEOUT_MS (${headersTimeoutMs}), got ${requestTimeoutMs}`);
  }
  const maxConnections = integer(env, 'HTTP_MAX_CONNECTIONS', 800, 1, 1_000_000);
  const maxConnectionsPerAddress = integer(env, 'HTTP_MAX_CONNECTIONS_PER_ADDRESS', proxied ? maxConnections : 100, 1, 1_000_000);
  return { keepAliveTimeoutMs, headersTimeoutMs, requestTimeoutMs, maxConnections, maxConnectionsPerAddress };
}

export type CorsOrigins = '*' | readonly string[];

/** `CORS_ORIGINS`: `*`, or origins separated by commas, each `scheme://host[:port]` as a browser sends it. */
function corsOrigins(env: Env): CorsOrigins | undefined {
  const raw = env.CORS_ORIGINS?.trim();
  if (!raw) return undefined;
  if (raw === '*') return '*';
  const origins = raw.split(',').map((origin) => origin.trim()).filter((origin) => origin !== '');
  for (const origin of origins) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(origin);
    } catch {
      // reported below
    }
    if (!parsed || parsed.origin !== origin) {
      throw new ConfigError('CORS_ORIGINS', `must be '*' or origins like 'http://localhost:5173' separated by commas, got '${origin}'`);
    }
  }
  return origins;
}

export type TrustProxy = false | number | string[];

/** Names Express's `trust proxy` accepts for well-known ranges, besides addresses and subnets. */
const TRUSTED_RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

function trustProxy(env: Env): TrustProxy {
  const raw = env.TRUST_PROXY?.trim();
  if (!raw || raw === 'false') return false;
  if (/^[0-9]+$/.test(raw)) return integer(env, 'TRUST_PROXY', 0, 0, 32);
  const entries = raw.split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');
  for (const entry of entries) {
    const [address, bits, ...rest] = entry.split('/');
    const family = isIP(address ?? '');
    const bitsOk = bits === undefined || (/^[0-9]+$/.test(bits) && Number(bits) <= (family === 6 ? 128 : 32));
    if (!TRUSTED_RANGE_NAMES.has(entry) && (family === 0 || !bitsOk || rest.length > 0)) {
      throw new ConfigError(
        'TRUST_PROXY',
        `must be 'false', a number of proxy hops, or addresses, subnets and the names loopback, linklocal, uniquelocal separated by commas, got '${entry}'`,
      );
    }
  }
  return entries;
}

/** Each quota from its variable (QUOTA_SETTINGS), at least 1: a quota of none would forbid the kind outright. */
function quotas(env: Env): Quotas {
  const quota = (name: QuotaName, most = 1_000_000) => integer(env, QUOTA_SETTINGS[name].variable, DEFAULT_QUOTAS[name], 1, most);
  return {
    environments: quota('environments'),
    customRules: quota('customRules'),
    customRuleText: quota('customRuleText', 1_000_000_000),
    notifications: quota('notifications'),
    groups: quota('groups'),
    apiClients: quota('apiClients'),
    processesPerAccount: quota('processesPerAccount'),
  };
}

/** The limits of failed authentications; the window is at most a day, what the specs' `Retry-After` declares. */
function authenticationLimits(env: Env): AuthenticationLimits {
  const defaults = DEFAULT_AUTHENTICATION_LIMITS;
  return {
    windowSeconds: integer(env, 'AUTH_FAILURE_WINDOW_SECONDS', defaults.windowSeconds, 1, 86_400),
    perAddressAndIdentity: integer(env, 'AUTH_MAX_FAILURES_PER_ADDRESS_AND_IDENTITY', defaults.perAddressAndIdentity, 1, 1_000_000),
    perIdentity: integer(env, 'AUTH_MAX_FAILURES_PER_IDENTITY', defaults.perIdentity, 1, 1_000_000),
    perAddress: integer(env, 'AUTH_MAX_FAILURES_PER_ADDRESS', defaults.perAddress, 1, 1_000_000),
  };
}

function smtpFrom(env: Env): string {
  const raw = env.SMTP_FROM || 'compliance@localhost';
  if (!/^([^<>@]*<[^<>@\s]+@[^<>@\s]+>|[^<>@\s]+@[^<>@\s]+)$/.test(raw.trim())) {
    throw new ConfigError('SMTP_FROM', `must be an email address, optionally as 'Name <address>', got '${raw}'`);
  }
  return raw.trim();
}

/** `MOCK_RESET=true` (the stateful mock) needs SQLite, and gives demo data and fixed credentials by default. */
function mockDefaults(env: Env): Env {
  if (!boolean(env, 'MOCK_RESET', false)) return env;
  const url = databaseUrl(env);
  if (!url.startsWith('sqlite:') || url === 'sqlite::memory:') {
    throw new ConfigError('DATABASE_URL', `MOCK_RESET=true needs a SQLite file ('sqlite:<path>'), got '${url}'`);
  }
  return {
    ...env,
    DEMO_DATA: env.DEMO_DATA || 'true',
    CONDUCTOR_ROOT_SECRET: env.CONDUCTOR_ROOT_SECRET || 'mock-conductor-root-secret',
    CONSOLE_ADMIN_PASSWORD: env.CONSOLE_ADMIN_PASSWORD || 'mock-admin-password',
    // Frontends under development call the mock from their own dev server's origin.
    CORS_ORIGINS: env.CORS_ORIGINS || '*',
  };
}

export function loadConfig(given: Env = process.env): Config {
  const env = mockDefaults(given);
  const port = integer(env, 'PORT', 3000, 0, 65535);
  const proxies = trustProxy(env);
  return {
    port,
    host: env.HOST || '127.0.0.1',
    databaseUrl: databaseUrl(env),
    databasePool: databasePool(env),
    demoData: boolean(env, 'DEMO_DATA', false),
    conductorRootSecret: rootSecret(env),
    conductorRootSecretFile: env.CONDUCTOR_ROOT_SECRET_FILE || './data/conductor-root-secret',
    consoleAdminEmail: adminEmail(env),
    consoleAdminPassword: adminPassword(env),
    consoleAdminPasswordFile: env.CONSOLE_ADMIN_PASSWORD_FILE || './data/console-admin-password',
    validateResponses: boolean(env, 'VALIDATE_RESPONSES', false),
    shutdownTimeoutMs: integer(env, 'SHUTDOWN_TIMEOUT_MS', 10_000, 0, 600_000),
    simDriftRate: fraction(env, 'SIM_DRIFT_RATE', 0.02),
    schedulerIntervalMs: integer(env, 'SCHEDULER_INTERVAL_MS', 15_000, 100, 3_600_000),
    enforcementIntervalMs: integer(env, 'ENFORCEMENT_INTERVAL_MS', 30_000, 100, 3_600_000),
    jobLeaseMs: integer(env, 'JOB_LEASE_MS', 60_000, 500, 3_600_000),
    maxConcurrentScansPerOrg: integer(env, 'MAX_CONCURRENT_SCANS_PER_ORG', 2, 1, 1_000),
    quotas: quotas(env),
    smtpUrl: smtpUrl(env),
    smtpFrom: smtpFrom(env),
    publicUrl: publicUrl(env),
    webhookAllowPrivate: boolean(env, 'WEBHOOK_ALLOW_PRIVATE', false),
    corsOrigins: corsOrigins(env),
    trustProxy: proxies,
    authenticationLimits: authenticationLimits(env),
    mockReset: boolean(env, 'MOCK_RESET', false),
    mockLargeAtStart: boolean(env, 'MOCK_LARGE_AT_START', true),
    logLevel: logLevel(env),
    metricsPort: metricsPort(env, port),
    http: httpServer(env, proxies !== false && proxies !== 0),
    faultPointsFile: env.FAULT_POINTS_FILE || undefined,
    faultTraceFile: env.FAULT_TRACE_FILE || undefined,
  };
}

/** An SMTP URL as the log may show it: scheme, host and port, without the user and password it may carry. */
function describeSmtp(url: string): string {
  const parsed = new URL(url);
  return `${parsed.protocol}//${parsed.host}`;
}

/**
 * The configuration as the start-up log shows it: every setting an operator may want to check, and none of the
 * secrets (the root secret and the admin password say only whether they were given, the database and SMTP URLs
 * lose their passwords).
 */
export function configSummary(config: Config): Record<string, unknown> {
  return {
    port: config.port,
    host: config.host,
    database: describeDatabase(config.databaseUrl),
    databasePool: config.databaseUrl.startsWith('sqlite:') ? 'none (SQLite)' : config.databasePool,
    demoData: config.demoData,
    conductorRootSecret: config.conductorRootSecret === undefined ? `generated once into ${config.conductorRootSecretFile}` : 'set',
    consoleAdmin: config.consoleAdminEmail,
    consoleAdminPassword: config.consoleAdminPassword === undefined ? `generated once into ${config.consoleAdminPasswordFile}` : 'set',
    validateResponses: config.validateResponses,
    shutdownTimeoutMs: config.shutdownTimeoutMs,
    simDriftRate: config.simDriftRate,
    schedulerIntervalMs: config.schedulerIntervalMs,
    enforcementIntervalMs: config.enforcementIntervalMs,
    jobLeaseMs: config.jobLeaseMs,
    maxConcurrentScansPerOrg: config.maxConcurrentScansPerOrg,
    quotas: config.quotas,
    smtp: config.smtpUrl === undefined ? 'none' : describeSmtp(config.smtpUrl),
    smtpFrom: config.smtpFrom,
    publicUrl: config.publicUrl ?? 'none (invitation links use the address the inviting request was sent to)',
    webhookAllowPrivate: config.webhookAllowPrivate,
    corsOrigins: config.corsOrigins === undefined ? 'none' : config.corsOrigins === '*' ? '*' : config.corsOrigins.join(','),
    trustProxy: Array.isArray(config.trustProxy) ? config.trustProxy.join(',') : config.trustProxy,
    authenticationLimits: config.authenticationLimits,
    mockReset: config.mockReset,
    ...(config.mockReset && { mockLargeAtStart: config.mockLargeAtStart }),
    logLevel: config.logLevel,
    metrics: config.metricsPort === undefined ? 'GET /metrics on the main port' : `GET /metrics on port ${config.metricsPort}`,
    http: config.http,
    // Shown only when set: a server started with them dies on purpose, and its log should say why it might.
    ...(config.faultPointsFile !== undefined && { faultPointsFile: config.faultPointsFile }),
    ...(config.faultTraceFile !== undefined && { faultTraceFile: config.faultTraceFile }),
  };
}
