import { afterEach, beforeEach, it } from '@jest/globals';
import { DatabaseOutage, FAULT_MARKER } from '../../contract-tests/statuses/faults.js';
import { SESSION_COOKIE } from '../src/http/console/cookies.js';
import { CapturedLog } from './captured-log.js';
import { describeEachDatabase } from './databases.js';
import { useTestServer, type TestServer } from './server.js';
import { expect } from './expect.js';

/**
 * When the credentials cannot be checked (the database is down), the caller gets the API's 500, not a 401 that
 * would tell it its credentials are wrong; the cause goes to the log only.
 */
describeEachDatabase(
  'credentials that cannot be checked',
  (db) => {
    const outage = new DatabaseOutage();
    const log = new CapturedLog();
    const testServer = useTestServer(db, { databasePlugins: [outage], requestLog: log.logger });
    let server: TestServer;
    beforeEach(() => {
      server = testServer();
      outage.begin();
    });
    afterEach(() => {
      outage.end();
    });

    it.each([
      ['compliance', '/v0/environments', (): string | null => server.auth],
      ['conductor', '/api/v0/accounts', (): string | null => server.rootAuth],
      ['console', '/console/api/session', (): string | null => null],
    ] as const)('answers 500 on the %s API', async (api, path, auth) => {
      const res = await server.request('GET', path, {
        auth: auth(),
        headers: { 'x-request-id': `outage-${api}`, ...(api === 'console' && { cookie: `${SESSION_COOKIE}=some-session-token` }) },
      });
      expect(res.status, res.text).toBe(500);
      expect(res.body.message).toBe('Internal server error');
      expect(res.headers.get('www-authenticate')).toBeNull();
      expect(res.text).not.toContain(FAULT_MARKER);
      expect(log.requestLine(`outage-${api}`)).toMatchObject({ level: 50, status: 500, err: { message: expect.stringContaining(FAULT_MARKER) } });
      expect(outage.refused.length).toBeGreaterThan(0);
    });
  },
  'suite',
);
