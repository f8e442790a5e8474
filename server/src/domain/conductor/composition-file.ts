import { createHash } from 'node:crypto';
import { readArchive, requireFile } from '../archives/tar.js';
import { isSupportedType, resourceTypesOf } from '../cloud/catalog.js';
import { PROVIDERS, regionsOf, usesRoles, type Provider } from '../cloud/providers.js';
import { AppError, type ErrorDetail } from '../errors.js';
import { isRecord, parseYamlFile, Problems } from './archive-yaml.js';
import type { Composition, CompositionImport, CompositionResource } from './composition.js';

/**
 * composition.yaml, the file of a composition archive (see examples/conductor/composition/):
 *
 *   resources:                 # required, possibly empty
 *     - name: web-assets       # unique among resources and imports
 *       type: PROVA.S3.Bucket  # a catalog type of the account's provider
 *       region: us-east-1      # regional types only
 *       properties: {...}      # optional; omitted properties keep the provider's defaults
 *       tags: {env: prod}      # optional; string values
 *   imports:                   # optional; adopted with import_resources=true
 *     - { name: legacy-logs, type: PROVA.S3.Bucket, id: <cloud resource id> }
 */
export const COMPOSITION_FILE = 'composition.yaml';
/** More resources than this in one composition is refused: a process is a unit of infrastructure, not an account. */
export const MAX_COMPOSITION_RESOURCES = 500;

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const TYPE = /^[A-Z0-9]+\.[A-Za-z0-9]+\.[A-Za-z0-9]+$/;
const GLOBAL_TYPES = new Set(PROVIDERS.flatMap((p) => resourceTypesOf(p).filter((t) => t.global).map((t) => `${p}:${t.type}`)));
const isGlobal = (provider: Provider, type: string): boolean => GLOBAL_TYPES.has(`${provider}:${type}`);

export interface CompositionArchive {
  text: string;
  /** SHA-256 (hex) of the archive as uploaded. */
  digest: string;
}

/** composition.yaml out of an archive; a 400 for an unsafe or invalid archive, or one without the file. */
export async function readCompositionArchive(bytes: Uint8Array): Promise<CompositionArchive> {
  const files = await readArchive(bytes);
  return { text: requireFile(files, COMPOSITION_FILE), digest: createHash('sha256').update(bytes).digest('hex') };
}

/** Parses composition.yaml, reporting every problem found rather than the first. */
export function parseComposition(text: string): { composition: Composition; problems: [] } | { composition: null; problems: ErrorDetail[] } {
  let root: unknown;
  try {
    root = parseYamlFile(COMPOSITION_FILE, text);
  } catch (error) {
    if (error instanceof AppError) return { composition: null, problems: error.details };
    throw error;
  }
  const problems = new Problems(COMPOSITION_FILE, 'composition.invalid');
  if (!isRecord(root)) {
    problems.add('', 'must be a mapping with `resources` (and optionally `imports`)');
    return { composition: null, problems: problems.details };
  }
  problems.unknownKeys('', root, ['resources', 'imports']);
  if (!Array.isArray(root.resources)) problems.add('resources', 'is required and must be a list');
  if (root.imports !== undefined && root.imports !== null && !Array.isArray(root.imports)) problems.add('imports', 'must be a list');
  const resourceItems: unknown[] = Array.isArray(root.resources) ? root.resources : [];
  const importItems: unknown[] = Array.isArray(root.imports) ? root.imports : [];
  if (resourceItems.length > MAX_COMPOSITION_RESOURCES) {
    problems.add('resources', `has ${resourceItems.length} resources; at most ${MAX_COMPOSITION_RESOURCES} are allowed`);
  }

  const names = new Set<string>();
  const checkName = (value: unknown, at: string) => {
    if (typeof value !== 'string' || !NAME.test(value)) {
      problems.add(at, 'must be 1 to 64 letters, digits, dots, dashes or underscores, starting with a letter or digit');
    } else if (names.has(value)) {
      problems.add(at, `'${value}' is used twice; names are unique among resources and imports`);
    } else {
      names.add(value);
    }
  };
  const checkType = (value: unknown, at: string) => {
    if (typeof value !== 'string' || !TYPE.test(value)) problems.add(at, 'must be a resource type such as PROVA.S3.Bucket');
  };

  const resources: CompositionResource[] = [];
  resourceItems.forEach((item, i) => {
    const at = `resources[${i}]`;
    if (!isRecord(item)) return void problems.add(at, 'must be a mapping with name, type and properties');
    problems.unknownKeys(at, item, ['name', 'type', 'region', 'properties', 'tags']);
    checkName(item.name, `${at}.name`);
    checkType(item.type, `${at}.type`);
    if (item.region !== undefined && item.region !== null && (typeof item.region !== 'string' || item.region === '')) problems.add(`${at}.region`, 'must be a region name');
    if (item.properties !== undefined && item.properties !== null && !isRecord(item.properties)) problems.add(`${at}.properties`, 'must be a mapping');
    const tags = item.tags ?? {};
    if (!isRecord(tags)) problems.add(`${at}.tags`, 'must be a mapping of strings');
    else for (const [tag, value] of Object.entries(tags)) if (typeof value !== 'string') problems.add(`${at}.tags.${tag}`, 'must be a string');
    resources.push({
      name: String(item.name),
      type: String(item.type),
      region: typeof item.region === 'string' ? item.region : null,
      tags: (isRecord(tags) ? tags : {}) as Record<string, string>,
      properties: isRecord(item.properties) ? item.properties : {},
    });
  });

  const imports: CompositionImport[] = [];
  importItems.forEach((item, i) => {
    const at = `imports[${i}]`;
    if (!isRecord(item)) return void problems.add(at, 'must be a mapping with name, type and id');
    problems.unknownKeys(at, item, ['name', 'type', 'id']);
    checkName(item.name, `${at}.name`);
    checkType(item.type, `${at}.type`);
    if (typeof item.id !== 'string' || item.id === '') problems.add(`${at}.id`, 'must be the cloud id of an existing resource');
    imports.push({ name: String(item.name), type: String(item.type), id: String(item.id) });
  });

  return problems.details.length > 0 ? { composition: null, problems: problems.details } : { composition: { resources, imports }, problems: [] };
}

/** What the account's provider makes of a composition: types it does not have, and regions missing or unknown. */
export function providerProblems(composition: Composition, provider: Provider, withImports: boolean): ErrorDetail[] {
  const problems = new Problems(COMPOSITION_FILE, 'composition.invalid');
  composition.resources.forEach((resource, i) => {
    const at = `resources[${i}]`;
    if (!isSupportedType(provider, resource.type)) return void problems.add(`${at}.type`, `${resource.type} is not a resource type of ${provider}`);
    const global = isGlobal(provider, resource.type);
    if (global && resource.region !== null) problems.add(`${at}.region`, `${resource.type} is global; it takes no region`);
    if (!global && resource.region === null) problems.add(`${at}.region`, `${resource.type} is regional; name its region`);
    if (!global && resource.region !== null && usesRoles(provider) && !regionsOf(provider).includes(resource.region)) {
      problems.add(`${at}.region`, `'${resource.region}' is not a ${provider} region`);
    }
  });
  if (withImports) {
    composition.imports.forEach((item, i) => {
      if (!isSupportedType(provider, item.type)) problems.add(`imports[${i}].type`, `${item.type} is not a resource type of ${provider}`);
    });
  }
  return problems.details;
}
