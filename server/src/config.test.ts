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
