import fc from 'fast-check';
import { beforeAll, describe, it } from '@jest/globals';
import { clearExercised, recordExercised } from '../../contract-tests/coverage.js';
import { answerProblem, missingOperations, propertyRuns, propertySeed } from '../../contract-tests/property/checks.js';
import { FIXTURES, type ApiFixture } from '../../contract-tests/property/fixtures.js';
import { requestArbitrary, specOperations, type GeneratedRequest } from '../../contract-tests/property/operations.js';
import { CHECKS, recordPassed } from '../../scripts/check-exercised.js';
import { DEFAULT_AUTHENTICATION_LIMITS } from '../src/domain/auth/throttle.js';
import { API_NAMES, loadApiDocument, type ApiName } from '../src/http/apis.js';
import { describeEachDatabase } from './databases.js';
import { useTestServer, type TestServer } from './server.js';
import { expect } from './expect.js';

/**
 * Requests generated from the specs for every operation of the three APIs, properly
 * authenticated, with path ids mixing random values and records that exist. Whatever is sent, the server answers
 * no 5xx, only statuses the operation declares, and the API's error body on every 4xx (the test server validates
 * every body against the spec besides). Fixed seed (PROPERTY_SEED), PROPERTY_RUNS runs per operation (default 15)
 * on SQLite, a third of them on PostgreSQL: the same validator and domain code judge a request on either, and what
 * PostgreSQL adds (its own refusals of values its types and constraints do not take) the first requests of the seed
 * reach as well as the later ones.
 */
const runs = propertyRuns(15);
const runsOn = (target: string): number => (target === 'postgres' ? Math.ceil(runs / 3) : runs);
const seed = propertySeed();

/** Operations whose refused credentials count as failed authentications: a sign-in's password, an invitation's token. */
const COUNTED_FAILURES = new Set(['signIn', 'getInvitation', 'acceptInvitation']);

const send = (server: TestServer, request: GeneratedRequest, headers: Record<string, string>) =>
  server.request(request.method, request.url, { auth: null, body: request.body, headers: { ...headers, ...request.headers } });


describeEachDatabase(
  'property-based requests from the specs',
  (db) => {
    const server = useTestServer(db);
    // The statuses reached go to the spec coverage report that `make contract` writes.
    let suite = '';
    beforeAll(() => {
      suite = `property-requests-${db().target.name}`;
      clearExercised(suite);
    });
    // Reads change nothing: they share one set of fixtures per API; every other operation gets fresh ones.
    const shared = new Map<string, Promise<ApiFixture>>();
    const fixtureFor = (api: ApiName, method: string) => {
      if (method !== 'GET') return FIXTURES[api](server());
      if (!shared.has(api)) shared.set(api, FIXTURES[api](server()));
      return shared.get(api)!;
    };
    for (const api of API_NAMES) {
      const document = loadApiDocument(api);
      describe(api, () => {
        for (const op of specOperations(api, document.openapi)) {
          it(`${op.operationId} (${op.method} ${op.path}) answers only declared statuses, never a 5xx`, async () => {
            const fixture = await fixtureFor(api, op.method);
            const requests = requestArbitrary(document.openapi, op, fixture.options);
            const statuses: Record<number, number> = {};
            try {
              await fc.assert(
                fc.asyncProperty(requests, async (request) => {
                  const answer = await send(server(), request, fixture.headers);
                  statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
                  if (process.env.PROPERTY_STATS === 'verbose') console.log(`${op.operationId} ${request.method} ${request.url} → ${answer.status} ${answer.text.slice(0, 200)}`);
                  const problem = answerProblem(op, answer);
                  if (problem) throw new Error(`${request.method} ${request.url}: ${problem}`);
                  recordExercised(suite, { api, operationId: op.operationId, status: answer.status });
                }),
                { seed, numRuns: runsOn(db().target.name), endOnFailure: false },
              );
            } finally {
              // Failed sign-ins (and unknown invitation tokens) count against every caller from this address: let the
              // window pass for the next tests.
              if (COUNTED_FAILURES.has(op.operationId)) server().clock.advanceSeconds(DEFAULT_AUTHENTICATION_LIMITS.windowSeconds + 1);
              // PROPERTY_STATS=1 prints which statuses the generated requests reached, per operation.
              if (process.env.PROPERTY_STATS) console.log(`${api}.${op.operationId} ${JSON.stringify(statuses)}`);
            }
            // Every operation must have a green property run: scripts/check-exercised.ts checks it after the suites.
            recordPassed(CHECKS.propertyRuns, `${api}.${op.operationId}`);
          });
        }
      });
    }
  },
  'suite',
);

describe('property-based requests: coverage', () => {
  it('generates requests for every operation of the three APIs', () => {
    const expected = API_NAMES.flatMap((api) => loadApiDocument(api).operations.map((op) => op.operationId));
    const generated = API_NAMES.flatMap((api) => specOperations(api, loadApiDocument(api).openapi).map((op) => op.operationId));
    expect(missingOperations(expected, generated)).toEqual([]);
    expect(expected.length).toBeGreaterThan(60);
  });
});
