import { declares, responseSchema, type Spec } from './examples.js';
import type { Answer } from './http.js';
import { compareShapes, shapeOf } from './shape.js';

/** One way the mock's answer and the server's differ. */
export interface Difference {
  what: 'status' | 'content-type' | 'structure' | 'error';
  /** For `structure`: where in the body (`$.items[].id`). */
  path?: string;
  mock: string;
  server: string;
  /** For `error`: what kept the request from being compared (a fixture failed, a target did not answer). */
  message?: string;
  /** The allow-list's reason, when the difference is expected. */
  allowed?: string;
}

/**
 * Compares the answers to one request: status, media type (without parameters: `application/json; charset=utf-8`
 * is `application/json`), and, when both answered the same status with JSON, the body's structure (shape.ts), walked
 * along the schema the spec declares for that status. A body that is not JSON (a YAML document, a tar archive) is
 * compared by media type only.
 */
export function compareAnswers(spec: Spec, operationId: string, mock: Answer, server: Answer): Difference[] {
  const differences: Difference[] = [];
  if (mock.status !== server.status) {
    differences.push({ what: 'status', mock: String(mock.status), server: String(server.status) });
  }
  if (mock.mediaType !== server.mediaType) {
    differences.push({ what: 'content-type', mock: mock.mediaType ?? 'none', server: server.mediaType ?? 'none' });
  }
  if (mock.status !== server.status || mock.mediaType !== server.mediaType) return differences;
  if (mock.json === undefined && server.json === undefined) return differences;
  if (mock.json === undefined || server.json === undefined) {
    differences.push({ what: 'structure', path: '$', mock: mock.json === undefined ? 'no JSON body' : 'JSON', server: server.json === undefined ? 'no JSON body' : 'JSON' });
    return differences;
  }
  const schema = declares(spec, operationId, mock.status) ? responseSchema(spec, operationId, mock.status) : undefined;
  for (const difference of compareShapes(shapeOf(mock.json, schema, spec.resolve), shapeOf(server.json, schema, spec.resolve))) {
    differences.push({ what: 'structure', ...difference });
  }
  return differences;
}
