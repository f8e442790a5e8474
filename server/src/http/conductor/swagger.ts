import type { HandlerContext } from '../context.js';
import { specDocument } from '../spec-document.js';
import type { Req, Res } from './types.js';

/** The conductor's Swagger 2.0 bundle, as the compliance API serves its own (`GET /v0/swagger`). */
export async function getConductorSwagger(req: Req<'getConductorSwagger'>, { apis }: HandlerContext): Res<'getConductorSwagger'> {
  const { body, mediaType } = specDocument(apis.conductor, req.preferredMediaType('application/yaml', 'application/json'));
  return { status: 200, body: body as unknown as string, mediaType };
}
