import type { Clock } from '../../clock.js';
import type { ResourceDocument } from '../../rules/engine.js';
import type { CloudAccountRecord, CloudInventoryRepository, CloudResourceRecord } from '../../repositories.js';
import type { ChangeOutcome, CloudAdapter, InventoryBatch, ResourceSpec, RestoreOutcome, SurveyScope } from '../adapter.js';
import { isSupportedType, resourceTypesOf } from '../catalog.js';
import { ARN_PARTITION, regionsOf, type Provider } from '../providers.js';
import { Random } from '../random.js';
import { RESOURCE_MODELS } from './models.js';

/**
 * The simulated cloud. No real cloud is reachable, so each account gets an inventory generated deterministically
 * from its key (provider and account number), persisted, and changed between consecutive listings by a seeded
 * drift process: a few resources are modified, added and removed, so that drift, compliance and remediation events
 * happen in a demo without anyone touching anything.
 */
export interface SimulatorOptions {
  /** Share of an account's resources modified per drift step (adds and removes are a third of that each); 0 stops drift. */
  driftRate: number;
  /** Resources in a new account; by default a few hundred, derived from the account key. */
  accountSize?: (key: string) => number;
}

const PROVB_LOCATIONS = ['eastus', 'eastus2', 'westus2', 'westeurope', 'northeurope', 'uksouth', 'southeastasia'];
const TAG_VALUES = { env: ['prod', 'staging', 'dev'], owner: ['payments', 'platform', 'data', 'web'], 'cost-center': ['cc-100', 'cc-200', 'cc-300'] };
/** Share of resources another system manages; remediation cannot bring them back. */
const UNREVERTIBLE_SHARE = 0.03;
/** One type in this many cannot be listed in a given account, as if the role lacked a permission. */
const TYPE_ERROR_ONE_IN = 23;
/**
 * Resources per listing page. On SQLite a page is read on the request thread in one go: 200 keep a read to about
 * 2 ms, so requests arriving during a large scan wait little.
 */
const PAGE = 200;
/** provider_b: the resource group the conductor's processes create their resources in. */
const CONDUCTOR_RESOURCE_GROUP = 'rg-conductor';

export const accountKey = (provider: Provider, account: string): string => `${provider}:${account}`;

/** Why the account cannot list this type, if it cannot: a fixed, seeded property of the account. */
export function listingError(provider: Provider, account: string, type: string): string | undefined {
  if (new Random(`${accountKey(provider, account)}:${type}:denied`).int(1, TYPE_ERROR_ONE_IN) !== 1) return undefined;
  return `AccessDenied: the role cannot list ${type} in account ${account} (simulated)`;
}

/** Resources generated for a new account when no size is asked for: a few hundred, derived from the account key. */
export function defaultAccountSize(key: string): number {
  return 150 + new Random(`${key}:size`).int(0, 350);
}

export class SimulatedCloud implements CloudAdapter {
  private readonly accountSize: (key: string) => number;

  constructor(
    private readonly inventory: CloudInventoryRepository,
    private readonly clock: Clock,
    private readonly options: SimulatorOptions,
  ) {
    this.accountSize = options.accountSize ?? defaultAccountSize;
  }

  async *listResources(scope: SurveyScope): AsyncIterable<InventoryBatch> {
    const key = accountKey(scope.provider, scope.account);
    const account = await this.ensureAccount(scope.provider, scope.account);
    // Drift happens between two consecutive listings of an account, never before the first.
    const drifts = account.collections > 0 && this.options.driftRate > 0;
    if (drifts) await this.drift(scope.provider, scope.account, account);
    await this.inventory.recordCollection(key, drifts);

    const listable: string[] = [];
    for (const type of scope.types) {
      const error = listingError(scope.provider, scope.account, type);
      if (error) yield { kind: 'type-error', type, message: error };
      else listable.push(type);
    }
    const filter = {
      types: listable,
      regions: scope.regions === '*' ? null : scope.regions,
      resourceGroups: scope.resourceGroups === undefined || scope.resourceGroups === '*' ? null : scope.resourceGroups,
    };
    let after: { type: string; resourceId: string } | null = null;
    for (;;) {
      const page = await this.inventory.page(key, filter, after, PAGE);
      if (page.length === 0) return;
      yield { kind: 'resources', resources: page.map((r) => toDocument(scope.account, r)) };
      const last = page[page.length - 1]!;
      after = { type: last.type, resourceId: last.resourceId };
      if (page.length < PAGE) return;
    }
  }

