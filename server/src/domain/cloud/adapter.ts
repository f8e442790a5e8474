import type { ResourceDocument } from '../rules/engine.js';
import type { Provider } from './providers.js';

/**
 * What the compliance engine and the conductor need from a cloud provider. The server ships a simulated cloud
 * (simulator/); a real provider would implement this same interface, and nothing above it would change.
 */
export interface SurveyScope {
  provider: Provider;
  /** The account number of a role ARN, or a provider_b subscription id. */
  account: string;
  /** Regions to list regional types in; `'*'` for all of the provider's regions. Global types are always listed. */
  regions: readonly string[] | '*';
  /** provider_b only: resource groups to list; `'*'` for all, including groups created later. */
  resourceGroups?: readonly string[] | '*';
  types: readonly string[];
}

/** One step of an inventory listing: a batch of resources, or a type that could not be listed. */
export type InventoryBatch =
  | { kind: 'resources'; resources: ResourceDocument[] }
  | { kind: 'type-error'; type: string; message: string };

export type RestoreOutcome = { ok: true } | { ok: false; message: string };

/** A resource the conductor asks for; properties and tags it leaves out keep the provider's defaults. */
export interface ResourceSpec {
  type: string;
  name: string;
  /** Null for global types. */
  region: string | null;
  tags: Record<string, string>;
  properties: Record<string, unknown>;
}

export type ChangeOutcome = { ok: true; document: ResourceDocument } | { ok: false; message: string };

export interface CloudAdapter {
  /**
   * Streams the resources of `scope` in batches, ordered by type and id, so that even an account of a hundred
   * thousand resources is never held in memory at once. A type that cannot be listed is reported, not thrown.
   */
  listResources(scope: SurveyScope): AsyncIterable<InventoryBatch>;
  /**
   * Brings a resource back to the state recorded in `target` (remediation): recreates it if it was removed,
   * restores its properties if they changed, and deletes it when `target` is null (it was added). Resolves to an
   * explanation when the resource cannot be brought back.
   */
  restoreResource(provider: Provider, account: string, resourceId: string, target: ResourceDocument | null): Promise<RestoreOutcome>;
  /** One resource by id; undefined when the account has none with this id. */
  getResource(provider: Provider, account: string, resourceId: string): Promise<ResourceDocument | undefined>;
  /** Creates a resource. Its id follows from type, region and name, so a retried create finds and updates it. */
  createResource(provider: Provider, account: string, spec: ResourceSpec): Promise<ChangeOutcome>;
  /** Sets the given properties and tags of a resource, leaving the others as they are. */
  updateResource(provider: Provider, account: string, resourceId: string, changes: Pick<ResourceSpec, 'properties' | 'tags'>): Promise<ChangeOutcome>;
  /** Deletes a resource; one that is already gone counts as deleted. */
  deleteResource(provider: Provider, account: string, resourceId: string): Promise<RestoreOutcome>;
}
