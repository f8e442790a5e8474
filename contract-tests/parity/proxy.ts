import type { MockApi } from '../prism/mocks.js';
import { urlPath, type ExampleRequest, type Spec } from './examples.js';
import type { ServerFixtures } from './fixtures.js';
import { basic, send, type Answer } from './http.js';
import type { RecordServerAnswer } from './parity.js';

/**
 * The prism proxy pass: the example suite, and a few requests the server must refuse, sent through `prism proxy
 * --errors` (prism/mocks.ts) in front of the real server. Prism checks each request and the server's answer
 * against the spec; any violation it reports (`sl-violations` header) or any error Prism answers itself
 * (`application/problem+json` of type https://stoplight.io/prism/errors#...) fails the run, and so does a status
 * other than the one expected.
 */
export interface ProxyResult {
  api: MockApi;
  operationId: string;
  /** `example`, or the name of the error case. */
  case: string;
  request: { method: string; url: string };
  expected: number;
  status?: number;
  problems: string[];
}

/**
 * A request the server must refuse with `expected`, built from an operation's example. Each one is valid by the
 * spec, so that Prism forwards it (a request that breaks the spec is answered by Prism itself): the refusal comes
 * from the server's state or its checks of credentials, and its error body is what Prism validates.
 */
interface ErrorCase {
  name: string;
  operationId: string;
  expected: number;
  /** Changes the example request (already sent through the fixtures, unless `unprepared`). */
  build?(request: ExampleRequest, fixtures: ServerFixtures): Promise<void>;
  /** Send the example as the spec writes it: its ids name no record of the server. */
  unprepared?: boolean;
}

const WRONG_BASIC = basic('cl_unknown_client', 'not-the-secret');

export const ERROR_CASES: Record<MockApi, ErrorCase[]> = {
  compliance: [
    { name: 'an unknown environment id', operationId: 'getEnvironment', expected: 404, unprepared: true },
    { name: 'an unknown scan id', operationId: 'getComplianceByRules', expected: 404, unprepared: true },
    {
      name: 'unknown credentials',
      operationId: 'listEnvironments',
      expected: 401,
      build: async (request) => {
        request.headers = { authorization: WRONG_BASIC };
      },
    },
    {
      name: 'search terms that are not JSON',
      operationId: 'listEnvironments',
      expected: 400,
      unprepared: true,
      build: async (request) => {
        request.query.push(['query', 'name:prod']);
      },
    },
    {
      name: 'a group name taken',
      operationId: 'createGroup',
      // The public service's answer: 400 BadRequest (409 is a group quota reached).
      expected: 400,
      build: async (request, fixtures) => {
        await fixtures.call('compliance', 'POST', '/groups', { json: request.json });
      },
    },
  ],
  conductor: [
    { name: 'an unknown dry-run id', operationId: 'getDryRun', expected: 404, unprepared: true },
    {
      name: 'a wrong root secret',
      operationId: 'listAccounts',
      expected: 401,
      build: async (request) => {
        request.headers = { authorization: basic('root', 'not-the-root-secret') };
      },
    },
    {
      name: 'an account name taken',
      operationId: 'addAccount',
      expected: 409,
      build: async (request, fixtures) => {
        await fixtures.call('conductor', 'POST', '/accounts', { json: request.json });
        request.json = { ...(request.json as object), account_id: '210987654321' };
      },
    },
  ],
  console: [
    { name: 'an unknown API client id', operationId: 'getApiClient', expected: 404, unprepared: true },
    {
      name: 'an unknown invitation token',
      operationId: 'getInvitation',
      expected: 404,
      unprepared: true,
      build: async (request) => {
        request.headers = {};
      },
    },
    {
      name: 'an invitation accepted already',
      operationId: 'acceptInvitation',
      expected: 410,
      build: async (request, fixtures) => {
        // Without the admin's session cookie: accepting ends the session a cookie names.
        await fixtures.call('console', 'POST', `/invitations/${request.path.token}`, { json: request.json }, [], true);
      },
    },
    {
      name: 'a wrong password',
      operationId: 'signIn',
      expected: 401,
      build: async (request) => {
        request.json = { ...(request.json as object), password: 'not the admin password' };
      },
    },
    {
      name: 'an unknown session',
      operationId: 'getSession',
      expected: 401,
      build: async (request) => {
        request.headers = { cookie: 'console_session=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' };
      },
    },
    {
      name: 'a wrong CSRF token',
      operationId: 'createApiClient',
      expected: 403,
      build: async (request, fixtures) => {
        const { cookie } = await fixtures.headers('console');
        request.headers = { cookie: cookie!, 'x-csrf-token': 'x'.repeat(43) };
      },
    },
  ],
};

/** What is wrong with an answer that came through the proxy. */
export function proxyProblems(answer: Answer, expected: number): string[] {
  const problems: string[] = [];
  const violations = answer.headers.get('sl-violations');
  if (violations) problems.push(`Prism reports violations: ${violations}`);
  const type = (answer.json as { type?: unknown } | undefined)?.type;
  if (answer.mediaType === 'application/problem+json' && typeof type === 'string' && type.includes('stoplight.io/prism/errors')) {
    problems.push(`Prism answered itself: ${answer.text.slice(0, 2000)}`);
  }
  if (answer.status !== expected) problems.push(`answered ${answer.status}, expected ${expected}: ${answer.text.slice(0, 500)}`);
  return problems;
}

export async function runProxyPass(options: {
  spec: Spec;
  requests: ExampleRequest[];
  proxyUrl: string;
  fixtures: ServerFixtures;
  record: RecordServerAnswer;
}): Promise<ProxyResult[]> {
  const { spec, requests, proxyUrl, fixtures, record } = options;
  const byOperation = new Map(requests.map((request) => [request.operationId, request]));
  const cases: Array<{ name: string; example: ExampleRequest; expected: number; errorCase?: ErrorCase }> = [
    ...requests.map((example) => ({ name: 'example', example, expected: example.expectedStatus })),
    ...ERROR_CASES[spec.api].map((errorCase) => {
      const example = byOperation.get(errorCase.operationId);
      if (!example) throw new Error(`proxy error case "${errorCase.name}": ${spec.api} has no operation ${errorCase.operationId}`);
      return { name: errorCase.name, example, expected: errorCase.expected, errorCase };
    }),
  ];
  const results: ProxyResult[] = [];
  for (const { name, example, expected, errorCase } of cases) {
    const result: ProxyResult = { api: spec.api, operationId: example.operationId, case: name, request: { method: example.method, url: urlPath(example) }, expected, problems: [] };
    results.push(result);
    try {
      const request = errorCase?.unprepared ? structuredClone(example) : await fixtures.prepare(example);
      await errorCase?.build?.(request, fixtures);
      result.request.url = urlPath(request);
      const answer = await send(proxyUrl, request, request.headers ?? (await fixtures.headers(spec.api)));
      result.status = answer.status;
      result.problems = proxyProblems(answer, expected);
      // An answer Prism made itself never reached the server.
      const fromPrism = answer.mediaType === 'application/problem+json';
      if (!fromPrism) record({ api: spec.api, operationId: example.operationId, status: answer.status, passed: result.problems.length === 0 });
    } catch (error) {
      result.problems.push(String(error));
    }
  }
  return results;
}
