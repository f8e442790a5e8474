import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import type { Browser, Page } from 'playwright-core';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { errorShapeProblem } from '../../../contract-tests/property/checks.js';
import { startMock, type Mock } from '../../../contract-tests/prism/mocks.js';
import { freePort, start, waitForHttp, type Started } from '../../../contract-tests/processes.js';
import { LARGE, largeLatestScanId } from '../../src/demo/large.js';
import { MOCK_DEMO_CLIENT } from '../../src/demo/mock.js';
import { withNullInNullableEnums } from '../../src/http/apis.js';
import { PROJECT_ROOT } from '../../src/paths.js';
import { hasChromium, launchChromium } from './chromium.js';
import { serverEntry } from '../server-process.js';

/**
 * A frontend on a second local origin steering the stateful mock from a real browser: an error state through
 * `Prefer: code=500`, then the `empty` scenario's empty list, then the `large` one paged to its end at the largest
 * page; and the Prism mock and the stateful mock answering the same `Prefer: code=…`, in bodies that both validate
 * against the spec.
 */
const PAGE = `<!doctype html><meta charset="utf-8"><title>environments</title>
<p id="state">not loaded</p><ul id="environments"></ul>
<script>
  const authorization = 'Basic ' + btoa('${MOCK_DEMO_CLIENT.client_id}:${MOCK_DEMO_CLIENT.client_secret}');
  const state = (text, kind) => Object.assign(document.getElementById('state'), { textContent: text, className: kind });
  // What a list page of a frontend does: every page of the environments until the last, or the error it got.
  window.showEnvironments = async (api, prefer) => {
    const list = document.getElementById('environments');
    list.replaceChildren();
    let offset = 0;
    let pages = 0;
    for (;;) {
      const answer = await fetch(api + '/v0/environments?max_items=1000&offset=' + offset, { headers: { authorization, ...(prefer && { prefer }) } });
      const body = await answer.json();
      pages += 1;
      if (!answer.ok) {
        state('could not list the environments: ' + answer.status + ' ' + body.message, 'error');
        return { status: answer.status, body, pages };
      }
      list.append(...body.items.map((env) => Object.assign(document.createElement('li'), { textContent: env.name })));
      if (!body.is_truncated) break;
      offset = body.next_offset;
    }
    state(list.children.length === 0 ? 'no environments yet' : list.children.length + ' environments', list.children.length === 0 ? 'empty' : 'list');
    return { status: 200, pages, shown: list.children.length, last: list.lastElementChild && list.lastElementChild.textContent };
  };
  // A results table read to its end: the rows of a scan's results by rule, page after page.
  window.countResults = async (api, scanId) => {
    let offset = 0;
    let pages = 0;
    let rows = 0;
    for (;;) {
      const answer = await fetch(api + '/v0/scans/' + scanId + '/compliance_by_rules?max_items=1000&offset=' + offset, { headers: { authorization } });
      const body = await answer.json();
      if (!answer.ok) return { status: answer.status, body };
      pages += 1;
      rows += body.items.length;
      if (!body.is_truncated) return { status: 200, pages, rows };
      offset = body.next_offset;
    }
  };
  window.loadScenario = async (mock, name) => {
    const answer = await fetch(mock + '/mock/scenarios/' + name, { method: 'POST' });
    return { status: answer.status, body: await answer.json() };
  };
  window.preferred = async (api, code) => {
    const answer = await fetch(api + '/v0/environments', { headers: { authorization, prefer: 'code=' + code } });
    return { status: answer.status, body: await answer.json() };
  };
</script>`;

type Json = Record<string, unknown>;

/** Checks bodies against the compliance API's generated OpenAPI document, as the server's validator reads it. */
async function responseValidator(): Promise<(operationId: string, status: number, body: unknown) => string | undefined> {
  const doc = parse(await readFile(join(PROJECT_ROOT, 'generated', 'compliance', 'openapi.yaml'), 'utf8')) as Json;
  withNullInNullableEnums(doc);
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isSafeInteger(n) });
  ajv.addFormat('int32', { type: 'number', validate: (n: number) => Number.isInteger(n) });
  ajv.addSchema(doc, 'compliance');
  return (operationId, status, body) => {
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, Json>>)) {
      for (const [method, operation] of Object.entries(item)) {
        if (operation.operationId !== operationId) continue;
        const declared = (operation.responses as Record<string, Json>)[String(status)];
        if (!declared) return `${operationId} does not declare ${status}`;
        const escape = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');
        const pointer =
          typeof declared.$ref === 'string'
            ? `${declared.$ref.slice(1)}/content/application~1json/schema`
            : `/paths/${escape(path)}/${method}/responses/${status}/content/application~1json/schema`;
        const validate = ajv.getSchema(`compliance#${pointer}`) ?? ajv.compile({ $ref: `compliance#${pointer}` });
        return validate(body) ? undefined : ajv.errorsText(validate.errors);
      }
    }
    return `no operation ${operationId}`;
  };
}

const describeBrowser = hasChromium ? describe : describe.skip;

