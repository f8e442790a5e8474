import { afterEach, it } from '@jest/globals';
import { describeEachDatabase } from '../../../../test/databases.js';
import { expect } from '../../../../test/expect.js';
import { openDatabase, type DatabaseHandle } from '../../../storage/database.js';
import { KyselyCloudInventoryRepository } from '../../../storage/repositories/cloud-inventory.js';
import { ManualClock } from '../../clock.js';
import type { ResourceSpec } from '../adapter.js';
import { accountKey, SimulatedCloud } from './simulated-cloud.js';

const ACCOUNT = '444455556666';
const KEY = accountKey('provider_a', ACCOUNT);

const bucket = (name: string): ResourceSpec => ({ type: 'PROVA.S3.Bucket', name, region: null, tags: { owner: 'tests' }, properties: { versioning: 'Enabled' } });

describeEachDatabase('simulated cloud sequence numbers', (db) => {
  const opened: DatabaseHandle[] = [];
  afterEach(async () => {
    for (const handle of opened.splice(0)) await handle.close();
  });

  const cloudOn = (handle: DatabaseHandle) => new SimulatedCloud(new KyselyCloudInventoryRepository(handle.db), new ManualClock(), { driftRate: 0, accountSize: () => 20 });

  /** Two simulators as two servers would have them: on PostgreSQL each with its own pool on the same schema. */
  const twoServers = (): [SimulatedCloud, SimulatedCloud] => {
    const { handle, target } = db();
    if (target.name !== 'postgres') return [cloudOn(handle), cloudOn(handle)];
    const second = openDatabase(target.url, { schema: handle.schema! });
    opened.push(second);
    return [cloudOn(handle), cloudOn(second)];
  };

  const seqsOf = async () => {
    const rows = await db().handle.db.selectFrom('cloud_resources').select('seq').where('account_key', '=', KEY).orderBy('seq').execute();
    return rows.map((r) => Number(r.seq));
  };

  it('gives concurrent creations in one account, from two servers, distinct sequence numbers, and all succeed', async () => {
    const [a, b] = twoServers();
    await a.ensureAccount('provider_a', ACCOUNT);
    const names = Array.from({ length: 16 }, (_, i) => `bucket-${i}`);
    const outcomes = await Promise.all(names.map((name, i) => (i % 2 === 0 ? a : b).createResource('provider_a', ACCOUNT, bucket(name))));
    for (const [i, outcome] of outcomes.entries()) expect(outcome.ok, `${names[i]}: ${JSON.stringify(outcome)}`).toBe(true);
    const seqs = await seqsOf();
    expect(seqs).toEqual(Array.from({ length: 20 + names.length }, (_, i) => i));
    const account = await new KyselyCloudInventoryRepository(db().handle.db).getAccount(KEY);
    expect(account?.nextSeq).toBe(20 + names.length);
  });

  it('creates the same resource once when two attempts race, and the other attempt finds it', async () => {
    const [a, b] = twoServers();
    await a.ensureAccount('provider_a', ACCOUNT);
    const outcomes = await Promise.all([a.createResource('provider_a', ACCOUNT, bucket('twice')), b.createResource('provider_a', ACCOUNT, bucket('twice'))]);
    expect(outcomes.map((o) => o.ok)).toEqual([true, true]);
    expect(await seqsOf()).toHaveLength(21);
  });

  it('recovers an account whose counter a crash left behind its last resource: the retry and later creations succeed', async () => {
    const cloud = cloudOn(db().handle);
    await cloud.ensureAccount('provider_a', ACCOUNT);
    const first = await cloud.createResource('provider_a', ACCOUNT, bucket('before-crash'));
    expect(first.ok).toBe(true);
    // What a crash between the resource's insert and the counter's update used to leave: the counter pointing at a
    // sequence number a resource already holds.
    await db().handle.db.updateTable('cloud_accounts').set({ next_seq: 20 }).where('account_key', '=', KEY).execute();

    const retried = await cloud.createResource('provider_a', ACCOUNT, bucket('before-crash'));
    expect(retried, JSON.stringify(retried)).toMatchObject({ ok: true, document: { name: 'before-crash' } });
    for (const name of ['after-1', 'after-2', 'after-3']) {
      const outcome = await cloud.createResource('provider_a', ACCOUNT, bucket(name));
      expect(outcome.ok, `${name}: ${JSON.stringify(outcome)}`).toBe(true);
    }
    expect(await seqsOf()).toEqual(Array.from({ length: 24 }, (_, i) => i));
  });

  it('keeps the counter when listings and creations in one account interleave', async () => {
    const { handle } = db();
    const cloud = new SimulatedCloud(new KyselyCloudInventoryRepository(handle.db), new ManualClock(), { driftRate: 0.2, accountSize: () => 20 });
    const list = async () => {
      for await (const _batch of cloud.listResources({ provider: 'provider_a', account: ACCOUNT, regions: '*', types: ['PROVA.S3.Bucket'] }));
    };
    await list();
    // Listings drift the account (adding resources); creations add more; none may reuse a sequence number.
    const outcomes = await Promise.all([list(), cloud.createResource('provider_a', ACCOUNT, bucket('c1')), list(), cloud.createResource('provider_a', ACCOUNT, bucket('c2')), list()]);
    for (const outcome of outcomes) if (outcome) expect(outcome.ok, JSON.stringify(outcome)).toBe(true);
    const later = await cloud.createResource('provider_a', ACCOUNT, bucket('c3'));
    expect(later.ok, JSON.stringify(later)).toBe(true);
    const seqs = await seqsOf();
    expect(new Set(seqs).size).toBe(seqs.length);
    const account = await new KyselyCloudInventoryRepository(handle.db).getAccount(KEY);
    expect(account!.nextSeq).toBeGreaterThan(Math.max(...seqs));
    expect(account!.collections).toBe(4);
  });
});
