import { afterEach, beforeAll, describe, it } from '@jest/globals';
import { flatten } from '../../contract-tests/property/arbitraries.js';
import { clearExercised, recordExercised } from '../../contract-tests/coverage.js';
import { answerProblem, propertySeed } from '../../contract-tests/property/checks.js';
import { exampleArchives, FIXTURES, type ApiFixture } from '../../contract-tests/property/fixtures.js';
import { negativeCases, type NegativeCase } from '../../contract-tests/property/negative.js';
import { baseValues, buildRequest, specOperations } from '../../contract-tests/property/operations.js';
import { CHECKS, recordPassed } from '../../scripts/check-exercised.js';
import { DEFAULT_AUTHENTICATION_LIMITS } from '../src/domain/auth/throttle.js';
import { API_NAMES, loadApiDocument, type ApiName } from '../src/http/apis.js';
import { describeEachDatabase } from './databases.js';
import { useTestServer } from './server.js';
import { expect } from './expect.js';

/**
 * For every operation of the three APIs, requests the spec makes invalid (wrong types, values out
 * of range, missing required parameters and fields, unknown enum values, malformed JSON, hostile archives, broken
 * credentials) are refused with a documented 4xx and the API's error body, and change nothing: every state the
 * API lets its caller read is the same before and after.
 */
const seed = propertySeed();

/** The valid archive each binary operation takes, so that a broken credential is the only thing wrong. */
const ARCHIVE_OF: Record<string, number> = { addValidation: 2, attachRbacPolicy: 3 };


describeEachDatabase(
  'negative requests from the specs',
  (db) => {
    // The fixtures create a console user for each operation and sign in to the console: what the cases prove does
    // not depend on how slow a password hash is.
    const server = useTestServer(db);
    // The statuses reached go to the spec coverage report that `make contract` writes.
    let suite = '';
    beforeAll(() => {
      suite = `negative-requests-${db().target.name}`;
      clearExercised(suite);
    });
    // Wrong secrets count against every caller from this address, and root's against root: let the window pass
    // for the next operation's cases, so that each sees its 401s rather than the limit's 429.
    afterEach(() => server().clock.advanceSeconds(DEFAULT_AUTHENTICATION_LIMITS.windowSeconds + 1));
    // A refused request changes nothing (each test checks it), so the operations of an API share one set of
    // fixtures. The console's are made afresh: its session would expire as the clock moves on between tests.
    const shared = new Map<ApiName, Promise<ApiFixture>>();
    const fixtureFor = (api: ApiName) => {
      if (api === 'console') return FIXTURES[api](server());
      if (!shared.has(api)) shared.set(api, FIXTURES[api](server()));
      return shared.get(api)!;
    };
    for (const api of API_NAMES) {
      const document = loadApiDocument(api);
      describe(api, () => {
        for (const op of specOperations(api, document.openapi)) {
          it(`${op.operationId} (${op.method} ${op.path}) refuses invalid requests with a documented 4xx and changes nothing`, async () => {
            const fixture = await fixtureFor(api);
            const { valid, hostile } = await exampleArchives();
            const base = baseValues(document.openapi, op, { ...fixture.options, binaryBody: valid[ARCHIVE_OF[op.operationId] ?? 0] }, seed);
            const cases: Array<NegativeCase & { headers: Record<string, string> }> = negativeCases(op, base, {
              hostileArchives: hostile,
              flatten: (node) => flatten(document.openapi, node),
            })
              .map((c) => ({ ...c, headers: fixture.headers }));
            if (op.secured) {
              for (const [name, bad] of Object.entries(fixture.badCredentials)) {
                if (bad.csrfOnly && !op.securitySchemes.includes('csrfToken')) continue;
                cases.push({ name: `credentials: ${name}`, request: buildRequest(op, base), expected: bad.expected, headers: bad.headers });
              }
            }
            expect(cases.length, 'every operation has at least one negative case').toBeGreaterThan(0);
            const before = await fixture.snapshot();
            const problems: string[] = [];
            for (const { name, request, expected, headers } of cases) {
              const answer = await server().request(request.method, request.url, { auth: null, body: request.body, headers: { ...headers, ...request.headers } });
              const problem =
                answerProblem(op, answer) ??
                (answer.status < 400 ? `accepted with ${answer.status}: ${answer.text.slice(0, 200)}` : undefined) ??
                (expected && !expected.includes(answer.status) ? `answered ${answer.status}, expected ${expected.join(' or ')}: ${answer.text.slice(0, 200)}` : undefined);
              if (problem) problems.push(`${name} (${request.method} ${request.url.slice(0, 120)}): ${problem}`);
              else recordExercised(suite, { api, operationId: op.operationId, status: answer.status });
            }
            expect(problems, problems.join('\n')).toEqual([]);
            expect(await fixture.snapshot(), 'a refused request changed what the API shows').toBe(before);
            // Every operation must have a green negative run: scripts/check-exercised.ts checks it after the suites.
            recordPassed(CHECKS.negativeRuns, `${api}.${op.operationId}`);
          });
        }
      });
    }
  },
  'suite',
  // On SQLite alone: an invalid request is refused by the validator or by the domain before anything is written, so
  // what refuses it is the same code on either database. What reaches PostgreSQL's own behaviour — valid requests with
  // any text, numbers at their limits, conflicts — is sent there by property-requests and declared-statuses.
  'sqlite',
);