  async restoreResource(provider: Provider, account: string, resourceId: string, target: ResourceDocument | null): Promise<RestoreOutcome> {
    const key = accountKey(provider, account);
    const current = await this.inventory.get(key, resourceId);
    if (current && !current.revertible) {
      return { ok: false, message: `${resourceId} is managed by ${current.managedBy ?? 'another system'}; its changes cannot be reverted (simulated)` };
    }
    if (target === null) {
      if (current) await this.inventory.delete(key, resourceId);
      return { ok: true };
    }
    const now = this.clock.nowSeconds();
    if (!current) {
      await this.ensureAccount(provider, account);
      await this.inventory.insertNewResources(key, [fromDocument(key, target, now)]);
      return { ok: true };
    }
    await this.inventory.update({ ...current, name: target.name, tags: target.tags, properties: target.properties, updatedAt: now });
    return { ok: true };
  }

  async getResource(provider: Provider, account: string, resourceId: string): Promise<ResourceDocument | undefined> {
    // An account's generated inventory is what the account holds from the start: materializing it changes nothing.
    await this.ensureAccount(provider, account);
    const record = await this.inventory.get(accountKey(provider, account), resourceId);
    return record && toDocument(account, record);
  }

  async createResource(provider: Provider, account: string, spec: ResourceSpec): Promise<ChangeOutcome> {
    const model = RESOURCE_MODELS.get(spec.type);
    if (!model || !isSupportedType(provider, spec.type)) return { ok: false, message: `${spec.type} is not a ${provider} resource type (simulated)` };
    const key = accountKey(provider, account);
    await this.ensureAccount(provider, account);
    const group = provider === 'provider_b' ? CONDUCTOR_RESOURCE_GROUP : null;
    const resourceId = resourceIdOf(provider, account, spec.type, spec.region, group, spec.name);
    const existing = await this.inventory.get(key, resourceId);
    if (existing) return this.updateResource(provider, account, resourceId, spec);
    const defaults = model.generate(new Random(`${key}:${resourceId}:created`), { name: spec.name, region: spec.region });
    const resource: Omit<CloudResourceRecord, 'seq'> = {
      accountKey: key,
      resourceId,
      type: spec.type,
      region: spec.region,
      resourceGroup: group,
      name: spec.name,
      tags: { ...spec.tags },
      properties: { ...defaults, ...spec.properties },
      revertible: true,
      managedBy: null,
      updatedAt: this.clock.nowSeconds(),
    };
    const [created] = await this.inventory.insertNewResources(key, [resource]);
    // Created meanwhile by another attempt (a retried job, another server): as if it had existed before.
    if (!created) return this.updateResource(provider, account, resourceId, spec);
    return { ok: true, document: toDocument(account, created) };
  }

  async updateResource(provider: Provider, account: string, resourceId: string, changes: Pick<ResourceSpec, 'properties' | 'tags'>): Promise<ChangeOutcome> {
    const current = await this.inventory.get(accountKey(provider, account), resourceId);
    if (!current) return { ok: false, message: `${resourceId} does not exist (simulated)` };
    if (!current.revertible) return { ok: false, message: `${resourceId} is managed by ${current.managedBy ?? 'another system'}; it cannot be changed (simulated)` };
    const updated = { ...current, tags: { ...current.tags, ...changes.tags }, properties: { ...current.properties, ...changes.properties }, updatedAt: this.clock.nowSeconds() };
    await this.inventory.update(updated);
    return { ok: true, document: toDocument(account, updated) };
  }

