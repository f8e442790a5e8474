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
    });
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
  ])('stops on %o with a message naming %s', (env, variable) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(new RegExp(`^${variable}: `));
  });
});
