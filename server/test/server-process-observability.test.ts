import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { PROJECT_ROOT } from '../src/paths.js';
import { basic } from './server.js';
import { serverEntry } from './server-process.js';

/**
 * The server process as an operator runs it, with METRICS_PORT set and every secret it can be given: its whole
 * output (standard output and error, from start-up to shutdown) is the log a test of secrets must grep, and a
 * Python standard-library script, nothing of this codebase, reads the metrics and the request ids.
 */
const run = promisify(execFile);
const ROOT_SECRET = 'process-log-root-secret-0123456789';
const ADMIN_PASSWORD = 'process-log admin password 42';
const SMTP_PASSWORD = 'process-log-smtp-password';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** Python 3, standard library only: the answers' statuses and X-Request-Id headers, and the scraped metrics. */
const PYTHON_READER = `
import json, sys, urllib.error, urllib.request

def get(url, headers={}):
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=10) as answer:
            return {"status": answer.status, "request_id": answer.headers.get("X-Request-Id"), "type": answer.headers.get("Content-Type"), "text": answer.read().decode()}
    except urllib.error.HTTPError as error:
        return {"status": error.code, "request_id": error.headers.get("X-Request-Id"), "type": error.headers.get("Content-Type"), "text": error.read().decode()}

base, metrics = sys.argv[1], sys.argv[2]
print(json.dumps({
    "kept": get(base + "/v0/environments", {"X-Request-Id": "python-kept-1"}),
    "replaced": get(base + "/v0/environments", {"X-Request-Id": "not kept!"}),
    "metrics_on_main_port": get(base + "/metrics"),
    "metrics": get(metrics + "/metrics"),
}))
`;

interface Answer {
  status: number;
  request_id: string | null;
  type: string | null;
  text: string;
}

describe('the server process: its log and its metrics port', () => {
  let child: ChildProcess;
  let dir: string;
  let output = '';
  let baseUrl = '';
  let metricsUrl = '';
  // 'close', not 'exit': the output is read to its end only once the child's pipes are closed.
  let closed: Promise<number | null>;
  const exited = () => closed;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'process-log-'));
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATABASE_URL: `sqlite:${join(dir, 'app.db')}`,
      CONDUCTOR_ROOT_SECRET: ROOT_SECRET,
      CONDUCTOR_ROOT_SECRET_FILE: join(dir, 'root-secret'),
      CONSOLE_ADMIN_PASSWORD: ADMIN_PASSWORD,
      CONSOLE_ADMIN_PASSWORD_FILE: join(dir, 'admin-password'),
      SMTP_URL: `smtps://mailer:${SMTP_PASSWORD}@127.0.0.1:2465`,
      PORT: '0',
      METRICS_PORT: '0',
      LOG_LEVEL: 'debug',
      DEMO_DATA: 'false',
    };
    child = spawn(process.execPath, serverEntry('main'), { cwd: PROJECT_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    closed = new Promise((resolve) => child.once('close', (code) => resolve(code)));
    await new Promise<void>((resolve, reject) => {
      child.stdout!.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        const listening = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
        const metrics = /metrics on (http:\/\/127\.0\.0\.1:\d+)\/metrics/.exec(output);
        if (listening && metrics) {
          [baseUrl, metricsUrl] = [listening[1]!, metrics[1]!];
          resolve();
        }
      });
      child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.once('exit', (code) => reject(new Error(`server exited with ${code} before listening:\n${output}`)));
    });
  }, 60_000);

  afterAll(async () => {
    if (child && child.exitCode === null) {
      child.kill('SIGTERM');
      await exited();
    }
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('answers X-Request-Id to a Python client and serves the metrics on METRICS_PORT only', async () => {
    const { stdout } = await run('python3', ['-c', PYTHON_READER, baseUrl, metricsUrl], { timeout: 30_000 });
    const answers = JSON.parse(stdout) as Record<'kept' | 'replaced' | 'metrics_on_main_port' | 'metrics', Answer>;
    expect(answers.kept).toMatchObject({ status: 401, request_id: 'python-kept-1' });
    expect(answers.replaced.status).toBe(401);
    expect(answers.replaced.request_id).toMatch(UUID);
    // With METRICS_PORT set, the main port has no /metrics.
    expect(answers.metrics_on_main_port.status).toBe(404);
    expect(answers.metrics).toMatchObject({ status: 200, type: 'text/plain; version=0.0.4; charset=utf-8' });
    expect(answers.metrics.text).toMatch(/^http_request_duration_seconds_count\{api="compliance",operation_id="listEnvironments",status="401"\} 2$/m);
    expect(answers.metrics.text).toMatch(/^process_cpu_user_seconds_total \d/m);
    expect(answers.metrics.text).toMatch(/^nodejs_eventloop_lag_seconds \d/m);
  });

  it('writes JSON lines from start-up to shutdown, and none of the secrets it was given or sent', async () => {
    const secrets = [ROOT_SECRET, ADMIN_PASSWORD, SMTP_PASSWORD];
    // The console admin signs in, creates an API client and has its secret issued; the client and root call.
    const signedIn = await fetch(`${baseUrl}/console/api/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'admin@example.com', password: ADMIN_PASSWORD }),
    });
    expect(signedIn.status).toBe(200);
    const cookie = signedIn.headers.get('set-cookie')!.split(';')[0]!;
    const { csrf_token: csrf } = (await signedIn.json()) as { csrf_token: string };
    secrets.push(cookie.slice(cookie.indexOf('=') + 1), csrf);
    const browser = { cookie, 'x-csrf-token': csrf, 'content-type': 'application/json' };
    const created = await fetch(`${baseUrl}/console/api/api-clients`, { method: 'POST', headers: browser, body: JSON.stringify({ name: 'process-log-client' }) });
    expect(created.status).toBe(201);
    const { client_id: clientId } = (await created.json()) as { client_id: string };
    const issued = await fetch(`${baseUrl}/console/api/api-clients/${clientId}/secret`, { method: 'POST', headers: browser });
    expect(issued.status).toBe(201);
    const { client_secret: clientSecret } = (await issued.json()) as { client_secret: string };
    secrets.push(clientSecret);
    const listed = await fetch(`${baseUrl}/v0/environments`, { headers: { authorization: basic(clientId, clientSecret), 'x-request-id': 'process-list-1' } });
    expect(listed.status).toBe(200);
    const asRoot = await fetch(`${baseUrl}/api/v0/accounts`, { headers: { authorization: basic('root', ROOT_SECRET) } });
    expect(asRoot.status).toBe(200);

    child.kill('SIGTERM');
    expect(await exited()).toBe(0);

    for (const secret of secrets) expect(output.includes(secret)).toBe(false);
    const lines = output.trimEnd().split('\n');
    const records = lines.map((line) => JSON.parse(line) as Record<string, any>);
    expect(records[0]).toMatchObject({ level: 30, msg: 'starting', config: { smtp: 'smtps://127.0.0.1:2465', conductorRootSecret: 'set', consoleAdminPassword: 'set', logLevel: 'debug', metrics: expect.stringMatching(/^GET \/metrics on port 0$/) } });
    expect(records.map((record) => record.msg)).toEqual(expect.arrayContaining(['SIGTERM received: draining', 'stopped']));
    expect(records.at(-1)!.msg).toBe('stopped');
    expect(records.find((record) => record.requestId === 'process-list-1')).toMatchObject({
      api: 'compliance',
      operationId: 'listEnvironments',
      status: 200,
      caller: clientId,
      durationMs: expect.any(Number),
    });
  });
});
