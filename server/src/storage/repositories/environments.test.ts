import { beforeEach, it } from '@jest/globals';
import { sql } from 'kysely';
import type { Environment } from '../../domain/environments/types.js';
import type { PageRequest } from '../../domain/repositories.js';
import { describeEachDatabase } from '../../../test/databases.js';
import { expect } from '../../../test/expect.js';
import { environmentFixture } from '../../../test/fixtures/environments.js';
import { KyselyEnvironmentRepository } from './environments.js';
import { KyselyScanRepository } from './scans.js';

const ORG = 'org-1';
const FIRST_PAGE: PageRequest = { offset: 0, limit: 50 };
const NEWEST_FIRST = { by: 'created_at', direction: 'desc' } as const;

const environment = (name: string, createdAt: number): Environment => environmentFixture(ORG, name, createdAt);

/**
 * Pages of environments, and the versions the database keeps of an environment and of an organization's list, which
 * the edge cache keys answers by (server/src/http/edge-cache.ts). Two repositories on one database stand for two
 * server processes: whatever one writes, the other reads at once, and the versions move whoever writes.
 */
describeEachDatabase('environment pages and versions', (db) => {
  let reader: KyselyEnvironmentRepository;
  let writer: KyselyEnvironmentRepository;
  let ids: string[];

  beforeEach(async () => {
    await db().handle.db.insertInto('organizations').values({ id: ORG, name: 'org', created_at: 1 }).execute();
    reader = new KyselyEnvironmentRepository(db().handle.db);
    writer = new KyselyEnvironmentRepository(db().handle.db);
    ids = [];
    for (const [i, name] of ['alpha', 'beta', 'gamma'].entries()) {
      const env = environment(name, 1_000 + i);
      await writer.insert(env);
      ids.push(env.id);
    }
  });

  const names = async (repository = reader) => (await repository.list(ORG, FIRST_PAGE, NEWEST_FIRST, {})).items.map((env) => env.name);

  it('shows every write of another process: an edit, a scan starting and ending, a deletion, a new environment', async () => {
    expect(await names()).toEqual(['gamma', 'beta', 'alpha']);

    await writer.modify(ORG, ids[1]!, (env) => ({ ...env, name: 'beta-renamed', complianceFamilies: ['CIS', 'PCI'] }));
    const afterEdit = await reader.list(ORG, FIRST_PAGE, NEWEST_FIRST, {});
    expect(afterEdit.items.map((env) => [env.name, env.complianceFamilies])).toEqual([
      ['gamma', ['CIS']],
      ['beta-renamed', ['CIS', 'PCI']],
      ['alpha', ['CIS']],
    ]);

    await writer.recordScan(ids[0]!, { scanId: 'scan-1', startedAt: 2_000, status: 'IN_PROGRESS' });
    expect((await reader.list(ORG, FIRST_PAGE, NEWEST_FIRST, {})).items[2]).toMatchObject({ lastScanId: 'scan-1', scanStatus: 'IN_PROGRESS' });
    await writer.recordScan(ids[0]!, { scanId: 'scan-1', startedAt: 2_000, status: 'SUCCESS', finishedAt: 2_100 });
    expect((await reader.list(ORG, FIRST_PAGE, NEWEST_FIRST, {})).items[2]).toMatchObject({ scanStatus: 'SUCCESS', scheduleAnchorAt: 2_100 });

    await writer.delete(ORG, ids[2]!);
    await writer.insert(environment('delta', 3_000));
    expect(await names()).toEqual(['delta', 'beta-renamed', 'alpha']);
    // Searches and other orders read the same way.
    expect((await reader.list(ORG, FIRST_PAGE, { by: 'name', direction: 'asc' }, { name: ['ta'] })).items.map((env) => env.name)).toEqual([
      'beta-renamed',
      'delta',
    ]);
  });

  it('reads the version of one environment, of the organization\'s list, and of a scan\'s environment, each moved by every write', async () => {
    const scans = new KyselyScanRepository(db().handle.db);
    const [one, list] = [await reader.version(ORG, ids[0]!), await reader.listVersion(ORG)];
    expect(one).toBeGreaterThan(0);
    expect(list).toBeGreaterThan(0);
    // Reading moves nothing; another environment's write moves the list's version only.
    await reader.list(ORG, FIRST_PAGE, NEWEST_FIRST, {});
    await reader.get(ORG, ids[0]!);
    expect([await reader.version(ORG, ids[0]!), await reader.listVersion(ORG)]).toEqual([one, list]);
    await writer.modify(ORG, ids[1]!, (env) => ({ ...env, name: 'beta-1' }));
    expect(await reader.version(ORG, ids[0]!)).toBe(one);
    expect(await reader.listVersion(ORG)).not.toBe(list);

    await writer.modify(ORG, ids[0]!, (env) => ({ ...env, name: 'alpha-1' }));
    const edited = await reader.version(ORG, ids[0]!);
    expect(edited).not.toBe(one);
    await writer.recordScan(ids[0]!, { scanId: 'scan-1', startedAt: 2_000, status: 'IN_PROGRESS' });
    expect(await reader.version(ORG, ids[0]!)).not.toBe(edited);

    // Nothing of another organization, nor an unknown id; an organization with no environment yet has version 0.
    expect(await reader.version('org-2', ids[0]!)).toBeUndefined();
    expect(await reader.version(ORG, 'no-such-environment')).toBeUndefined();
    expect(await reader.listVersion('org-2')).toBe(0);
    expect(await scans.environmentVersion(ORG, 'no-such-scan')).toBeUndefined();
  });

  it('moves the versions whoever writes: SQL beside the repository renames, a scan row changes, a row goes', async () => {
    const version = async (id: string) => (await db().handle.db.selectFrom('environments').select('version').where('id', '=', id).executeTakeFirst())?.version;
    const listVersion = async () => (await db().handle.db.selectFrom('environment_list_versions').select('version').where('org_id', '=', ORG).executeTakeFirst())?.version;
    const [before, listBefore] = [await version(ids[0]!), await listVersion()];
    expect(before).toBeGreaterThan(0);
    expect([await reader.version(ORG, ids[0]!), await reader.listVersion(ORG)]).toEqual([before, listBefore]);

    await sql`update environments set name = 'renamed beside' where id = ${ids[0]!}`.execute(db().handle.db);
    expect(await version(ids[0]!)).not.toBe(before);
    expect(await listVersion()).not.toBe(listBefore);
    expect([await reader.version(ORG, ids[0]!), await reader.listVersion(ORG)]).toEqual([await version(ids[0]!), await listVersion()]);
    expect(await reader.get(ORG, ids[0]!)).toMatchObject({ name: 'renamed beside' });
    expect(await names()).toEqual(['gamma', 'beta', 'renamed beside']);

    // An environment's answer shows its latest scan: a scan written, or changed, moves its environment's version,
    // which is the version of the scan's answers.
    const scans = new KyselyScanRepository(db().handle.db);
    const beforeScan = await version(ids[1]!);
    await sql`insert into scans (id, org_id, environment_id, status, remediation_error, created_at, updated_at)
      values ('scan-beside', ${ORG}, ${ids[1]!}, 'SUCCESS', 0, 5000, 5000)`.execute(db().handle.db);
    const afterInsert = await version(ids[1]!);
    expect(afterInsert).not.toBe(beforeScan);
    expect(await scans.environmentVersion(ORG, 'scan-beside')).toBe(afterInsert);
    await sql`update scans set summary = '{}' where id = 'scan-beside'`.execute(db().handle.db);
    expect(await version(ids[1]!)).not.toBe(afterInsert);
    expect(await scans.environmentVersion(ORG, 'scan-beside')).toBe(await version(ids[1]!));
    expect(await scans.environmentVersion('org-2', 'scan-beside')).toBeUndefined();

    const listBeforeDelete = await listVersion();
    await sql`delete from environments where id = ${ids[2]!}`.execute(db().handle.db);
    expect(await listVersion()).not.toBe(listBeforeDelete);
    expect(await names()).toEqual(['beta', 'renamed beside']);
  });
});