  async deleteResource(provider: Provider, account: string, resourceId: string): Promise<RestoreOutcome> {
    const key = accountKey(provider, account);
    const current = await this.inventory.get(key, resourceId);
    if (!current) return { ok: true };
    if (!current.revertible) return { ok: false, message: `${resourceId} is managed by ${current.managedBy ?? 'another system'}; it cannot be deleted (simulated)` };
    await this.inventory.delete(key, resourceId);
    return { ok: true };
  }

  /**
   * Drifts one resource, as if someone changed it outside the conductor: sets `properties` when given, otherwise
   * makes one of the type's usual drift changes. Lets tests and demos provoke drift of a given resource.
   */
  async driftResource(provider: Provider, account: string, resourceId: string, properties?: Record<string, unknown>): Promise<ResourceDocument | undefined> {
    const key = accountKey(provider, account);
    const current = await this.inventory.get(key, resourceId);
    const model = current && RESOURCE_MODELS.get(current.type);
    if (!current || !model) return undefined;
    const now = this.clock.nowSeconds();
    const next = properties ? { ...current.properties, ...properties } : model.drift(new Random(`${key}:${resourceId}:drift:${now}`), current.properties);
    const drifted = { ...current, properties: next, updatedAt: now };
    await this.inventory.update(drifted);
    return toDocument(account, drifted);
  }

  /** Whether the account's inventory exists (was generated, or is being generated). */
  async hasAccount(provider: Provider, account: string): Promise<boolean> {
    return (await this.inventory.getAccount(accountKey(provider, account))) !== undefined;
  }

  /** The account's inventory, generated on first use. Several processes may race; one wins, all see the same. */
  async ensureAccount(provider: Provider, account: string, size?: number): Promise<CloudAccountRecord> {
    const key = accountKey(provider, account);
    const existing = await this.inventory.getAccount(key);
    if (existing) return existing;
    const count = size ?? this.accountSize(key);
    const record: CloudAccountRecord = { key, provider, nextSeq: count, driftSteps: 0, collections: 0, createdAt: this.clock.nowSeconds() };
    // The account row and its inventory are written together: an account is never seen, nor left by a crash,
    // holding only part of what it was generated with.
    if (!(await this.inventory.createAccount(record, this.generate(provider, account, count)))) return (await this.inventory.getAccount(key))!;
    return record;
  }

  /** An account's initial inventory, in batches, so that a large account is never all in memory at once. */
  private *generate(provider: Provider, account: string, count: number): Generator<CloudResourceRecord[]> {
    const rng = new Random(`${accountKey(provider, account)}:inventory`);
    const groups = provider === 'provider_b' ? Array.from({ length: rng.int(3, 6) }, () => `rg-${rng.pick(['app', 'data', 'shared', 'web', 'ops'])}-${rng.hex(4)}`) : [];
    let batch: CloudResourceRecord[] = [];
    for (let seq = 0; seq < count; seq += 1) {
      batch.push(this.newResource(provider, account, seq, rng, groups));
      if (batch.length === 2000) {
        yield batch;
        batch = [];
      }
    }
    if (batch.length > 0) yield batch;
  }

  private newResource(provider: Provider, account: string, seq: number, rng: Random, groups: readonly string[]): CloudResourceRecord {
    const types = resourceTypesOf(provider);
    const info = rng.pick(types);
    const model = RESOURCE_MODELS.get(info.type);
    if (!model) throw new Error(`no simulation model for ${info.type}`);
    const name = `${model.nameStem}-${rng.hex(4)}${seq.toString(36)}`;
    const region = info.global ? null : provider === 'provider_b' ? rng.pick(PROVB_LOCATIONS) : rng.pick(regionsOf(provider));
    const resourceGroup = provider === 'provider_b' ? rng.pick(groups) : null;
    const tags: Record<string, string> = {};
    for (const [tag, values] of Object.entries(TAG_VALUES)) if (rng.chance(0.8)) tags[tag] = rng.pick(values);
    const revertible = !rng.chance(UNREVERTIBLE_SHARE);
    return {
      accountKey: accountKey(provider, account),
      resourceId: resourceIdOf(provider, account, info.type, region, resourceGroup, name),
      seq,
      type: info.type,
      region,
      resourceGroup,
      name,
      tags,
      properties: model.generate(rng, { name, region }),
      revertible,
      managedBy: revertible ? null : 'external-automation',
      updatedAt: this.clock.nowSeconds(),
    };
  }

