import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { PROJECT_ROOT } from '../src/paths.js';
import { serverEntry } from './server-process.js';

/**
 * Scripts written for the public service, run as their users run them against the real server with demo data: a
 * separate process, its own HTTP stack and query encoding, nothing of this codebase.
 */
const ROOT_SECRET = 'outside-clients-root-secret-0123';
const PYTHON_CLIENT = join(PROJECT_ROOT, 'contract-tests/outside/python_client.py');
const CSV_COLUMNS = 'environment_id,environment_name,scan_id,family,rule,rule_id,severity,result,failed_resource_count';

interface Running {
  child: ChildProcess;
  baseUrl: string;
  dir: string;
  output: () => string;
}

/** `node --import tsx server/src/main.ts` with demo data on a scratch SQLite database, on any free port. */
async function startDemoServer(): Promise<Running> {
  const dir = await mkdtemp(join(tmpdir(), 'outside-clients-'));
  const data = join(dir, 'data');
  await mkdir(data, { mode: 0o700 });
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: `sqlite:${join(data, 'app.db')}`,
    CONDUCTOR_ROOT_SECRET: ROOT_SECRET,
    // The demo client's credentials are written beside the root secret's file.
    CONDUCTOR_ROOT_SECRET_FILE: join(data, 'conductor-root-secret'),
    CONSOLE_ADMIN_PASSWORD_FILE: join(data, 'console-admin-password'),
    PORT: '0',
    DEMO_DATA: 'true',
  };
  const child = spawn(process.execPath, serverEntry('main'), { cwd: PROJECT_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match) resolve({ child, baseUrl: match[1]!, dir, output: () => output });
    });
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`server exited with ${code} before listening:\n${output}`)));
  });
}

/** The cells of one CSV line as Python's csv module writes it (quoted where a cell holds a comma or a quote). */
function csvCells(line: string): string[] {
  const cells: string[] = [];
  const cell = /(?:"((?:[^"]|"")*)"|([^,]*))(,|$)/y;
  while (cell.lastIndex < line.length || cells.length === 0) {
    const match = cell.exec(line);
    if (!match) throw new Error(`not a CSV line: ${line}`);
    cells.push(match[1] !== undefined ? match[1].replace(/""/g, '"') : match[2]!);
    if (match[3] === '') break;
  }
  return cells;
}

function runPython(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('python3', [PYTHON_CLIENT, ...args], { cwd: PROJECT_ROOT, timeout: 60_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

describe('outside clients against the server with demo data', () => {
  let server: Running;
  let credentials: { client_id: string; client_secret: string };

  beforeAll(async () => {
    server = await startDemoServer();
    credentials = JSON.parse(await readFile(join(server.dir, 'data', 'demo-credentials.json'), 'utf8'));
  }, 60_000);

  afterAll(async () => {
    if (server) {
      const exited = new Promise((resolve) => server.child.once('exit', resolve));
      server.child.kill('SIGTERM');
      await exited;
      await rm(server.dir, { recursive: true, force: true });
    }
  });

  it('a Python standard-library script pages compliance results into a CSV and reads conductor history and ops by time range', async () => {
    const csvPath = join(server.dir, 'compliance_by_rules.csv');
    const pageSize = 40;
    const run = await runPython([
      '--base-url', server.baseUrl,
      '--client-id', credentials.client_id,
      `--client-secret=${credentials.client_secret}`,
      '--root-secret', ROOT_SECRET,
      '--process', 'web-frontend',
      '--csv', csvPath,
      '--page-size', String(pageSize),
    ]);
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: expect.any(String) });
    const summary = JSON.parse(run.stdout) as {
      environments: number;
      scanned_environments: number;
      rows: number;
      result_pages: number;
      resource_types: number;
      listed_failures: number;
      CIS_resource_types: number;
      CIS_listed_failures: number;
      conductor: { history: number; ops: number; start: string; end: string };
    };

    const [header, ...rows] = (await readFile(csvPath, 'utf8')).trimEnd().split(/\r?\n/);
    expect(header).toBe(CSV_COLUMNS);
    expect(rows.length).toBe(summary.rows);
    // Paging really happened: more results than one page holds, over more pages than environments.
    expect(summary.rows).toBeGreaterThan(pageSize);
    expect(summary.result_pages).toBeGreaterThan(summary.scanned_environments);
    // The demo's three environments all have a finished successful scan.
    expect(summary).toMatchObject({ environments: 3, scanned_environments: 3 });
    const columns = CSV_COLUMNS.split(',').length;
    const table = rows.map(csvCells);
    for (const cells of table) {
      expect(cells).toHaveLength(columns);
      expect(['PASS', 'FAIL', 'UNKNOWN']).toContain(cells[7]);
      expect(cells[8]).toMatch(/^\d+$/);
    }
    expect(new Set(table.map((cells) => cells[0])).size).toBe(3);
    // Results by resource type, of every family and of CIS only, paged to the end: the script checked each type's
    // counts and listed failures; every type of a scan has an item, and CIS rules fail fewer resources than all.
    expect(summary.resource_types).toBeGreaterThan(summary.scanned_environments);
    expect(summary.CIS_resource_types).toBe(summary.resource_types);
    expect(summary.listed_failures).toBeGreaterThan(0);
    expect(summary.CIS_listed_failures).toBeGreaterThan(0);
    expect(summary.CIS_listed_failures).toBeLessThanOrEqual(summary.listed_failures);

    // The time range the script sent (`+` for the space, as urlencode writes it) returned the whole history.
    expect(summary.conductor.start).toMatch(/^\d{2}\/\d{2}\/\d{4} \d{2}:\d{2}$/);
    expect(summary.conductor.history).toBeGreaterThan(0);
    expect(summary.conductor.ops).toBeGreaterThan(0);
  }, 120_000);

  it('the script exits non-zero on a surprise: credentials the server refuses', async () => {
    const run = await runPython([
      '--base-url', server.baseUrl,
      '--client-id', credentials.client_id,
      '--client-secret', 'not-the-secret',
      '--root-secret', ROOT_SECRET,
      '--csv', join(server.dir, 'refused.csv'),
    ]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^surprise: GET .*\/v0\/environments.*: 401/);
  }, 60_000);
});
