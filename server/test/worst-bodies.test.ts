import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { beforeEach, it } from '@jest/globals';
import { worstBodies, type WorstBody } from '../../bench/worst-bodies.js';
import { answerProblem, propertySeed } from '../../contract-tests/property/checks.js';
import { FIXTURES, type ApiFixture } from '../../contract-tests/property/fixtures.js';
import { baseValues, buildRequest, specOperations, type SpecOperation } from '../../contract-tests/property/operations.js';
import { resourceTypesOf } from '../src/domain/cloud/catalog.js';
import { PROVIDERS } from '../src/domain/cloud/providers.js';
import { API_NAMES, loadApiDocument, type ApiName } from '../src/http/apis.js';
import { describeEachDatabase } from './databases.js';
import { useTestServer, type TestServer } from './server.js';
import { expect } from './expect.js';
import { watchHealth } from './stall-detector.js';

/**
 * Request validation takes bounded time: every operation with a JSON body gets its worst bodies (bench/worst-bodies.ts:
 * every string at its longest, every array full of distinct items, and each array filled to the 1 MB limit past
 * its bounds), each answered with a status the operation declares, a 2xx or a 4xx in the API's error body, while
 * /healthz, asked every SAMPLE_EVERY_MS meanwhile, keeps answering. A stall detector, not a latency measure
 * (bench/request-validation.ts measures): an array of 140 000 distinct resource types once held the request thread
 * for 33.6 s, while the worst body now holds it for about a tenth of a second; a busy machine delays a free thread
 * by far less than STALL_MS.
 */
const STALL_MS = 5_000;
const SAMPLE_EVERY_MS = 100;
const run = promisify(execFile);

const watch = (baseUrl: string) => watchHealth(baseUrl, { stallMs: STALL_MS, everyMs: SAMPLE_EVERY_MS });

interface Case {
  api: ApiName;
  op: SpecOperation;
  bodies: WorstBody[];
}

const cases: Case[] = API_NAMES.flatMap((api) => {
  const { openapi } = loadApiDocument(api);
  return specOperations(api, openapi)
    .map((op) => ({ api, op, bodies: worstBodies(openapi, op) }))
    .filter((c) => c.bodies.length > 0);
});

/** python3 and its standard library only: the body of the report, 140 000 distinct values in one array, under 1 MB. */
const OUTSIDE_CLIENT = String.raw`
import json, string, sys, urllib.error, urllib.request
base, auth = sys.argv[1], sys.argv[2]
digits = string.digits + string.ascii_letters
def distinct(i):
    return digits[i // 3844] + digits[i // 62 % 62] + digits[i % 62]
body = json.dumps({
    "name": "outside",
    "provider": "provider_a",
    "provider_options": {"provider_a": {"role_arn": "arn:prova:iam::123456789012:role/scanner", "regions": ["*"]}},
    "survey_resource_types": [distinct(i) for i in range(140000)],
}, separators=(",", ":")).encode()
request = urllib.request.Request(base + "/v0/environments", data=body, method="POST",
                                 headers={"Content-Type": "application/json", "Authorization": auth})
try:
    with urllib.request.urlopen(request, timeout=60) as answer:
        status, text = answer.status, answer.read().decode()
except urllib.error.HTTPError as error:
    status, text = error.code, error.read().decode()
print(json.dumps({"bytes": len(body), "status": status, "body": json.loads(text)}))
`;

