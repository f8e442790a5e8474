import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { startProxy, type MockApi } from '../prism/mocks.js';
import { ALLOWED, type AllowedDifference } from './allowed.js';
import { exampleRequests, loadSpec } from './examples.js';
import { ServerFixtures, type ServerAccess } from './fixtures.js';
import { runParity, type OperationParity, type RecordServerAnswer } from './parity.js';
import { runProxyPass, type ProxyResult } from './proxy.js';

/**
 * Both halves of `make contract`'s mock parity step, per API: the parity suite (the mock at `mockUrl` against the
 * real server) and the prism proxy pass (in front of the same server). `finish` writes reports/mock-parity.json and
 * reports/prism-proxy.json and says what failed.
 */
export class ParitySuite {
  private readonly fixtures: ServerFixtures;
  private readonly parity: OperationParity[] = [];
  private readonly proxy: ProxyResult[] = [];
  private readonly used = new Set<AllowedDifference>();
  private readonly record: RecordServerAnswer;

  /** `exercisedFile`: JSON lines of the server's answers, for the spec coverage report (coverage.ts). */
  constructor(
    private readonly root: string,
    private readonly access: ServerAccess,
    exercisedFile: string,
  ) {
    this.fixtures = new ServerFixtures(root, access);
    this.record = (entry) => appendFileSync(exercisedFile, `${JSON.stringify(entry)}\n`);
  }

  /** Runs the parity suite against the mock of `api` at `mockUrl`, then the proxy pass (starting and stopping the proxy). */
  async runApi(api: MockApi, mockUrl: string): Promise<void> {
    const spec = loadSpec(this.root, api);
    const requests = await exampleRequests(this.root, spec);
    this.fixtures.useExamples(spec, requests);
    const parity = await runParity({ spec, requests, mockUrl, serverUrl: this.access.url, fixtures: this.fixtures, record: this.record });
    this.parity.push(...parity.operations);
    for (const entry of parity.usedAllowances) this.used.add(entry);
    const proxy = await startProxy(this.root, api, this.access.url);
    try {
      this.proxy.push(...(await runProxyPass({ spec, requests, proxyUrl: proxy.url, fixtures: this.fixtures, record: this.record })));
    } finally {
      await proxy.stop();
    }
  }

  /** Writes both reports; returns the summary lines to print and one line per failure. */
  finish(apis: readonly MockApi[]): { lines: string[]; failures: string[] } {
    const lines: string[] = [];
    const failures: string[] = [];
    const failing = (operation: OperationParity) => operation.differences.some((difference) => !difference.allowed);
    for (const api of apis) {
      const operations = this.parity.filter((operation) => operation.api === api);
      const identical = operations.filter((operation) => operation.differences.length === 0).length;
      const bad = operations.filter(failing);
      lines.push(
        `parity ${api.padEnd(10)} ${operations.length} operations: ${identical} identical in structure, ` +
          `${operations.length - identical - bad.length} with allowed differences only, ${bad.length} differing`,
      );
      for (const operation of bad) {
        for (const difference of operation.differences.filter((d) => !d.allowed)) {
          const where = difference.what === 'structure' ? ` at ${difference.path}` : '';
          const detail = difference.what === 'error' ? difference.message : `mock ${difference.mock}, server ${difference.server}`;
          failures.push(`parity ${api}.${operation.operationId}: ${difference.what}${where}: ${detail}`);
        }
      }
      const proxied = this.proxy.filter((result) => result.api === api);
      const violating = proxied.filter((result) => result.problems.length > 0);
      const errors = proxied.filter((result) => result.case !== 'example').length;
      lines.push(`proxy  ${api.padEnd(10)} ${proxied.length} requests (${proxied.length - errors} examples, ${errors} refusals): ${violating.length} with violations`);
      for (const result of violating) {
        for (const problem of result.problems) failures.push(`proxy ${api}.${result.operationId} (${result.case}): ${problem}`);
      }
    }
    const stale = ALLOWED.filter((entry) => apis.includes(entry.api) && !this.used.has(entry));
    for (const entry of stale) {
      failures.push(`parity allow-list entry matches no difference any more, remove it: ${JSON.stringify(entry)}`);
    }
    const parityReport = {
      rules: 'contract-tests/parity/shape.ts (what is compared), contract-tests/parity/allowed.ts (expected differences)',
      summary: Object.fromEntries(
        apis.map((api) => {
          const operations = this.parity.filter((operation) => operation.api === api);
          return [api, { operations: operations.length, identical: operations.filter((o) => o.differences.length === 0).length, differing: operations.filter(failing).length }];
        }),
      ),
      stale_allowances: stale,
      operations: this.parity,
    };
    const proxyReport = {
      summary: Object.fromEntries(apis.map((api) => [api, { requests: this.proxy.filter((r) => r.api === api).length, with_violations: this.proxy.filter((r) => r.api === api && r.problems.length > 0).length }])),
      requests: this.proxy,
    };
    writeReport(join(this.root, 'reports', 'mock-parity.json'), parityReport);
    writeReport(join(this.root, 'reports', 'prism-proxy.json'), proxyReport);
    lines.push('parity report: reports/mock-parity.json, proxy report: reports/prism-proxy.json');
    return { lines, failures };
  }
}

function writeReport(file: string, report: unknown): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
}
