import { describe, expect, it } from '@jest/globals';
import { ConfigError, loadConfig } from './config.js';

describe('configuration of email notifications', () => {
  it('has no SMTP server by default, and sends from compliance@localhost', () => {
    expect(loadConfig({})).toMatchObject({ smtpUrl: undefined, smtpFrom: 'compliance@localhost' });
  });

  it('reads SMTP_URL and SMTP_FROM', () => {
    const config = loadConfig({ SMTP_URL: 'smtps://mailer:pw@smtp.example.com:465', SMTP_FROM: 'Compliance <alerts@example.com>' });
    expect(config).toMatchObject({ smtpUrl: 'smtps://mailer:pw@smtp.example.com:465', smtpFrom: 'Compliance <alerts@example.com>' });
    expect(loadConfig({ SMTP_URL: 'smtp://127.0.0.1:2525' }).smtpUrl).toBe('smtp://127.0.0.1:2525');
  });

  it.each([
    [{ SMTP_URL: 'http://smtp.example.com' }, 'SMTP_URL'],
    [{ SMTP_URL: 'smtp.example.com:25' }, 'SMTP_URL'],
    [{ SMTP_FROM: 'not an address' }, 'SMTP_FROM'],
  ])('stops on %o with a message naming %s', (env, variable) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(new RegExp(`^${variable}: `));
  });

  it('does not repeat a password from a bad SMTP_URL', () => {
    expect(() => loadConfig({ SMTP_URL: 'http://user:hunter2-secret@smtp.example.com' })).toThrow(/^SMTP_URL: (?!.*hunter2)/);
  });
});
