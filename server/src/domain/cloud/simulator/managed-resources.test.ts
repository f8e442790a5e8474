import { expect, it } from '@jest/globals';
import { describeEachDatabase } from '../../../../test/databases.js';
import { KyselyCloudInventoryRepository } from '../../../storage/repositories/cloud-inventory.js';
import { ManualClock } from '../../clock.js';
import { SimulatedCloud } from './simulated-cloud.js';

/** The simulator's side of the conductor: resources created, changed and deleted one by one. */
describeEachDatabase('simulated cloud, resources managed by the conductor', (db) => {
  const cloud = () => new SimulatedCloud(new KyselyCloudInventoryRepository(db().handle.db), new ManualClock(), { driftRate: 0 });
  const spec = { type: 'PROVA.SQS.Queue', name: 'jobs-1a2b3c4d', region: 'us-east-1', tags: { owner: 'web' }, properties: { fifo: true } };

  it('creates a resource with the given properties over the type defaults, and a retried create finds it', async () => {
    const sim = cloud();
    const created = await sim.createResource('provider_a', '111122223333', spec);
    if (!created.ok) throw new Error(created.message);
    expect(created.document).toMatchObject({ type: 'PROVA.SQS.Queue', region: 'us-east-1', account: '111122223333', tags: { owner: 'web' }, properties: { fifo: true } });
    expect(created.document.properties).toHaveProperty('visibility_timeout_seconds');
    expect(await sim.getResource('provider_a', '111122223333', created.document.id)).toEqual(created.document);

    const again = await sim.createResource('provider_a', '111122223333', { ...spec, properties: { fifo: false } });
    expect(again).toMatchObject({ ok: true, document: { id: created.document.id, properties: { fifo: false } } });
    expect(await sim.createResource('provider_a', '111122223333', { ...spec, type: 'PROVB.Storage.Account' })).toMatchObject({ ok: false });
  });

  it('updates only the given properties and tags, drifts a resource on demand, and deletes it', async () => {
    const sim = cloud();
    const created = await sim.createResource('provider_a', '111122224444', spec);
    if (!created.ok) throw new Error(created.message);
    const id = created.document.id;
    const updated = await sim.updateResource('provider_a', '111122224444', id, { properties: { fifo: false }, tags: { env: 'prod' } });
    expect(updated).toMatchObject({ ok: true, document: { tags: { owner: 'web', env: 'prod' }, properties: { fifo: false, encryption: created.document.properties.encryption } } });

    expect(await sim.driftResource('provider_a', '111122224444', id, { fifo: true })).toMatchObject({ properties: { fifo: true } });
    const before = await sim.getResource('provider_a', '111122224444', id);
    const drifted = await sim.driftResource('provider_a', '111122224444', id);
    expect(drifted!.properties).not.toEqual(before!.properties);
    expect(await sim.getResource('provider_a', '111122224444', id)).toEqual(drifted);

    expect(await sim.deleteResource('provider_a', '111122224444', id)).toEqual({ ok: true });
    expect(await sim.getResource('provider_a', '111122224444', id)).toBeUndefined();
    // Already gone counts as deleted; changing what is gone does not work.
    expect(await sim.deleteResource('provider_a', '111122224444', id)).toEqual({ ok: true });
    expect(await sim.updateResource('provider_a', '111122224444', id, { properties: {}, tags: {} })).toMatchObject({ ok: false });
  });

  it('refuses to change or delete a resource another system manages', async () => {
    const sim = cloud();
    await sim.ensureAccount('provider_a', '111122225555');
    const managed = await db()
      .handle.db.selectFrom('cloud_resources')
      .select('resource_id')
      .where('account_key', '=', 'provider_a:111122225555')
      .where('revertible', '=', 0)
      .executeTakeFirstOrThrow();
    expect(await sim.updateResource('provider_a', '111122225555', managed.resource_id, { properties: {}, tags: {} })).toMatchObject({ ok: false, message: expect.stringMatching(/managed by/) });
    expect(await sim.deleteResource('provider_a', '111122225555', managed.resource_id)).toMatchObject({ ok: false });
    expect(await sim.getResource('provider_a', '111122225555', managed.resource_id)).toBeDefined();
  });
});