describeBrowser('a page on another origin steering the stateful mock in chromium', () => {
  let frontend: Server;
  let dir: string;
  let mock: Started;
  let mockUrl = '';
  let prism: Mock;
  let browser: Browser;
  let page: Page;
  let problem: Awaited<ReturnType<typeof responseValidator>>;

  beforeAll(async () => {
    frontend = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE));
    await new Promise<void>((resolve) => frontend.listen(0, '127.0.0.1', resolve));
    dir = await mkdtemp(join(tmpdir(), 'mock-scenarios-browser-'));
    const port = await freePort();
    mockUrl = `http://127.0.0.1:${port}`;
    // The stateful mock as `make mock` starts it: CORS_ORIGINS=*, the mock's own credentials.
    mock = start(
      process.execPath,
      serverEntry('main'),
      {
        ...process.env,
        MOCK_RESET: 'true',
        DEMO_DATA: 'true',
        CORS_ORIGINS: '*',
        CONDUCTOR_ROOT_SECRET: '',
        CONSOLE_ADMIN_PASSWORD: '',
        DATABASE_URL: `sqlite:${join(dir, 'mock.db')}`,
        CONDUCTOR_ROOT_SECRET_FILE: join(dir, 'conductor-root-secret'),
        CONSOLE_ADMIN_PASSWORD_FILE: join(dir, 'console-admin-password'),
        PORT: String(port),
      },
      PROJECT_ROOT,
    );
    // At once; each kept as it comes, so that what started is stopped whatever else failed.
    const starting = await Promise.allSettled([
      startMock(PROJECT_ROOT, 'compliance', 0).then((started) => (prism = started)),
      launchChromium().then((launched) => (browser = launched)),
      responseValidator().then((validator) => (problem = validator)),
      waitForHttp(`${mockUrl}/healthz`, mock, 120_000),
    ]);
    for (const outcome of starting) if (outcome.status === 'rejected') throw outcome.reason;
    page = await browser.newPage();
    await page.goto(`http://127.0.0.1:${(frontend.address() as AddressInfo).port}`);
  }, 150_000);

  afterAll(async () => {
    await browser?.close();
    await prism?.stop();
    await mock?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
    await new Promise((resolve) => frontend?.close(resolve));
  });

  const showEnvironments = (api: string, prefer?: string) =>
    page.evaluate(
      ([base, preference]) =>
        (globalThis as unknown as { showEnvironments(a: string, p?: string): Promise<{ status: number; body?: unknown; pages: number; shown?: number; last?: string }> }).showEnvironments(
          base!,
          preference,
        ),
      [api, prefer] as const,
    );
  const loadScenario = (name: string) =>
    page.evaluate(([base, scenario]) => (globalThis as unknown as { loadScenario(m: string, n: string): Promise<{ status: number; body: unknown }> }).loadScenario(base!, scenario!), [mockUrl, name] as const);

  /** Makes `large` (the mock makes it when first loaded, in seconds), so that the page's load of it is timed alone. */
  async function makeLarge(): Promise<void> {
    const answer = await fetch(`${mockUrl}/mock/scenarios/large`, { method: 'POST' });
    if (answer.status !== 200) throw new Error(`the large scenario was not made: ${answer.status} ${await answer.text()}\n${mock.output()}`);
  }

  it('shows an error through Prefer: code=500, an empty list in the empty scenario, and pages to the end of the large one', async () => {
    const failed = await showEnvironments(mockUrl, 'code=500');
    expect(failed).toMatchObject({ status: 500, pages: 1 });
    expect(await page.locator('#state.error').textContent()).toMatch(/^could not list the environments: 500 \S/);
    expect(problem('listEnvironments', 500, failed.body)).toBeUndefined();

    expect(await loadScenario('empty')).toEqual({ status: 200, body: { scenario: 'empty', duration_ms: expect.any(Number) } });
    expect(await showEnvironments(mockUrl)).toEqual({ status: 200, pages: 1, shown: 0, last: null });
    expect(await page.locator('#state.empty').textContent()).toBe('no environments yet');

    await makeLarge();
    const loaded = await loadScenario('large');
    expect(loaded).toEqual({ status: 200, body: { scenario: 'large', duration_ms: expect.any(Number) } });
    console.log(`stateful mock scenario large, loaded from the page: ${(loaded.body as { duration_ms: number }).duration_ms} ms in the server`);
    // Newest first: the last of the list is the first made.
    expect(await showEnvironments(mockUrl)).toEqual({ status: 200, pages: 1, shown: LARGE.environments, last: 'large-0001' });
    expect(await page.locator('#state.list').textContent()).toBe(`${LARGE.environments} environments`);
    expect(await page.locator('#environments li').count()).toBe(LARGE.environments);
    const results = await page.evaluate(
      ([base, scan]) => (globalThis as unknown as { countResults(a: string, s: string): Promise<unknown> }).countResults(base!, scan!),
      [mockUrl, largeLatestScanId(1)] as const,
    );
    expect(results).toEqual({ status: 200, pages: LARGE.resultsPerScan / 1000, rows: LARGE.resultsPerScan });
  }, 180_000);

  it('gets the same Prefer: code=… from the Prism mock and the stateful mock, in bodies that both validate', async () => {
    for (const code of [400, 401, 429, 500, 503]) {
      const answers = await Promise.all(
        [prism.url, mockUrl].map((base) =>
          page.evaluate(([api, status]) => (globalThis as unknown as { preferred(a: string, c: number): Promise<{ status: number; body: unknown }> }).preferred(api!, status!), [base, code] as const),
        ),
      );
      for (const [i, answer] of answers.entries()) {
        const which = `${i === 0 ? 'Prism' : 'stateful'} mock, code=${code}`;
        expect({ which, status: answer.status }).toEqual({ which, status: code });
        expect({ which, problem: problem('listEnvironments', code, answer.body) }).toEqual({ which, problem: undefined });
        expect({ which, problem: errorShapeProblem('compliance', code, answer.body) }).toEqual({ which, problem: undefined });
      }
      // Both answer the example the spec gives for that status.
      expect({ code, body: answers[1]!.body }).toEqual({ code, body: answers[0]!.body });
    }
  }, 60_000);
});
