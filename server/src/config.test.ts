import { describe, expect, it } from '@jest/globals';
import { ConfigError, loadConfig } from './config.js';

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
    });
  });

  it('reads CORS_ORIGINS as * or a list of origins, and the stateful mock allows every origin', () => {
    expect(loadConfig({ CORS_ORIGINS: '*' }).corsOrigins).toBe('*');
    expect(loadConfig({ CORS_ORIGINS: 'http://localhost:5173, https://app.example.com' }).corsOrigins).toEqual(['http://localhost:5173', 'https://app.example.com']);
    expect(loadConfig({ MOCK_RESET: 'true', DATABASE_URL: 'sqlite:/tmp/mock.db' }).corsOrigins).toBe('*');
    expect(loadConfig({ MOCK_RESET: 'true', DATABASE_URL: 'sqlite:/tmp/mock.db', CORS_ORIGINS: 'http://localhost:5173' }).corsOrigins).toEqual(['http://localhost:5173']);
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
  ])('stops on %o with a message naming %s', (env, variable) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(new RegExp(`^${variable}: `));
  });
});
