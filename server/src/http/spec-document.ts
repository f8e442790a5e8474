import { load } from 'js-yaml';
import type { ApiDocument } from './apis.js';

const asObjects = new WeakMap<ApiDocument, object>();

/**
 * An API's Swagger 2.0 bundle as `GET /swagger` answers it: byte for byte as generated (YAML), or, for a client that
 * prefers `application/json`, the same document as an object (parsed once per process).
 */
export function specDocument(api: ApiDocument, preferred: 'application/yaml' | 'application/json'): { body: Buffer | object; mediaType: 'application/yaml' | 'application/json' } {
  if (preferred === 'application/yaml') return { body: api.swaggerYaml, mediaType: 'application/yaml' };
  let parsed = asObjects.get(api);
  if (!parsed) asObjects.set(api, (parsed = load(api.swaggerYaml.toString('utf8')) as object));
  return { body: parsed, mediaType: 'application/json' };
}
