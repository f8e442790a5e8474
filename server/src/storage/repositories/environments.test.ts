import { beforeEach, it } from '@jest/globals';
import { sql } from 'kysely';
import type { Environment } from '../../domain/environments/types.js';
import type { PageRequest } from '../../domain/repositories.js';
import { describeEachDatabase } from '../../../test/databases.js';
import { expect } from '../../../test/expect.js';
import { environmentFixture } from '../../../test/fixtures/environments.js';
import { KyselyEnvironmentRepository } from './environments.js';

const ORG = 'org-1';
const FIRST_PAGE: PageRequest = { offset: 0, limit: 50 };
const NEWEST_FIRST = { by: 'created_at', direction: 'desc' } as const;

const environment = (name: string, createdAt: number): Environment => environmentFixture(ORG, name, createdAt);

/**
 * A page of environments keeps the environments it read, by version, for later pages. Two repositories on one
 * database stand for two server processes: whatever one writes, a page of the other shows at once.
 */
describeEachDatabase('environment pages', (db) => {
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

  it('answers a page read again whole when a row is written between reading the versions and the rows', async () => {
    expect(await names()).toEqual(['gamma', 'beta', 'alpha']);
    await writer.modify(ORG, ids[0]!, (env) => ({ ...env, name: 'alpha-1' }));
    // The first read of the rows comes after yet another write: the versions it was asked for are gone.
    const repository = reader as unknown as { atVersions: (...args: unknown[]) => Promise<Environment[] | undefined> };
    const atVersions = repository.atVersions.bind(reader);
    let calls = 0;
    repository.atVersions = async (...args) => {
      calls += 1;
      if (calls === 1) await writer.modify(ORG, ids[0]!, (env) => ({ ...env, name: 'alpha-2' }));
      return atVersions(...args);
    };
    expect(await names()).toEqual(['gamma', 'beta', 'alpha-2']);
    expect(calls).toBe(1);
  });

  it('answers a page as it read it while no environment of the organization is written', async () => {
    const first = await reader.list(ORG, FIRST_PAGE, NEWEST_FIRST, {});
    expect(await reader.list(ORG, FIRST_PAGE, NEWEST_FIRST, {})).toBe(first);
    // Another organization's writes leave it as it is.
    await db().handle.db.insertInto('organizations').values({ id: 'org-2', name: 'other', created_at: 1 }).execute();
    await writer.insert({ ...environment('elsewhere', 5_000), orgId: 'org-2' });
    expect(await reader.list(ORG, FIRST_PAGE, NEWEST_FIRST, {})).toBe(first);
    // Another order, page or filter is another page.
    expect(await reader.list(ORG, { offset: 1, limit: 50 }, NEWEST_FIRST, {})).not.toBe(first);
    await writer.modify(ORG, ids[0]!, (env) => ({ ...env, name: 'alpha-1' }));
    expect((await reader.list(ORG, FIRST_PAGE, NEWEST_FIRST, {})).items.map((env) => env.name)).toEqual(['gamma', 'beta', 'alpha-1']);
  });

  it('hands out environments no reader can change', async () => {
    const page = await reader.list(ORG, FIRST_PAGE, NEWEST_FIRST, {});
    expect(Object.isFrozen(page) && Object.isFrozen(page.items)).toBe(true);
    const [first] = page.items;
    expect(Object.isFrozen(first)).toBe(true);
    expect(Object.isFrozen(first!.complianceFamilies)).toBe(true);
    expect(Object.isFrozen(first!.access)).toBe(true);
    expect(() => (first!.complianceFamilies as string[]).push('PCI')).toThrow(TypeError);
    expect((await reader.list(ORG, FIRST_PAGE, NEWEST_FIRST, {})).items[0]!.complianceFamilies).toEqual(['CIS']);
  });

  it('answers one environment as it read it while its version stays, and every write of another process at once', async () => {
    const first = await reader.get(ORG, ids[0]!);
    expect(Object.isFrozen(first)).toBe(true);
    expect(await reader.get(ORG, ids[0]!)).toBe(first);
    // Another environment's write leaves it as it is; so does reading it in a page.
    await writer.modify(ORG, ids[1]!, (env) => ({ ...env, name: 'beta-1' }));
    await reader.list(ORG, FIRST_PAGE, NEWEST_FIRST, {});
    expect(await reader.get(ORG, ids[0]!)).toBe(first);

    await writer.modify(ORG, ids[0]!, (env) => ({ ...env, name: 'alpha-1' }));
    expect(await reader.get(ORG, ids[0]!)).toMatchObject({ name: 'alpha-1' });
    await writer.recordScan(ids[0]!, { scanId: 'scan-1', startedAt: 2_000, status: 'IN_PROGRESS' });
    expect(await reader.get(ORG, ids[0]!)).toMatchObject({ lastScanId: 'scan-1', scanStatus: 'IN_PROGRESS' });
    await writer.recordScan(ids[0]!, { scanId: 'scan-1', startedAt: 2_000, status: 'SUCCESS', finishedAt: 2_100 });
    expect(await reader.get(ORG, ids[0]!)).toMatchObject({ scanStatus: 'SUCCESS', scheduleAnchorAt: 2_100 });
    await writer.delete(ORG, ids[0]!);
    expect(await reader.get(ORG, ids[0]!)).toBeUndefined();
    // Nor is an environment answered to another organization.
    expect(await reader.get('org-2', ids[1]!)).toBeUndefined();
  });

  it('moves the versions whoever writes: SQL beside the repository renames, a scan row changes, a row goes', async () => {
    const version = async (id: string) => (await db().handle.db.selectFrom('environments').select('version').where('id', '=', id).executeTakeFirst())?.version;
    const listVersion = async () => (await db().handle.db.selectFrom('environment_list_versions').select('version').where('org_id', '=', ORG).executeTakeFirst())?.version;
    const first = await reader.get(ORG, ids[0]!);
    await reader.list(ORG, FIRST_PAGE, NEWEST_FIRST, {});
    const [before, listBefore] = [await version(ids[0]!), await listVersion()];
    expect(before).toBeGreaterThan(0);

    await sql`update environments set name = 'renamed beside' where id = ${ids[0]!}`.execute(db().handle.db);
    expect(await version(ids[0]!)).not.toBe(before);
    expect(await listVersion()).not.toBe(listBefore);
    expect(await reader.get(ORG, ids[0]!)).toMatchObject({ name: 'renamed beside' });
    expect(await reader.get(ORG, ids[0]!)).not.toBe(first);
    expect(await names()).toEqual(['gamma', 'beta', 'renamed beside']);

    // An environment's answer shows its latest scan: a scan written, or changed, moves its environment's version.
    const beforeScan = await version(ids[1]!);
    await sql`insert into scans (id, org_id, environment_id, status, remediation_error, created_at, updated_at)
      values ('scan-beside', ${ORG}, ${ids[1]!}, 'SUCCESS', 0, 5000, 5000)`.execute(db().handle.db);
    const afterInsert = await version(ids[1]!);
    expect(afterInsert).not.toBe(beforeScan);
    await sql`update scans set summary = '{}' where id = 'scan-beside'`.execute(db().handle.db);
    expect(await version(ids[1]!)).not.toBe(afterInsert);

    const listBeforeDelete = await listVersion();
    await sql`delete from environments where id = ${ids[2]!}`.execute(db().handle.db);
    expect(await listVersion()).not.toBe(listBeforeDelete);
    expect(await names()).toEqual(['beta', 'renamed beside']);
  });
});
