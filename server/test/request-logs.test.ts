import { afterAll, beforeAll, beforeEach, it } from '@jest/globals';
import { createEnvironment } from './compliance.js';
import { compositionTar, conductorClient, WEB_RESOURCES } from './conductor.js';
import { CapturedLog } from './captured-log.js';
import { describeEachDatabase } from './databases.js';
import { basic, ROOT_SECRET, useTestServer, type TestServer, type TestServerOptions } from './server.js';
import { expect } from './expect.js';
import { WebhookReceiver } from './webhook-receiver.js';

const PASSWORD = 'log-test password: correct horse battery';
const WEBHOOK_SECRET = 'log-test-webhook-secret-0123456789';
const FAILING_OPERATION = 'listNotifications';

describeEachDatabase(
  'the log',
  (db) => {
    const log = new CapturedLog();
    const receiver = new WebhookReceiver();
    const options: TestServerOptions = {
      requestLog: log.logger,
      log: log.logger,
      simulator: { driftRate: 0.3 },
      notifications: { webhookAllowPrivate: true },
      // A handler that fails, to see how a server error is logged.
      beforeHandler: (_api, operationId) => {
        if (operationId === FAILING_OPERATION) throw new Error('injected failure of the notifications store');
      },
    };
    beforeAll(() => receiver.start());
    afterAll(() => receiver.stop());
    const testServer = useTestServer(db, options);
    let server: TestServer;
    beforeEach(() => {
      server = testServer();
    });

    it('has one line per request with its id, API, operationId, status, duration and caller, and none of the secrets the requests carried', async () => {
      const secrets: string[] = [ROOT_SECRET, PASSWORD, WEBHOOK_SECRET];
      const sent = (id: string) => ({ 'x-request-id': id });
      // The test client's own API client secret.
      const testClientSecret = Buffer.from(server.auth.slice('Basic '.length), 'base64').toString().split(':')[1]!;
      secrets.push(testClientSecret, server.auth);

      // The console: sign in (password), then act with the session cookie and the CSRF token.
      const email = `logged-${Date.now()}@example.com`;
      await server.services.consoleAuth.createUser(server.orgId, email, PASSWORD);
      const wrongPassword = await server.request('POST', '/console/api/session', { body: { email, password: `${PASSWORD} nope` }, auth: null, headers: sent('sign-in-wrong') });
      expect(wrongPassword.status).toBe(401);
      secrets.push(`${PASSWORD} nope`);
      const signedIn = await server.request('POST', '/console/api/session', { body: { email, password: PASSWORD }, auth: null, headers: sent('sign-in') });
      expect(signedIn.status, signedIn.text).toBe(200);
      const cookie = signedIn.headers.get('set-cookie')!.split(';')[0]!;
      const csrf = signedIn.body.csrf_token as string;
      secrets.push(cookie.split('=')[1]!, csrf);
      const asBrowser = { cookie, 'x-csrf-token': csrf };
      const client = await server.request('POST', '/console/api/api-clients', { body: { name: 'logged-client' }, auth: null, headers: { ...asBrowser, ...sent('create-client') } });
      expect(client.status, client.text).toBe(201);
      const issued = await server.request('POST', `/console/api/api-clients/${client.body.client_id}/secret`, { auth: null, headers: { ...asBrowser, ...sent('issue-secret') } });
      expect(issued.status, issued.text).toBe(201);
      const clientSecret = issued.body.client_secret as string;
      secrets.push(clientSecret);
      const badCsrf = await server.request('POST', '/console/api/api-clients', { body: { name: 'refused' }, auth: null, headers: { cookie, 'x-csrf-token': `${csrf}x`, ...sent('bad-csrf') } });
      expect(badCsrf.status).toBe(403);

      // The compliance API with the new client's secret, and with a wrong one.
      const auth = basic(client.body.client_id as string, clientSecret);
      secrets.push(auth);
      const listed = await server.request('GET', '/v0/environments?max_items=5', { auth, headers: sent('list-environments') });
      expect(listed.status).toBe(200);
      const refused = await server.request('GET', '/v0/environments', { auth: basic(client.body.client_id as string, `${clientSecret}-wrong`), headers: sent('wrong-secret') });
      expect(refused.status).toBe(401);
      secrets.push(`${clientSecret}-wrong`);
      const env = await createEnvironment(server, { name: 'logged-env' });
      const notification = await server.request('POST', '/v0/notifications', {
        body: { name: 'hook', events: ['drift'], environments: [env.id], webhook_url: receiver.url, webhook_secret: WEBHOOK_SECRET },
        headers: sent('create-notification'),
      });
      expect(notification.status, notification.text).toBe(201);

      // The conductor as root.
      const conductor = await server.request('GET', '/api/v0/accounts', { auth: server.rootAuth, headers: sent('conductor-accounts') });
      expect(conductor.status).toBe(200);

      const text = log.text;
      for (const secret of secrets) expect(text.includes(secret), `the log holds a secret (${secret.slice(0, 4)}…)`).toBe(false);
      // No header is logged; a refusal's message may name one ("The X-CSRF-Token header is missing…").
      const withoutProblems = JSON.stringify(log.records().map(({ problem: _problem, ...record }) => record));
      expect(withoutProblems).not.toMatch(/authorization|cookie|x-csrf-token|Basic /i);

      const line = (id: string) => log.requestLine(id);
      expect(line('list-environments')).toMatchObject({
        level: 30,
        requestId: 'list-environments',
        api: 'compliance',
        operationId: 'listEnvironments',
        method: 'GET',
        path: '/v0/environments',
        status: 200,
        durationMs: expect.any(Number),
        caller: client.body.client_id,
        msg: 'GET /v0/environments 200',
      });
      expect(line('wrong-secret')).toMatchObject({ api: 'compliance', operationId: 'listEnvironments', status: 401 });
      expect(line('wrong-secret')).not.toHaveProperty('caller');
      expect(line('sign-in')).toMatchObject({ api: 'console', operationId: 'signIn', status: 200 });
      expect(line('sign-in-wrong')).toMatchObject({ api: 'console', operationId: 'signIn', status: 401 });
      expect(line('create-client')).toMatchObject({ api: 'console', operationId: 'createApiClient', status: 201, caller: email });
      expect(line('bad-csrf')).toMatchObject({ api: 'console', operationId: 'createApiClient', status: 403 });
      expect(line('conductor-accounts')).toMatchObject({ api: 'conductor', operationId: 'listAccounts', status: 200, caller: 'root' });
      // Exactly one line per request.
      expect(log.records().filter((record) => record.requestId === 'list-environments')).toHaveLength(1);
    });

    it('logs what was wrong with a refused request, as answered, never the values sent', async () => {
      const sentValue = 'value-sent-by-the-caller-7c1e';
      const refused = await server.request('GET', `/v0/environments?unknown_parameter=${sentValue}`, { headers: { 'x-request-id': 'refused-request' } });
      expect(refused.status).toBe(400);
      const line = log.requestLine('refused-request');
      expect(line).toMatchObject({ level: 30, operationId: 'listEnvironments', status: 400, problem: refused.body.message });
      expect(line!.problem).toContain('unknown_parameter');
      expect(JSON.stringify(line)).not.toContain(sentValue);
      const wrongType = await server.request('PATCH', '/v0/environments/00000000-0000-4000-8000-000000000000', { body: { name: 12345 }, headers: { 'x-request-id': 'wrong-type' } });
      expect(wrongType.status).toBe(400);
      expect(log.requestLine('wrong-type')).toMatchObject({ status: 400, problem: wrongType.body.message });
    });

    it('logs a server error at level error, with the error and its stack', async () => {
      const failed = await server.request('GET', '/v0/notifications', { headers: { 'x-request-id': 'failing-request' } });
      expect(failed.status).toBe(500);
      const line = log.requestLine('failing-request');
      expect(line).toMatchObject({ level: 50, operationId: FAILING_OPERATION, status: 500, err: { message: 'injected failure of the notifications store', stack: expect.stringContaining('Error') } });
      // What the client sees says nothing of it.
      expect(failed.text).not.toContain('injected failure');
    });

    it('logs the jobs a request started with the job id, kind, attempt and the request’s id', async () => {
      const env = await createEnvironment(server, { name: 'scanned' });
      const started = await server.request('POST', `/v0/scans?environment_id=${env.id}`, { headers: { 'x-request-id': 'start-scan-7' } });
      expect(started.status).toBe(201);
      while (await server.services.jobs.runOnce());
      const jobLines = log.records().filter((record) => record.requestId === 'start-scan-7' && record.jobId !== undefined);
      expect(jobLines.map((record) => record.msg)).toEqual(['job started', 'job succeeded']);
      for (const record of jobLines) expect(record).toMatchObject({ kind: 'scan', requestId: 'start-scan-7', attempt: 1, maxAttempts: 2, jobId: expect.any(String) });

      const conductor = conductorClient(() => server);
      const account = await conductor.addAccount();
      const dryRun = await server.request('POST', `/api/v0/dry-run?command=run&account=${account.name}`, {
        auth: server.rootAuth,
        body: await compositionTar(WEB_RESOURCES),
        headers: { 'x-request-id': 'dry-run-3' },
      });
      expect(dryRun.status, dryRun.text).toBe(202);
      await conductor.runJobs();
      const dryRunLines = log.records().filter((record) => record.requestId === 'dry-run-3' && record.jobId !== undefined);
      expect(dryRunLines.map((record) => [record.kind, record.msg])).toEqual([
        ['conductor.dry-run', 'job started'],
        ['conductor.dry-run', 'job succeeded'],
      ]);

      server.services.jobs.register(
        'always-fails',
        async () => {
          throw new Error('the cloud is unreachable');
        },
        async () => {},
      );
      const failing = await server.services.jobs.enqueue('always-fails', {}, { maxAttempts: 2 });
      await server.services.jobs.runOnce();
      server.clock.advanceSeconds(60);
      await server.services.jobs.runOnce();
      const failures = log.records().filter((record) => record.jobId === failing.id);
      expect(failures.map((record) => [record.level, record.msg])).toEqual([
        [30, 'job started'],
        [40, 'job failed, retrying in 1 s'],
        [30, 'job started'],
        [50, 'job failed on its last attempt, giving up'],
      ]);
      expect(failures[3]).toMatchObject({ kind: 'always-fails', attempt: 2, maxAttempts: 2, err: { message: 'the cloud is unreachable' } });
    });
  },
  'suite',
);
