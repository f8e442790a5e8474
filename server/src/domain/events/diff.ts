import type { ResourceDocument } from '../rules/engine.js';
import type { AttributeChange } from './types.js';

/** Attributes that cannot change in place: a different value means a different resource. */
const REQUIRES_NEW = new Set(['name', 'region', 'resource_group']);
const SENSITIVE = /secret|password|token|private_key/i;

function flatten(value: unknown, prefix: string, out: Map<string, string>): void {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length === 0) out.set(prefix, '{}');
    for (const [key, inner] of entries) flatten(inner, prefix ? `${prefix}.${key}` : key, out);
    return;
  }
  out.set(prefix, typeof value === 'string' ? value : JSON.stringify(value));
}

const attributesOf = (document: ResourceDocument): Map<string, string> => {
  const out = new Map<string, string>();
  flatten({ name: document.name, region: document.region, resource_group: document.resource_group, tags: document.tags, properties: document.properties }, '', out);
  return out;
};

/** Attribute-level changes from `before` to `after`; either may be absent (the resource was added or removed). */
export function diffAttributes(before: ResourceDocument | null, after: ResourceDocument | null): AttributeChange[] {
  const old = before ? attributesOf(before) : new Map<string, string>();
  const now = after ? attributesOf(after) : new Map<string, string>();
  const changes: AttributeChange[] = [];
  for (const name of [...new Set([...old.keys(), ...now.keys()])].sort()) {
    const oldValue = old.get(name) ?? null;
    const newValue = now.get(name) ?? null;
    if (oldValue === newValue) continue;
    const sensitive = SENSITIVE.test(name);
    changes.push({
      name,
      old: sensitive && oldValue !== null ? '(sensitive)' : oldValue,
      new: sensitive && newValue !== null ? '(sensitive)' : newValue,
      removed: newValue === null,
      requiresNew: REQUIRES_NEW.has(name),
      sensitive,
    });
  }
  return changes;
}
