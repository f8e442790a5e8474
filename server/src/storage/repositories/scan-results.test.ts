import { beforeEach, it } from '@jest/globals';
import { Migrator, sql } from 'kysely';
import type { Finding } from '../../domain/scans/types.js';
import { describeEachDatabase } from '../../../test/databases.js';
import { expect } from '../../../test/expect.js';
import { environmentFixture } from '../../../test/fixtures/environments.js';
import { KyselyEnvironmentRepository } from './environments.js';
import { migrationsFor } from '../migrations/index.js';
import { KyselyScanResultRepository } from './scan-results.js';

const ORG = 'org-1';
const SCAN = 'scan-1';
const BUCKET = 'PROVA.S3.Bucket';
const INSTANCE = 'PROVA.EC2.Instance';

/** Resource ids in the order both stores sort them: digits after one prefix. */
const resource = (n: number) => `res-${String(n).padStart(3, '0')}`;

/**
 * A scan's findings as the result pages read them: 150 buckets, of which every third fails rule-b (so 50 do) and
 * every fifth fails rule-a, plus instances failing rule-c. Written in an order unlike the one read back.
 */
function findings(): Finding[] {
  const all: Finding[] = [];
  for (let n = 150; n >= 1; n -= 1) {
    if (n % 5 === 0) all.push({ ruleId: 'rule-a', resourceId: resource(n), resourceType: BUCKET, result: 'FAIL', message: `a fails on ${n}` });
    if (n % 3 === 0) all.push({ ruleId: 'rule-b', resourceId: resource(n), resourceType: BUCKET, result: 'ERROR', message: `b fails on ${n}` });
    if (n % 2 === 0) all.push({ ruleId: 'rule-c', resourceId: `i-${resource(n)}`, resourceType: INSTANCE, result: 'FAIL', message: `c fails on ${n}` });
  }
  return all.sort((x, y) => y.message.localeCompare(x.message));
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
const failingBuckets = range(1, 150).filter((n) => n % 5 === 0 || n % 3 === 0);

describeEachDatabase('scan result pages', (db) => {
  let results: KyselyScanResultRepository;

  beforeEach(async () => {
    const handle = db().handle.db;
    await handle.insertInto('organizations').values({ id: ORG, name: 'org', created_at: 1 }).execute();
    const env = environmentFixture(ORG, 'scanned', 1);
    await new KyselyEnvironmentRepository(handle).insert(env);
    await handle
      .insertInto('scans')
      .values({ id: SCAN, org_id: ORG, environment_id: env.id, status: 'SUCCESS', message: null, remediation_error: 0, created_at: 1, updated_at: 2, finished_at: 2, summary: null, resource_type_errors: null, families: null, job_id: null })
      .execute();
    results = new KyselyScanResultRepository(handle);
    await results.addBatch(SCAN, [], findings());
  });

  it('lists the first failing resources of a type by id, each with its findings by rule', async () => {
    const { resources, total } = await results.findingsOfType(SCAN, BUCKET, null, 20, false);
    expect(total).toBeNull();
    expect([...resources.keys()]).toEqual(failingBuckets.slice(0, 20).map(resource));
    // 15 fails both rules: a before b.
    expect(resources.get(resource(15))).toEqual([
      { ruleId: 'rule-a', message: 'a fails on 15' },
      { ruleId: 'rule-b', message: 'b fails on 15' },
    ]);
    expect(resources.get(resource(3))).toEqual([{ ruleId: 'rule-b', message: 'b fails on 3' }]);
    expect((await results.findingsOfType(SCAN, BUCKET, null, 1_000, false)).resources.size).toBe(failingBuckets.length);
  });

  it('lists and counts only the resources failing the rules asked for', async () => {
    const { resources, total } = await results.findingsOfType(SCAN, BUCKET, ['rule-a'], 20, true);
    expect(total).toBe(30);
    expect([...resources.keys()]).toEqual(range(1, 20).map((n) => resource(n * 5)));
    // 15 fails rule-b as well, which was not asked for.
    expect(resources.get(resource(15))).toEqual([{ ruleId: 'rule-a', message: 'a fails on 15' }]);
    expect(await results.findingsOfType(SCAN, BUCKET, ['rule-c'], 20, true)).toEqual({ resources: new Map(), total: 0 });
    expect(await results.findingsOfType(SCAN, BUCKET, [], 20, true)).toEqual({ resources: new Map(), total: 0 });
  });

  it('lists nothing for a type without failing resources', async () => {
    expect(await results.findingsOfType(SCAN, 'PROVA.SQS.Queue', null, 20, false)).toEqual({ resources: new Map(), total: null });
  });

  it('lists the first failing resources of each rule by id, as whole findings', async () => {
    const byRule = await results.findingsOfRules(SCAN, ['rule-b', 'rule-a', 'rule-b'], 10);
    expect([...byRule.keys()]).toEqual(['rule-b', 'rule-a']);
    expect(byRule.get('rule-a')).toEqual(range(1, 10).map((n) => ({ ruleId: 'rule-a', resourceId: resource(n * 5), resourceType: BUCKET, result: 'FAIL', message: `a fails on ${n * 5}` })));
    expect(byRule.get('rule-b')![0]).toEqual({ ruleId: 'rule-b', resourceId: resource(3), resourceType: BUCKET, result: 'ERROR', message: 'b fails on 3' });
    expect((await results.findingsOfRules(SCAN, ['rule-d'], 10)).get('rule-d')).toEqual([]);
  });

  it('keeps the findings of scans made before the findings were stored by rule and by type (0015), both ways', async () => {
    const { handle } = db();
    const migrator = new Migrator({ db: handle.db, provider: { getMigrations: async () => migrationsFor(handle.dialect) }, ...(handle.schema && { migrationTableSchema: handle.schema }) });
    const everyFinding = async () => (await results.findingsPage(SCAN, null, 1_000)).map((f) => JSON.stringify(f));
    const before = await everyFinding();
    expect(before).toHaveLength(findings().length);
    const storedBy = async () =>
      handle.dialect === 'sqlite'
        ? (await sql<{ sql: string }>`select sql from sqlite_master where name in ('scan_findings', 'scan_findings_resource') order by name`.execute(handle.db)).rows.map((r) => r.sql)
        : (await sql<{ indexdef: string }>`select indexdef from pg_indexes where indexname = 'scan_findings_resource' and schemaname = current_schema()`.execute(handle.db)).rows.map((r) => r.indexdef);

    expect((await migrator.migrateTo('0014_environment_versions')).error).toBeUndefined();
    expect(await everyFinding()).toEqual(before);
    expect((await storedBy()).join('\n')).not.toMatch(/rule_id"?\)/);

    expect((await migrator.migrateToLatest()).error).toBeUndefined();
    expect(await everyFinding()).toEqual(before);
    const [table, index] = handle.dialect === 'sqlite' ? await storedBy() : [null, ...(await storedBy())];
    if (handle.dialect === 'sqlite') expect(table).toMatch(/without rowid$/i);
    expect(index).toMatch(handle.dialect === 'sqlite' ? /"resource_id", "rule_id", "message"\)$/ : /resource_id, rule_id\)$/);
    // A scan deleted deletes its findings still.
    await handle.db.deleteFrom('scans').where('id', '=', SCAN).execute();
    expect(await everyFinding()).toEqual([]);
  });
});
