import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it, jest } from '@jest/globals';
import { ManualClock } from '../src/domain/clock.js';
import { DEFAULT_ORGANIZATION } from '../src/domain/organizations/service.js';
import { seedDemoData } from '../src/demo/seed.js';
import { PROJECT_ROOT } from '../src/paths.js';
import { createServices, type Services } from '../src/services.js';
import { DATABASE_TARGETS, openTestDatabase } from './databases.js';
import { expect } from './expect.js';
import { serverEntry } from './server-process.js';

/**
 * The demo API client's credentials file (data/demo-credentials.json) is written once and never overwritten: every
 * database the server seeds with demo data takes its client from it, so the README's curl, which reads the file,
 * works whichever database the server starts on, and going back to an earlier one loses nothing.
 */

/** The README's shell block that reads the demo credentials file and calls both APIs with them. */
async function readmeCurlBlock(): Promise<string> {
  const readme = await readFile(join(PROJECT_ROOT, 'README.md'), 'utf8');
  const block = [...readme.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((match) => match[1]!).find((text) => text.includes('demo-credentials.json'));
  expect(block, 'README.md has a sh block reading data/demo-credentials.json').toBeDefined();
  expect(block).toContain('http://127.0.0.1:3000/v0/environments');
  return block!;
}

interface Answer {
  status: number;
  body: any;
}

/**
 * Runs the README's block as it stands in `dir` (where its `data/` is), against `baseUrl` instead of port 3000. curl
 * is wrapped only to print each answer's status after its body.
 */
function runReadmeCurl(block: string, dir: string, baseUrl: string): Promise<Answer[]> {
  const script = `curl() { command curl -sS --max-time 20 -w '\\n%{http_code}\\n' "$@"; }\nset -e\n${block.replaceAll('http://127.0.0.1:3000', baseUrl)}`;
  return new Promise((resolve, reject) => {
    execFile('bash', ['-c', script], { cwd: dir, timeout: 60_000 }, (error, stdout, stderr) => {
      if (error) return reject(new Error(`the README's commands failed: ${error.message}\n${stdout}\n${stderr}`));
      // Each answer: the body's line, then the status's line.
      const lines = stdout.trim().split('\n');
      const answers: Answer[] = [];
      for (let at = 0; at + 1 < lines.length; at += 2) answers.push({ status: Number(lines[at + 1]), body: JSON.parse(lines[at]!) });
      resolve(answers);
    });
  });
}

interface Running {
  child: ChildProcess;
  baseUrl: string;
  output: () => string;
}

/** The server process with demo data on `databaseUrl`, its files in `data`, as `make run` starts it. */
function startServer(databaseUrl: string, data: string): Promise<Running> {
  const inherited = Object.entries(process.env).filter(
    ([name]) => !['CONDUCTOR_ROOT_SECRET', 'CONSOLE_ADMIN_PASSWORD', 'MOCK_RESET', 'DATABASE_URL'].includes(name),
  );
  const env: NodeJS.ProcessEnv = {
    ...Object.fromEntries(inherited),
    DATABASE_URL: databaseUrl,
    CONDUCTOR_ROOT_SECRET_FILE: join(data, 'conductor-root-secret'),
    CONSOLE_ADMIN_PASSWORD_FILE: join(data, 'console-admin-password'),
    DEMO_DATA: 'true',
    PORT: '0',
  };
  const child = spawn(process.execPath, serverEntry('main'), { cwd: PROJECT_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match) resolve({ child, baseUrl: match[1]!, output: () => output });
    });
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`server exited with ${code} before listening:\n${output}`)));
  });
}

async function stopServer(server: Running): Promise<void> {
  if (server.child.exitCode !== null || server.child.signalCode !== null) return;
  const closed = new Promise((resolve) => server.child.once('close', resolve));
  server.child.kill('SIGTERM');
  await closed;
}

describe('demo credentials across databases', () => {
  let dir: string;
  let other: { url: string; dispose: () => Promise<void> } | undefined;
  let running: Running | undefined;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'demo-credentials-'));
    await mkdir(join(dir, 'data'), { mode: 0o700 });
  });

  afterAll(async () => {
    if (running) await stopServer(running);
    await other?.dispose();
    await rm(dir, { recursive: true, force: true });
  });

  it("the README's curl works on SQLite, then on another database (PostgreSQL when TEST_DATABASE_URL is set), then on SQLite again", async () => {
    const block = await readmeCurlBlock();
    const data = join(dir, 'data');
    const sqlite = `sqlite:${join(data, 'app.db')}`;
    const postgres = DATABASE_TARGETS.find((target) => target.name === 'postgres');
    if (postgres) {
      // A database of this test's own, dropped afterwards; the server migrates and seeds it as any new database.
      const copy = await openTestDatabase(postgres);
      other = { url: copy.target.url, dispose: copy.dispose };
    } else {
      other = { url: `sqlite:${join(dir, 'other.db')}`, dispose: async () => undefined };
    }

    const starts = [
      { name: 'SQLite', url: sqlite, seeds: true },
      { name: postgres ? 'PostgreSQL' : 'a second SQLite database', url: other.url, seeds: true },
      { name: 'SQLite again', url: sqlite, seeds: false },
    ];
    let written: string | undefined;
    for (const start of starts) {
      running = await startServer(start.url, data);
      try {
        const answers = await runReadmeCurl(block, dir, running.baseUrl);
        expect(answers.map((answer) => answer.status), `${start.name}: ${JSON.stringify(answers)}\n${running.output()}`).toEqual([200, 200]);
        // The demo environments of the database the server runs on, seen by the demo client.
        expect(answers[0]!.body.items.map((environment: { provider: string }) => environment.provider).sort(), start.name).toEqual([
          'provider_a',
          'provider_a_gov',
          'provider_b',
        ]);
        expect(running.output().includes('demo data created'), `${start.name}: seeded this start`).toBe(start.seeds);
        expect(running.output(), start.name).not.toMatch(/seeded with a demo API client other than/);
      } finally {
        await stopServer(running);
        running = undefined;
      }
      const file = join(data, 'demo-credentials.json');
      const text = await readFile(file, 'utf8');
      written ??= text;
      expect(text, `${start.name}: the file is as the first start wrote it`).toBe(written);
      expect((await stat(file)).mode & 0o777).toBe(0o600);
    }
    expect(Object.keys(JSON.parse(written!))).toEqual(['client_id', 'client_secret']);
    // Nothing but the files the server keeps is left in data/ (no drafts of the credentials file).
    expect((await readdir(data)).filter((name) => name.includes('demo-credentials'))).toEqual(['demo-credentials.json']);
  }, 600_000);
});

