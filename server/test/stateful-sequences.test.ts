import { beforeEach, describe, it } from '@jest/globals';
import { clearExercised, recordExercised } from '../../contract-tests/coverage.js';
import { declarationProblems, resourceName, runChain, stepOperations, type ChainContext } from '../../contract-tests/stateful/chain.js';
import { StatefulClient } from '../../contract-tests/stateful/http.js';
import { NOT_RESOURCES, RESOURCES, tableProblems } from '../../contract-tests/stateful/resources.js';
import { resourceCandidates, STEPS } from '../../contract-tests/stateful/spec.js';
import { processLifecycle, scanLifecycle } from '../../contract-tests/stateful/workflows.js';
import type { ApiName } from '../src/http/apis.js';
import { describeEachDatabase } from './databases.js';
import { useTestServer, type TestServer } from './server.js';
import { expect } from './expect.js';

/**
 * Stateful sequences. Per resource, create → get → update → list → delete, following ids and
 * `Location` headers (contract-tests/stateful/resources.ts says which steps each resource lacks, and why); and the
 * declared workflows of the scan lifecycle and the process lifecycle. Response validation is on, so every body is
 * checked against the spec besides the checks of each step; every answer goes to the spec coverage report.
 */
const SUITE = 'stateful-sequences';
clearExercised(SUITE);

let counter = 0;
const unique = () => `${process.pid}-${(counter += 1)}`;

/**
 * A client of the three APIs as the current test's organization (compliance) and root (conductor); console calls
 * go as a user of that organization once `signInToConsole` ran (signing in hashes a password: only where needed).
 */
function contextFor(server: TestServer): ChainContext & { server: TestServer; signInToConsole(): Promise<void> } {
  const headers: Record<ApiName, Record<string, string>> = {
    compliance: { authorization: server.auth },
    conductor: { authorization: server.rootAuth },
    console: {},
  };
  const client = new StatefulClient(server.baseUrl, (api) => headers[api], (api, operationId, status) => recordExercised(SUITE, { api, operationId, status }));
  return {
    server,
    client,
    unique,
    settle: async () => {
      while (await server.services.jobs.runOnce());
    },
    createUser: async (address) => (await server.services.consoleAuth.createUser(server.orgId, address, 'a long enough password')).id,
    signInToConsole: async () => {
      const email = `console-${unique()}@example.com`;
      const password = 'correct horse battery staple';
      await server.services.consoleAuth.createUser(server.orgId, email, password);
      const signIn = await client.call('console', 'signIn', { body: { email, password } });
      expect(signIn.status, signIn.text).toBe(200);
      headers.console = { cookie: signIn.headers.get('set-cookie')!.split(';')[0]!, 'x-csrf-token': signIn.body.csrf_token };
    },
  };
}

describeEachDatabase(
  'stateful sequences',
  (db) => {
    // No random drift: the scan lifecycle makes the drift it checks, and nothing else changes between its scans.
    const testServer = useTestServer(db, { simulator: { driftRate: 0 } });
    let ctx: ReturnType<typeof contextFor>;
    beforeEach(() => {
      ctx = contextFor(testServer());
    });

    describe('create → get → update → list → delete, per resource', () => {
      for (const declaration of RESOURCES) {
        const steps = STEPS.filter((step) => stepOperations(declaration)[step]);
        it(`${resourceName(declaration)}: ${steps.join(' → ')}`, async () => {
          if (declaration.api === 'console') await ctx.signInToConsole();
          const report = await runChain(declaration, ctx);
          // Every step the table does not skip ran.
          const ran = new Set(report.steps.map((s) => s.step));
          for (const step of steps) expect(ran, `${report.name} ran ${step}`).toContain(step);
        });
      }
    });

    it('a chain fails, naming the resource and the step, when a read does not show what was written', async () => {
      const environments = RESOURCES.find((d) => d.api === 'compliance' && d.path === '/environments')!;
      const wrong = { ...environments, update: () => ({ body: { name: 'production-eu' }, shows: { name: 'production-us' } }) };
      await expect(runChain(wrong, ctx)).rejects.toThrow(/^compliance \/environments › update: .*production-us/s);
    });

    describe('workflows', () => {
      it('scan lifecycle: environment → scan → results → baseline → drift → DRIFT events → remediation → REMEDIATION events', async () => {
        await scanLifecycle(ctx);
      });

      it('process lifecycle: create → lock → a refused transition (409) → unlock → suspend → resume → kill', async () => {
        await processLifecycle(ctx);
      });
    });
  },
  'suite',
);

describe('stateful sequences: the resource table', () => {
  it('names every resource the specs have, as a chain or as not a resource, and nothing else', () => {
    expect(tableProblems(resourceCandidates())).toEqual([]);
  });

  it('reports a resource the specs gain that the table does not mention', () => {
    const widgets = { api: 'conductor' as const, path: '/widgets' };
    expect(tableProblems([...resourceCandidates(), widgets])).toEqual(['conductor /widgets: a resource the table does not mention']);
    const withoutRules = [...RESOURCES, ...NOT_RESOURCES].filter((d) => !(d.api === 'compliance' && d.path === '/rules'));
    expect(tableProblems(resourceCandidates(), withoutRules)).toEqual(['compliance /rules: a resource the table does not mention']);
  });

  it('skips exactly the steps the specs do not offer, each with a reason', () => {
    expect(RESOURCES.flatMap(declarationProblems)).toEqual([]);
  });

  it('holds the table to the specs: a skipped step the spec offers, or an offered step nobody skips, is reported', () => {
    const environments = RESOURCES.find((d) => d.api === 'compliance' && d.path === '/environments')!;
    expect(declarationProblems({ ...environments, skip: { update: 'environments cannot change' } })).toEqual([
      'compliance /environments: update is skipped ("environments cannot change") but the spec offers updateEnvironment',
    ]);
    const groups = RESOURCES.find((d) => d.api === 'compliance' && d.path === '/groups')!;
    expect(declarationProblems({ ...groups, skip: { ...groups.skip, delete: undefined } })).toEqual([
      'compliance /groups: the spec offers no delete, and the table neither skips it nor names an operation for it',
    ]);
  });
});
