import type { HandlerContext } from '../context.js';
import type { Req, Res } from './types.js';

/** The Swagger 2.0 bundle, byte for byte as generated (seed 000 §9). */
export async function getSwagger(_req: Req<'getSwagger'>, { apis }: HandlerContext): Res<'getSwagger'> {
  return { status: 200, body: apis.compliance.swaggerYaml as unknown as string };
}