describe('seeding demo data with a credentials file', () => {
  const opened: Array<{ services: Services; dispose: () => Promise<void> }> = [];
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'demo-seed-'));
    // The seed prints the credentials it used, as a server's start does: not wanted among the test's output.
    jest.spyOn(console, 'log').mockImplementation(() => undefined);
  });

  afterAll(async () => {
    jest.restoreAllMocks();
    for (const { services, dispose } of opened.splice(0)) {
      await services.evaluation.close();
      await dispose();
    }
    await rm(dir, { recursive: true, force: true });
  });

  /** Services over a new, empty SQLite database. */
  async function newDatabase(): Promise<Services> {
    const db = await openTestDatabase(DATABASE_TARGETS[0]!);
    const services = createServices(db.handle, new ManualClock());
    opened.push({ services, dispose: db.dispose });
    return services;
  }

  async function demoClientAuthenticates(services: Services, credentials: { client_id: string; client_secret: string }): Promise<boolean> {
    const org = await services.organizations.ensure(DEFAULT_ORGANIZATION);
    const principal = await services.apiClients.authenticate(credentials.client_id, credentials.client_secret, '127.0.0.1');
    return principal?.orgId === org.id;
  }

  it('a new database takes the demo client from an existing file, which is left as it was', async () => {
    const file = join(dir, 'existing.json');
    const text = `${JSON.stringify({ client_id: 'cl_keptAcrossDatabases01', client_secret: 'kept-demo-secret-0123456789' }, null, 2)}\n`;
    await writeFile(file, text, { mode: 0o600 });
    const services = await newDatabase();
    await seedDemoData(services, file);
    expect(await demoClientAuthenticates(services, JSON.parse(text))).toBe(true);
    expect(await readFile(file, 'utf8')).toBe(text);
  }, 120_000);

  it('two databases seeded at once without a file get one demo client: the file is written once, whole', async () => {
    const file = join(dir, 'at-once', 'demo-credentials.json');
    const [first, second] = [await newDatabase(), await newDatabase()];
    await Promise.all([seedDemoData(first, file), seedDemoData(second, file)]);
    const credentials = JSON.parse(await readFile(file, 'utf8')) as { client_id: string; client_secret: string };
    expect(await demoClientAuthenticates(first, credentials)).toBe(true);
    expect(await demoClientAuthenticates(second, credentials)).toBe(true);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(await readdir(join(dir, 'at-once'))).toEqual(['demo-credentials.json']);
  }, 180_000);

  it('a file of another shape stops the seeding, naming the file, and is left as it was', async () => {
    const file = join(dir, 'broken.json');
    await writeFile(file, '{"client_id": 42}\n', { mode: 0o600 });
    const services = await newDatabase();
    await expect(seedDemoData(services, file)).rejects.toThrow(`${file} must hold {"client_id": "cl_…", "client_secret": "…"}`);
    expect(await readFile(file, 'utf8')).toBe('{"client_id": 42}\n');
  });

  it('a start on a database seeded with other credentials says so and changes nothing', async () => {
    const services = await newDatabase();
    await seedDemoData(services, join(dir, 'seeded-with.json'));
    const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      const elsewhere = join(dir, 'elsewhere.json');
      await writeFile(elsewhere, JSON.stringify({ client_id: 'cl_fromAnotherDataDir01', client_secret: 'another-secret-0123456789' }), { mode: 0o600 });
      await seedDemoData(services, elsewhere);
      expect(warn).toHaveBeenCalledTimes(1);
      expect(String(warn.mock.calls[0]![0])).toContain(`other than the one in ${elsewhere}`);
      warn.mockClear();
      // The file it was seeded with: nothing to say.
      await seedDemoData(services, join(dir, 'seeded-with.json'));
      expect(warn).not.toHaveBeenCalled();
    } finally {
      warn.mockRestore();
    }
  }, 120_000);
});
