import { describe, expect, it } from '@jest/globals';
import { API_NAMES, loadApiDocument } from './apis.js';

type Node = Record<string, unknown>;

/** Whether a schema, followed through its references, items and alternatives, has a property named `secret`. */
function carriesSecret(doc: Node, schema: unknown, seen = new Set<unknown>()): boolean {
  let node = schema as Node | undefined;
  const ref = node?.$ref;
  if (typeof ref === 'string') node = ref.slice(2).split('/').reduce<Node | undefined>((n, key) => n?.[key] as Node | undefined, doc);
  if (!node || typeof node !== 'object' || seen.has(node)) return false;
  seen.add(node);
  const properties = (node.properties ?? {}) as Record<string, Node>;
  // A secret the spec marks write-only (`x-write-only`: accepted in requests, never answered) is not in any answer.
  if (Object.entries(properties).some(([name, property]) => /(^|_)secret$/.test(name) && property.type === 'string' && property['x-write-only'] !== true)) return true;
  const branches = [...Object.values(properties), node.items, ...((node.allOf ?? []) as unknown[]), ...((node.oneOf ?? []) as unknown[])];
  return branches.some((branch) => branch !== undefined && carriesSecret(doc, branch, seen));
}

describe('answers that carry a secret', () => {
  const found: string[] = [];
  for (const name of API_NAMES) {
    const api = loadApiDocument(name);
    const paths = api.openapi.paths as Record<string, Record<string, { operationId?: string; responses?: Record<string, { content?: Record<string, { schema?: unknown }> }> }>>;
    for (const item of Object.values(paths)) {
      for (const op of Object.values(item)) {
        for (const [status, response] of Object.entries(op.responses ?? {})) {
          if (!status.startsWith('2')) continue;
          if (Object.values(response.content ?? {}).some((media) => carriesSecret(api.openapi, media.schema))) found.push(`${name} ${op.operationId} ${status}`);
        }
      }
    }
  }

  it('are found in every API that hands out secrets', () => {
    expect(found.length).toBeGreaterThanOrEqual(2);
  });

  it.each(found)('%s is declared and sent with Cache-Control: no-store', (entry) => {
    const [name, operationId, status] = entry.split(' ') as [(typeof API_NAMES)[number], string, string];
    const operation = loadApiDocument(name).operations.find((o) => o.operationId === operationId)!;
    expect(operation.fixedResponseHeaders[status]).toMatchObject({ 'Cache-Control': 'no-store' });
  });
});
