import type { HandlerContext } from '../context.js';
import { specDocument } from '../spec-document.js';
import type { Req, Res } from './types.js';

/**
 * The Swagger 2.0 bundle, byte for byte as generated (seed 000 §9), or the same document as JSON for a client that
 * prefers `application/json`.
 */
export async function getSwagger(req: Req<'getSwagger'>, { apis }: HandlerContext): Res<'getSwagger'> {
  const { body, mediaType } = specDocument(apis.compliance, req.preferredMediaType('application/yaml', 'application/json'));
  return { status: 200, body: body as unknown as string, mediaType };
}
