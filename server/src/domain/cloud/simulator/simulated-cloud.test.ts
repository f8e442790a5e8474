import { expect, it } from '@jest/globals';
import { describeEachDatabase } from '../../../../test/databases.js';
import { KyselyCloudInventoryRepository } from '../../../storage/repositories/cloud-inventory.js';
import { ManualClock } from '../../clock.js';
import type { ResourceDocument } from '../../rules/engine.js';
import type { SurveyScope } from '../adapter.js';
import { resourceTypesOf } from '../catalog.js';
import { SimulatedCloud } from './simulated-cloud.js';

const ALL_A_TYPES = resourceTypesOf('provider_a').map((t) => t.type);

describeEachDatabase('simulated cloud', (db) => {
  const cloud = (driftRate = 0.05) => new SimulatedCloud(new KyselyCloudInventoryRepository(db().handle.db), new ManualClock(), { driftRate });

  async function list(sim: SimulatedCloud, scope: SurveyScope) {
    const resources: ResourceDocument[] = [];
    const typeErrors: string[] = [];
    for await (const batch of sim.listResources(scope)) {
      if (batch.kind === 'resources') resources.push(...batch.resources);
      else typeErrors.push(batch.type);
    }
    return { resources, typeErrors };
  }

  const scope = (account: string, overrides: Partial<SurveyScope> = {}): SurveyScope => ({
    provider: 'provider_a',
    account,
    regions: '*',
    types: ALL_A_TYPES,
    ...overrides,
  });

  it('generates the same inventory for the same account, and hundreds of resources of many types', async () => {
    const first = await list(cloud(0), scope('111122223333'));
    expect(first.resources.length).toBeGreaterThanOrEqual(150);
    expect(new Set(first.resources.map((r) => r.type)).size).toBeGreaterThan(20);

    // Without drift, listing again returns exactly the same documents.
    const again = await list(cloud(0), scope('111122223333'));
    expect(again.resources).toEqual(first.resources);
  });

  it('lists regional types only in the requested regions, and global types always', async () => {
    const { resources } = await list(cloud(0), scope('222233334444', { regions: ['eu-west-1'] }));
    expect(resources.every((r) => r.region === null || r.region === 'eu-west-1')).toBe(true);
    expect(resources.some((r) => r.region === null)).toBe(true);
  });

  it('adds, modifies and removes resources between two listings of an account', async () => {
    const sim = cloud(0.05);
    const before = new Map((await list(sim, scope('333344445555'))).resources.map((r) => [r.id, JSON.stringify(r)]));
    const after = new Map((await list(sim, scope('333344445555'))).resources.map((r) => [r.id, JSON.stringify(r)]));
    const added = [...after.keys()].filter((id) => !before.has(id));
    const removed = [...before.keys()].filter((id) => !after.has(id));
    const modified = [...after.keys()].filter((id) => before.has(id) && before.get(id) !== after.get(id));
    expect(added.length).toBeGreaterThan(0);
    expect(removed.length).toBeGreaterThan(0);
    expect(modified.length).toBeGreaterThan(0);
  });

  it('reports types an account cannot list, deterministically, instead of failing the listing', async () => {
    let withErrors: string | undefined;
    for (let n = 0; n < 40 && !withErrors; n += 1) {
      const account = String(444455556666 + n);
      if ((await list(cloud(0), scope(account))).typeErrors.length > 0) withErrors = account;
    }
    expect(withErrors).toBeDefined();
    const again = await list(cloud(0), scope(withErrors!));
    expect(again.typeErrors.length).toBeGreaterThan(0);
    expect(again.resources.some((r) => again.typeErrors.includes(r.type))).toBe(false);
  });

  it('restores a resource to a recorded state, and refuses for resources another system manages', async () => {
    const sim = cloud(0);
    const { resources } = await list(sim, scope('555566667777'));
    const target = resources[0]!;
    const changed = { ...target, properties: { ...target.properties, drifted: true } };
    expect(await sim.restoreResource('provider_a', '555566667777', target.id, null)).toEqual({ ok: true });
    expect(await sim.restoreResource('provider_a', '555566667777', target.id, changed)).toEqual({ ok: true });
    const restored = (await list(sim, scope('555566667777'))).resources.find((r) => r.id === target.id);
    expect(restored?.properties).toMatchObject({ drifted: true });

    let refused = false;
    for (const resource of resources) {
      const outcome = await sim.restoreResource('provider_a', '555566667777', resource.id, resource);
      if (!outcome.ok) {
        expect(outcome.message).toMatch(/cannot be reverted/);
        refused = true;
        break;
      }
    }
    expect(refused).toBe(true);
  });

  it("picks up resource groups created later when surveying '*', and only then", async () => {
    const types = resourceTypesOf('provider_b').map((t) => t.type);
    const sim = cloud(0.05);
    const account = '6a0e2f4c-1b3d-4e5f-8a7b-9c0d1e2f3a4b';
    const groupsOf = async (resourceGroups: '*' | string[]) =>
      new Set((await list(sim, { provider: 'provider_b', account, regions: '*', resourceGroups, types })).resources.map((r) => r.resource_group));
    const initial = await groupsOf('*');
    let later = initial;
    for (let step = 0; step < 30 && [...later].every((g) => initial.has(g)); step += 1) later = await groupsOf('*');
    const added = [...later].filter((g) => !initial.has(g));
    expect(added.length).toBeGreaterThan(0);
    const fixed = await groupsOf([...initial] as string[]);
    expect([...fixed].some((g) => added.includes(g))).toBe(false);
  });

  it('gives provider_b resources resource groups and lists only the requested groups', async () => {
    const types = resourceTypesOf('provider_b').map((t) => t.type);
    const sim = cloud(0);
    const all = await list(sim, { provider: 'provider_b', account: '8f14e45f-ceea-4e7a-9c3b-0d5e2f1a6b7c', regions: '*', resourceGroups: '*', types });
    const groups = [...new Set(all.resources.map((r) => r.resource_group))];
    expect(groups.length).toBeGreaterThanOrEqual(3);
    const one = await list(sim, { provider: 'provider_b', account: '8f14e45f-ceea-4e7a-9c3b-0d5e2f1a6b7c', regions: '*', resourceGroups: [groups[0]!], types });
    expect(one.resources.every((r) => r.resource_group === groups[0])).toBe(true);
  });
});
