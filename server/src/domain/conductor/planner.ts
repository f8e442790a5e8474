import type { CloudAdapter } from '../cloud/adapter.js';
import { newId } from '../ids.js';
import type { ResourceDocument } from '../rules/engine.js';
import type { Composition } from './composition.js';
import type { PlannedOperation, Process, ProcessResource } from './types.js';

/**
 * The planner: what it takes to bring the cloud to a process's desired state. Dry-runs show its plans; jobs carry
 * them out. A process's desired state is its resource rows (see `initialResources` and `recompose`), so the same
 * plan serves the first creation, a composition update and a drift correction.
 */
export interface Step {
  operation: PlannedOperation['operation'];
  resource: ProcessResource;
  /** What the cloud holds for the resource now, if anything. */
  actual: ResourceDocument | undefined;
  changes: Record<string, unknown> | null;
}

/** The cloud document each resource row points at, by row id; undefined when it points at nothing (any more). */
export type Observed = Map<string, ResourceDocument | undefined>;

/** Reads what the cloud holds for each resource that has a cloud id. Reads only: the cloud is not changed. */
export async function observe(cloud: CloudAdapter, process: Pick<Process, 'provider' | 'accountId'>, resources: readonly ProcessResource[]): Promise<Observed> {
  const observed: Observed = new Map();
  for (const resource of resources) {
    observed.set(resource.id, resource.resourceId === null ? undefined : await cloud.getResource(process.provider, process.accountId, resource.resourceId));
  }
  return observed;
}

/** Deep equality of JSON values, whatever the order of object keys. */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const other = b as unknown[];
    return a.length === other.length && a.every((item, i) => sameValue(item, other[i]));
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = Object.keys(left);
  return keys.length === Object.keys(right).length && keys.every((key) => key in right && sameValue(left[key], right[key]));
}

/**
 * The desired properties and tags the cloud document does not have, as `{ key: { from, to } }` (tags as
 * `tags.<name>`). Only what the desired state names is compared: everything else is the provider's business.
 */
export function differences(desired: Pick<ProcessResource, 'properties' | 'tags'>, actual: ResourceDocument): Record<string, { from: unknown; to: unknown }> {
  const changes: Record<string, { from: unknown; to: unknown }> = {};
  for (const [key, want] of Object.entries(desired.properties)) {
    if (!sameValue(actual.properties[key], want)) changes[key] = { from: actual.properties[key] ?? null, to: want };
  }
  for (const [tag, want] of Object.entries(desired.tags)) {
    if (actual.tags[tag] !== want) changes[`tags.${tag}`] = { from: actual.tags[tag] ?? null, to: want };
  }
  return changes;
}

/** Composition order, then the retired resources: what the process keeps comes before what it lets go. */
const inPlanOrder = (resources: readonly ProcessResource[]): ProcessResource[] =>
  [...resources].sort((a, b) => Number(a.retired) - Number(b.retired) || a.position - b.position);

/**
 * One step per resource row: create what is missing, update what differs, import what waits to be adopted, delete
 * what was retired, and `none` for what already matches (or, retired, is already gone).
 */
export function planReconcile(resources: readonly ProcessResource[], observed: Observed): Step[] {
  return inPlanOrder(resources).map((resource) => {
    const actual = observed.get(resource.id);
    if (resource.retired) return { operation: actual ? 'delete' : 'none', resource, actual, changes: null };
    if (resource.origin === 'import') return { operation: 'import', resource, actual, changes: actual?.properties ?? null };
    if (!actual) return { operation: 'create', resource, actual, changes: resource.properties };
    const changes = differences(resource, actual);
    return Object.keys(changes).length > 0 ? { operation: 'update', resource, actual, changes } : { operation: 'none', resource, actual, changes: null };
  });
}

/** Deletes every resource that still exists; a resource waiting to be adopted was never the process's. */
export function planKill(resources: readonly ProcessResource[], observed: Observed): Step[] {
  return resources.map((resource) => {
    const actual = resource.origin === 'import' ? undefined : observed.get(resource.id);
    return { operation: actual ? 'delete' : 'none', resource, actual, changes: null };
  });
}

/** True when carrying out the plan would change something in the cloud. */
export const changesCloud = (steps: readonly Step[]): boolean => steps.some((s) => s.operation !== 'none');

/** A plan as dry-runs show it; retired resources that are already gone are not worth a line. */
export function toPlannedOperations(steps: readonly Step[]): PlannedOperation[] {
  return steps
    .filter((s) => !(s.resource.retired && s.operation === 'none'))
    .map((s) => ({
      operation: s.operation,
      resourceName: s.resource.name,
      resourceType: s.resource.type,
      resourceId: s.operation === 'create' ? null : (s.actual?.id ?? s.resource.resourceId),
      changes: s.changes,
    }));
}

const newResource = (fid: string, fields: Pick<ProcessResource, 'name' | 'type' | 'region' | 'properties' | 'tags' | 'position'>): ProcessResource => ({
  id: newId(),
  fid,
  resourceId: null,
  status: 'pending',
  origin: 'composition',
  retired: false,
  ...fields,
});

/** The resources of a new process: the composition's, then, with import_resources, the ones it adopts. */
export function initialResources(fid: string, composition: Composition, importResources: boolean): ProcessResource[] {
  const resources = composition.resources.map((r, position) => newResource(fid, { ...r, position }));
  if (!importResources) return resources;
  return [
    ...resources,
    // An adopted resource's desired state is the one it has when adopted (set by the job that adopts it).
    ...composition.imports.map((i, k) => ({
      ...newResource(fid, { name: i.name, type: i.type, region: null, properties: {}, tags: {}, position: resources.length + k }),
      resourceId: i.id,
      origin: 'import' as const,
    })),
  ];
}

/**
 * A process's resources under a new composition. A resource keeps its row (and its cloud resource) when the new
 * composition names it with the same type and region; a resource it no longer names is retired, to be deleted;
 * a new name (or a new type or region for a name) is a new, pending resource. Adopted resources stay as they are:
 * `imports` of a new composition are ignored.
 */
export function recompose(fid: string, current: readonly ProcessResource[], composition: Composition): { all: ProcessResource[]; added: ProcessResource[]; changed: ProcessResource[] } {
  const live = new Map(current.filter((r) => !r.retired && r.origin === 'composition').map((r) => [r.name, r]));
  const added: ProcessResource[] = [];
  const changed: ProcessResource[] = [];
  const kept = new Set<string>();
  composition.resources.forEach((r, position) => {
    const existing = live.get(r.name);
    if (existing && existing.type === r.type && existing.region === r.region) {
      kept.add(existing.id);
      changed.push({ ...existing, properties: r.properties, tags: r.tags, position });
    } else {
      added.push(newResource(fid, { ...r, position }));
    }
  });
  for (const r of live.values()) if (!kept.has(r.id)) changed.push({ ...r, retired: true });
  const adopted = current.filter((r) => !r.retired && r.origin !== 'composition');
  adopted.forEach((r, k) => changed.push({ ...r, position: composition.resources.length + k }));
  const replaced = new Map(changed.map((r) => [r.id, r]));
  const all = inPlanOrder([...current.map((r) => replaced.get(r.id) ?? r), ...added]);
  return { all, added, changed };
}
