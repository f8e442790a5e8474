import { load } from 'js-yaml';
import type { HandlerContext } from '../context.js';
import type { Req, Res } from './types.js';

let asObject: object | undefined;

/**
 * The Swagger 2.0 bundle, byte for byte as generated (seed 000 §9), or the same document as JSON for a client that
 * prefers `application/json`.
 */
export async function getSwagger(req: Req<'getSwagger'>, { apis }: HandlerContext): Res<'getSwagger'> {
  const yaml = apis.compliance.swaggerYaml;
  if (req.preferredMediaType('application/yaml', 'application/json') === 'application/json') {
    asObject ??= load(yaml.toString('utf8')) as object;
    return { status: 200, body: asObject as Record<string, never>, mediaType: 'application/json' };
  }
  return { status: 200, body: yaml as unknown as string, mediaType: 'application/yaml' };
}