  /** One drift step: modify, add and remove a few resources, seeded by the account and the step number. */
  private async drift(provider: Provider, account: string, record: CloudAccountRecord): Promise<void> {
    const key = record.key;
    const rng = new Random(`${key}:drift:${record.driftSteps}`);
    const size = await this.inventory.count(key);
    const modifies = Math.max(1, Math.round(size * this.options.driftRate));
    const others = Math.max(1, Math.round((size * this.options.driftRate) / 3));
    const now = this.clock.nowSeconds();

    const pickExisting = async (): Promise<CloudResourceRecord | undefined> => {
      for (let attempt = 0; attempt < 8; attempt += 1) {
        const found = await this.inventory.getBySeq(key, rng.int(0, Math.max(0, record.nextSeq - 1)));
        if (found) return found;
      }
      return undefined;
    };
    for (let i = 0; i < modifies; i += 1) {
      const resource = await pickExisting();
      const model = resource && RESOURCE_MODELS.get(resource.type);
      if (resource && model) await this.inventory.update({ ...resource, properties: model.drift(rng, resource.properties), updatedAt: now });
    }
    for (let i = 0; i < others; i += 1) {
      const resource = await pickExisting();
      if (resource) await this.inventory.delete(key, resource.resourceId);
    }
    const groups = provider === 'provider_b' ? await this.groupsOf(key, rng) : [];
    const added: CloudResourceRecord[] = [];
    for (let i = 0; i < others; i += 1) added.push(this.newResource(provider, account, record.nextSeq + i, rng, groups));
    // The seqs (and so the names) above are a guess at the next ones; the store hands out the real seqs.
    await this.inventory.insertNewResources(key, added.map(({ seq: _seq, ...resource }) => resource));
  }

  /** Existing groups, plus now and then a new one: a survey of `*` picks it up, a fixed list does not. */
  private async groupsOf(key: string, rng: Random): Promise<string[]> {
    const sample = await this.inventory.page(key, { types: resourceTypesOf('provider_b').map((t) => t.type), regions: null, resourceGroups: null }, null, 200);
    const groups = [...new Set(sample.map((r) => r.resourceGroup).filter((g): g is string => g !== null))];
    return rng.chance(0.2) || groups.length === 0 ? [`rg-new-${rng.hex(4)}`] : groups;
  }
}

function resourceIdOf(provider: Provider, account: string, type: string, region: string | null, group: string | null, name: string): string {
  const [, service, kind] = type.split('.') as [string, string, string];
  if (provider === 'provider_b') {
    return `/subscriptions/${account}/resourceGroups/${group}/providers/${service}/${kind}/${name}`;
  }
  return `arn:${ARN_PARTITION[provider]}:${service.toLowerCase()}:${region ?? ''}:${account}:${kind.toLowerCase()}/${name}`;
}

function toDocument(account: string, record: CloudResourceRecord): ResourceDocument {
  return {
    id: record.resourceId,
    type: record.type,
    name: record.name,
    region: record.region,
    account,
    tags: record.tags,
    properties: record.properties,
    ...(record.resourceGroup !== null && { resource_group: record.resourceGroup }),
  };
}

function fromDocument(key: string, document: ResourceDocument, now: number): Omit<CloudResourceRecord, 'seq'> {
  return {
    accountKey: key,
    resourceId: document.id,
    type: document.type,
    region: document.region,
    resourceGroup: document.resource_group ?? null,
    name: document.name,
    tags: document.tags,
    properties: document.properties,
    revertible: true,
    managedBy: null,
    updatedAt: now,
  };
}
