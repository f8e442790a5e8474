import { describe, expect, it } from '@jest/globals';
import { ConfigError, configSummary, loadConfig } from './config.js';

describe('configuration', () => {
  it('has defaults for everything', () => {
    expect(loadConfig({})).toMatchObject({
      port: 3000,
      databaseUrl: 'sqlite:./data/app.db',
      demoData: false,
      conductorRootSecret: undefined,
      validateResponses: false,
      webhookAllowPrivate: false,
      corsOrigins: undefined,
      logLevel: 'info',
      metricsPort: undefined,
    });
  });

  it('reads PUBLIC_URL, where invitation links point, without a trailing slash, and refuses anything but http(s)', () => {
    expect(loadConfig({}).publicUrl).toBeUndefined();
    expect(loadConfig({ PUBLIC_URL: 'https://compliance.example.com/' }).publicUrl).toBe('https://compliance.example.com');
    expect(loadConfig({ PUBLIC_URL: 'http://10.0.0.5:8080/compliance/' }).publicUrl).toBe('http://10.0.0.5:8080/compliance');
    for (const bad of ['compliance.example.com', 'ftp://example.com', 'https://example.com/?a=1', 'https://example.com/#x', 'https://user:pw@example.com']) {
      expect(() => loadConfig({ PUBLIC_URL: bad })).toThrow(ConfigError);
    }
  });

  it('reads LOG_LEVEL in any case, and METRICS_PORT', () => {
    expect(loadConfig({ LOG_LEVEL: 'DEBUG', METRICS_PORT: '9464' })).toMatchObject({ logLevel: 'debug', metricsPort: 9464 });
    expect(loadConfig({ PORT: '0', METRICS_PORT: '0' }).metricsPort).toBe(0);
  });

  it('summarizes the configuration for the start-up log without a secret', () => {
    const secrets = ['root-secret-in-the-environment', 'admin password in the environment', 'database-password', 'smtp-password'];
    const config = loadConfig({
      CONDUCTOR_ROOT_SECRET: secrets[0],
      CONSOLE_ADMIN_PASSWORD: secrets[1],
      DATABASE_URL: `postgres://app:${secrets[2]}@db.internal:5432/compliance`,
      SMTP_URL: `smtps://mailer:${secrets[3]}@smtp.example.com:465`,
      METRICS_PORT: '9464',
    });
    const summary = configSummary(config);
    const text = JSON.stringify(summary);
    for (const secret of secrets) expect(text).not.toContain(secret);
    expect(summary).toMatchObject({
      database: 'PostgreSQL postgres://app:***@db.internal:5432/compliance',
      smtp: 'smtps://smtp.example.com:465',
      conductorRootSecret: 'set',
      consoleAdminPassword: 'set',
      metrics: 'GET /metrics on port 9464',
    });
    expect(configSummary(loadConfig({}))).toMatchObject({ conductorRootSecret: 'generated once into ./data/conductor-root-secret', metrics: 'GET /metrics on the main port' });
  });

  it('reads CORS_ORIGINS as * or a list of origins, and the stateful mock allows every origin', () => {
    expect(loadConfig({ CORS_ORIGINS: '*' }).corsOrigins).toBe('*');
    expect(loadConfig({ CORS_ORIGINS: 'http://localhost:5173, https://app.example.com' }).corsOrigins).toEqual(['http://localhost:5173', 'https://app.example.com']);
    expect(loadConfig({ MOCK_RESET: 'true', DATABASE_URL: 'sqlite:/tmp/mock.db' }).corsOrigins).toBe('*');
    expect(loadConfig({ MOCK_RESET: 'true', DATABASE_URL: 'sqlite:/tmp/mock.db', CORS_ORIGINS: 'http://localhost:5173' }).corsOrigins).toEqual(['http://localhost:5173']);
  });

  it('reads the fault matrix\'s FAULT_POINTS_FILE and FAULT_TRACE_FILE, unset by default and then left out of the summary', () => {
    expect(loadConfig({})).toMatchObject({ faultPointsFile: undefined, faultTraceFile: undefined });
    expect(configSummary(loadConfig({}))).not.toHaveProperty('faultPointsFile');
    const config = loadConfig({ FAULT_POINTS_FILE: '/tmp/armed.json', FAULT_TRACE_FILE: '/tmp/trace.jsonl' });
    expect(config).toMatchObject({ faultPointsFile: '/tmp/armed.json', faultTraceFile: '/tmp/trace.jsonl' });
    expect(configSummary(config)).toMatchObject({ faultPointsFile: '/tmp/armed.json', faultTraceFile: '/tmp/trace.jsonl' });
  });

  it('lets webhooks reach private addresses only with WEBHOOK_ALLOW_PRIVATE=true', () => {
    expect(loadConfig({ WEBHOOK_ALLOW_PRIVATE: 'true' }).webhookAllowPrivate).toBe(true);
    expect(loadConfig({ WEBHOOK_ALLOW_PRIVATE: 'false' }).webhookAllowPrivate).toBe(false);
  });

  it('reads the documented variables', () => {
    const config = loadConfig({ PORT: '8080', DATABASE_URL: 'postgres://db/app', DEMO_DATA: 'true', CONDUCTOR_ROOT_SECRET: 'a-root-secret-long-enough' });
    expect(config).toMatchObject({ port: 8080, databaseUrl: 'postgres://db/app', demoData: true, conductorRootSecret: 'a-root-secret-long-enough' });
  });

  it('bounds the PostgreSQL pool by default, and reads DATABASE_POOL_SIZE, the timeouts and the waiting bound', () => {
    expect(loadConfig({}).databasePool).toEqual({ size: 10, acquireTimeoutMs: 3_000, statementTimeoutMs: 5_000, maxWaiting: 50 });
    const env = { DATABASE_POOL_SIZE: '4', DATABASE_ACQUIRE_TIMEOUT_MS: '500', DATABASE_STATEMENT_TIMEOUT_MS: '2000', DATABASE_POOL_MAX_WAITING: '0' };
    expect(loadConfig(env).databasePool).toEqual({ size: 4, acquireTimeoutMs: 500, statementTimeoutMs: 2_000, maxWaiting: 0 });
  });

  it.each([
    [{ DATABASE_POOL_SIZE: '1' }, 'DATABASE_POOL_SIZE'],
    [{ DATABASE_ACQUIRE_TIMEOUT_MS: '3s' }, 'DATABASE_ACQUIRE_TIMEOUT_MS'],
    [{ DATABASE_STATEMENT_TIMEOUT_MS: '0' }, 'DATABASE_STATEMENT_TIMEOUT_MS'],
    [{ DATABASE_POOL_MAX_WAITING: '-1' }, 'DATABASE_POOL_MAX_WAITING'],
  ])('stops on a pool bound out of range, %o, naming %s', (env, variable) => {
    expect(() => loadConfig(env)).toThrow(new RegExp(`^${variable}: `));
  });

  it('limits failed authentications by default to 10 per address and identity, 100 per identity and 50 per address in 15 minutes, and reads AUTH_…', () => {
    expect(loadConfig({}).authenticationLimits).toEqual({ windowSeconds: 900, perAddressAndIdentity: 10, perIdentity: 100, perAddress: 50 });
    const env = { AUTH_FAILURE_WINDOW_SECONDS: '60', AUTH_MAX_FAILURES_PER_ADDRESS_AND_IDENTITY: '3', AUTH_MAX_FAILURES_PER_IDENTITY: '30', AUTH_MAX_FAILURES_PER_ADDRESS: '9' };
    expect(loadConfig(env).authenticationLimits).toEqual({ windowSeconds: 60, perAddressAndIdentity: 3, perIdentity: 30, perAddress: 9 });
    expect(configSummary(loadConfig(env)).authenticationLimits).toEqual(loadConfig(env).authenticationLimits);
  });

  it.each([
    [{ AUTH_FAILURE_WINDOW_SECONDS: '0' }, 'AUTH_FAILURE_WINDOW_SECONDS'],
    // The specs declare Retry-After up to a day.
    [{ AUTH_FAILURE_WINDOW_SECONDS: '86401' }, 'AUTH_FAILURE_WINDOW_SECONDS'],
    [{ AUTH_MAX_FAILURES_PER_ADDRESS_AND_IDENTITY: '0' }, 'AUTH_MAX_FAILURES_PER_ADDRESS_AND_IDENTITY'],
    [{ AUTH_MAX_FAILURES_PER_IDENTITY: 'many' }, 'AUTH_MAX_FAILURES_PER_IDENTITY'],
    [{ AUTH_MAX_FAILURES_PER_ADDRESS: '-5' }, 'AUTH_MAX_FAILURES_PER_ADDRESS'],
  ])('stops on an authentication limit out of range, %o, naming %s', (env, variable) => {
    expect(() => loadConfig(env)).toThrow(new RegExp(`^${variable}: `));
  });

  it('holds an organization to 500 environments, 200 custom rules of 2 MiB of text together, 100 notifications, 100 groups and 50 API clients, and an account to 200 processes, by default, and reads MAX_…', () => {
    expect(loadConfig({}).quotas).toEqual({
      environments: 500,
      customRules: 200,
      customRuleText: 2_097_152,
      notifications: 100,
      groups: 100,
      apiClients: 50,
      processesPerAccount: 200,
    });
    const env = {
      MAX_ENVIRONMENTS_PER_ORG: '5',
      MAX_CUSTOM_RULES_PER_ORG: '4',
      MAX_CUSTOM_RULE_TEXT_PER_ORG: '70000',
      MAX_NOTIFICATIONS_PER_ORG: '3',
      MAX_GROUPS_PER_ORG: '2',
      MAX_API_CLIENTS_PER_ORG: '1',
      MAX_PROCESSES_PER_ACCOUNT: '6',
    };
    expect(loadConfig(env).quotas).toEqual({ environments: 5, customRules: 4, customRuleText: 70_000, notifications: 3, groups: 2, apiClients: 1, processesPerAccount: 6 });
    expect(configSummary(loadConfig(env)).quotas).toEqual(loadConfig(env).quotas);
  });

  it.each([
    [{ MAX_ENVIRONMENTS_PER_ORG: '0' }, 'MAX_ENVIRONMENTS_PER_ORG'],
    [{ MAX_CUSTOM_RULES_PER_ORG: 'lots' }, 'MAX_CUSTOM_RULES_PER_ORG'],
    [{ MAX_NOTIFICATIONS_PER_ORG: '-1' }, 'MAX_NOTIFICATIONS_PER_ORG'],
    [{ MAX_GROUPS_PER_ORG: '1.5' }, 'MAX_GROUPS_PER_ORG'],
    [{ MAX_API_CLIENTS_PER_ORG: '1000001' }, 'MAX_API_CLIENTS_PER_ORG'],
    [{ MAX_PROCESSES_PER_ACCOUNT: '0' }, 'MAX_PROCESSES_PER_ACCOUNT'],
    [{ MAX_CUSTOM_RULE_TEXT_PER_ORG: '1000000001' }, 'MAX_CUSTOM_RULE_TEXT_PER_ORG'],
  ])('stops on a quota out of range, %o, naming %s', (env, variable) => {
    expect(() => loadConfig(env)).toThrow(new RegExp(`^${variable}: `));
  });

  it('bounds the HTTP server by default: 5 s idle, 10 s for a request\'s head, 30 s for a whole request, 800 connections, 100 from one address', () => {
    expect(loadConfig({}).http).toEqual({ keepAliveTimeoutMs: 5_000, headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, maxConnections: 800, maxConnectionsPerAddress: 100 });
    const env = { HTTP_KEEP_ALIVE_TIMEOUT_MS: '1000', HTTP_HEADERS_TIMEOUT_MS: '2000', HTTP_REQUEST_TIMEOUT_MS: '2000', HTTP_MAX_CONNECTIONS: '50', HTTP_MAX_CONNECTIONS_PER_ADDRESS: '60' };
    expect(loadConfig(env).http).toEqual({ keepAliveTimeoutMs: 1_000, headersTimeoutMs: 2_000, requestTimeoutMs: 2_000, maxConnections: 50, maxConnectionsPerAddress: 60 });
    expect(configSummary(loadConfig(env)).http).toEqual(loadConfig(env).http);
  });

  it('lets a trusted proxy, whose connections all come from its own address, hold as many as the cap in all by default', () => {
    expect(loadConfig({ TRUST_PROXY: 'loopback', HTTP_MAX_CONNECTIONS: '500' }).http.maxConnectionsPerAddress).toBe(500);
    expect(loadConfig({ TRUST_PROXY: '1' }).http.maxConnectionsPerAddress).toBe(800);
    expect(loadConfig({ TRUST_PROXY: '0' }).http.maxConnectionsPerAddress).toBe(100);
    expect(loadConfig({ TRUST_PROXY: 'loopback', HTTP_MAX_CONNECTIONS_PER_ADDRESS: '20' }).http.maxConnectionsPerAddress).toBe(20);
  });

  it.each([
    [{ HTTP_KEEP_ALIVE_TIMEOUT_MS: '500' }, 'HTTP_KEEP_ALIVE_TIMEOUT_MS'],
    [{ HTTP_HEADERS_TIMEOUT_MS: '5000' }, 'HTTP_HEADERS_TIMEOUT_MS'],
    [{ HTTP_KEEP_ALIVE_TIMEOUT_MS: '20000' }, 'HTTP_HEADERS_TIMEOUT_MS'],
    [{ HTTP_REQUEST_TIMEOUT_MS: '9999' }, 'HTTP_REQUEST_TIMEOUT_MS'],
    [{ HTTP_REQUEST_TIMEOUT_MS: '30s' }, 'HTTP_REQUEST_TIMEOUT_MS'],
    [{ HTTP_MAX_CONNECTIONS: '0' }, 'HTTP_MAX_CONNECTIONS'],
    [{ HTTP_MAX_CONNECTIONS_PER_ADDRESS: '0' }, 'HTTP_MAX_CONNECTIONS_PER_ADDRESS'],
  ])('stops on an HTTP server bound out of range or out of order, %o, naming %s', (env, variable) => {
    expect(() => loadConfig(env)).toThrow(new RegExp(`^${variable}: `));
  });

  it.each([
    [{ PORT: 'eighty' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
    [{ DEMO_DATA: 'maybe' }, 'DEMO_DATA'],
    [{ CONDUCTOR_ROOT_SECRET: 'short' }, 'CONDUCTOR_ROOT_SECRET'],
    [{ VALIDATE_RESPONSES: 'yes' }, 'VALIDATE_RESPONSES'],
    [{ WEBHOOK_ALLOW_PRIVATE: 'yes' }, 'WEBHOOK_ALLOW_PRIVATE'],
    [{ CORS_ORIGINS: 'localhost:5173' }, 'CORS_ORIGINS'],
    [{ CORS_ORIGINS: 'http://localhost:5173/app' }, 'CORS_ORIGINS'],
    [{ LOG_LEVEL: 'verbose' }, 'LOG_LEVEL'],
    [{ METRICS_PORT: 'ninety' }, 'METRICS_PORT'],
    [{ PORT: '9000', METRICS_PORT: '9000' }, 'METRICS_PORT'],
  ])('stops on %o with a message naming %s', (env, variable) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(new RegExp(`^${variable}: `));
  });

  it('never repeats a database URL it refuses, which may hold a password', () => {
    expect(() => loadConfig({ DATABASE_URL: 'mysql://app:hunter2-password@db/app' })).toThrow(/^DATABASE_URL: .*got one starting 'mysql'$/);
    expect(() => loadConfig({ DATABASE_URL: 'mysql://app:hunter2-password@db/app' })).not.toThrow(/hunter2/);
  });
});
