import type { MockApi } from '../prism/mocks.js';
import { applyAllowList, type AllowedDifference } from './allowed.js';
import { compareAnswers, type Difference } from './compare.js';
import { urlPath, type ExampleRequest, type Spec } from './examples.js';
import type { ServerFixtures } from './fixtures.js';
import { basic, send, type Answer } from './http.js';

/**
 * The mock parity suite: every operation's example request (examples.ts), pointed at records of the real server
 * (fixtures.ts), sent to the Prism mock and to the real server; the answers are compared (compare.ts) and every
 * difference is reported. A difference fails the run unless the allow-list (allowed.ts) expects it.
 */
export interface OperationParity {
  api: MockApi;
  operationId: string;
  request: { method: string; url: string };
  mock?: { status: number; content_type: string | null };
  server?: { status: number; content_type: string | null };
  differences: Difference[];
}

/** The mock checks only that credentials are present: any well-formed ones do. */
export const MOCK_HEADERS: Record<MockApi, Record<string, string>> = {
  compliance: { authorization: basic('mock-user', 'mock-secret') },
  conductor: { authorization: basic('mock-user', 'mock-secret') },
  console: { cookie: 'console_session=mock-session', 'x-csrf-token': 'mock-csrf-token' },
};

/** Each answer the real server gave, for the spec coverage report. */
export type RecordServerAnswer = (entry: { api: MockApi; operationId: string; status: number; passed: boolean }) => void;

const summaryOf = (answer: Answer) => ({ status: answer.status, content_type: answer.mediaType ?? null });

export async function runParity(options: {
  spec: Spec;
  requests: ExampleRequest[];
  mockUrl: string;
  serverUrl: string;
  fixtures: ServerFixtures;
  record: RecordServerAnswer;
}): Promise<{ operations: OperationParity[]; usedAllowances: AllowedDifference[] }> {
  const { spec, requests, mockUrl, serverUrl, fixtures, record } = options;
  const operations: OperationParity[] = [];
  const usedAllowances: AllowedDifference[] = [];
  for (const example of requests) {
    const result: OperationParity = {
      api: spec.api,
      operationId: example.operationId,
      request: { method: example.method, url: urlPath(example) },
      differences: [],
    };
    operations.push(result);
    try {
      const request = await fixtures.prepare(example);
      result.request.url = urlPath(request);
      const mock = await send(mockUrl, request, MOCK_HEADERS[spec.api]);
      const server = await send(serverUrl, request, request.headers ?? (await fixtures.headers(spec.api)));
      result.mock = summaryOf(mock);
      result.server = summaryOf(server);
      result.differences = compareAnswers(spec, example.operationId, mock, server);
      // The server validates its own answers against the spec: any declared status below 500 is one it documents.
      record({ api: spec.api, operationId: example.operationId, status: server.status, passed: server.status < 500 });
      usedAllowances.push(...applyAllowList(spec.api, example.operationId, result.differences));
    } catch (error) {
      result.differences.push({ what: 'error', mock: result.mock ? String(result.mock.status) : '-', server: result.server ? String(result.server.status) : '-', message: String(error) });
    }
  }
  return { operations, usedAllowances };
}