describeEachDatabase(
  'the worst request bodies',
  (db) => {
    const testServer = useTestServer(db);
    let server: TestServer;
    const fixtures = new Map<ApiName, Promise<ApiFixture>>();
    beforeEach(() => {
      server = testServer();
    });
    /** Made once per API and database, by whichever test needs it first, so that each test also passes alone. */
    const fixtureOf = (api: ApiName) => {
      if (!fixtures.has(api)) fixtures.set(api, FIXTURES[api](server));
      return fixtures.get(api)!;
    };

    for (const { api, op, bodies } of cases) {
      it(`${api} ${op.operationId} answers its ${bodies.length} worst bodies with a declared status, keeping /healthz answered`, async () => {
        const fixture = await fixtureOf(api);
        const { openapi } = loadApiDocument(api);
        const valid = baseValues(openapi, op, fixture.options, propertySeed());
        const health = watch(server.baseUrl);
        const problems: string[] = [];
        let waits: number[];
        try {
          const sendAll = (async () => {
            for (const worst of bodies) {
              const request = buildRequest(op, { ...valid, body: worst.body, contentType: 'application/json' });
              const answer = await server.request(request.method, request.url, { auth: null, body: request.body, headers: { ...fixture.headers, ...request.headers } });
              const problem = answerProblem(op, answer);
              if (problem) problems.push(`${worst.variant} (${worst.bytes} bytes, ${worst.largest}): ${problem}`);
            }
          })();
          await Promise.race([sendAll, health.stalled]);
        } finally {
          waits = await health.stop();
        }
        expect(problems, problems.join('\n')).toEqual([]);
        expect(Math.max(...waits), `the latest of ${waits.length} /healthz answers, in ms after it was due`).toBeLessThanOrEqual(STALL_MS);
      }, 120_000);
    }

    it('answers the reported body from a client of its own (python3) at once, naming the bound, and keeps /healthz answered', async () => {
      const health = watch(server.baseUrl);
      let waits: number[];
      let outcome: { bytes: number; status: number; body: { type: string; code: number; message: string } };
      try {
        const client = run('python3', ['-c', OUTSIDE_CLIENT, server.baseUrl, server.auth], { maxBuffer: 64 * 1024 * 1024 });
        const { stdout } = await Promise.race([client, health.stalled]);
        outcome = JSON.parse(stdout) as typeof outcome;
      } finally {
        waits = await health.stop();
      }
      expect(outcome.bytes, 'the body fits the 1 MB limit').toBeLessThanOrEqual(1024 * 1024);
      expect(outcome.status, JSON.stringify(outcome.body).slice(0, 300)).toBe(400);
      expect(outcome.body).toMatchObject({ type: 'InvalidParameterValue', code: 400 });
      expect(outcome.body.message).toContain('survey_resource_types: must NOT have more than 100 items');
      expect(Math.max(...waits), `the latest of ${waits.length} /healthz answers, in ms after it was due`).toBeLessThanOrEqual(STALL_MS);
    }, 120_000);

    it('cuts a 400 naming a field of any length to the declared message length, on the compliance and the conductor API', async () => {
      const key = 'k'.repeat(500_000);
      const compliance = await server.request('POST', '/v0/environments', { body: { name: 'long key', [key]: 1, [`j${key}`]: 2 } });
      const conductor = await server.request('POST', '/api/v0/accounts', { auth: server.rootAuth, body: { name: 'long-key', [key]: 1 } });
      for (const answer of [compliance, conductor]) {
        expect(answer.status, answer.text.slice(0, 300)).toBe(400);
        expect(answer.body.message.length, answer.text.slice(0, 300)).toBeLessThanOrEqual(16384);
        expect(answer.body.message).toContain(`${'k'.repeat(255)}…`);
      }
      for (const detail of conductor.body.errors as Array<Record<string, string>>) {
        for (const field of ['code', 'message', 'location']) expect(detail[field]!.length, field).toBeLessThanOrEqual(4096);
      }
    });
  },
  'suite',
);

it("bounds every list of resource types above the largest provider's catalogue", () => {
  const { openapi } = loadApiDocument('compliance');
  const schemas = (openapi.components as { schemas: Record<string, { properties?: Record<string, { maxItems?: number }> }> }).schemas;
  const largest = Math.max(...PROVIDERS.map((provider) => resourceTypesOf(provider).length));
  for (const [schema, field] of [
    ['CreateEnvironmentInput', 'survey_resource_types'],
    ['CreateEnvironmentInput', 'remediate_resource_types'],
    ['UpdateEnvironmentInput', 'survey_resource_types'],
    ['Environment', 'survey_resource_types'],
    ['ResourceTypeMetadata', 'resource_types'],
  ] as const) {
    expect(schemas[schema]!.properties![field]!.maxItems, `${schema}.${field}`).toBeGreaterThanOrEqual(largest);
  }
});
