import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from '@jest/globals';
import { ManualClock } from '../src/domain/clock.js';
import { DEFAULT_ORGANIZATION } from '../src/domain/organizations/service.js';
import { seedDemoData } from '../src/demo/seed.js';
import { createServices } from '../src/services.js';
import { describeEachDatabase } from './databases.js';

describeEachDatabase('demo data', (db) => {
  it('starts with environments that have scans, a baseline, drift, remediation and compliance events, and conductor data', async () => {
    const services = createServices(db().handle, new ManualClock());
    await seedDemoData(services, join(await mkdtemp(join(tmpdir(), 'demo-')), 'demo-credentials.json'));
    const org = await services.organizations.ensure(DEFAULT_ORGANIZATION);

    const environments = (await services.environments.list(org.id, { offset: 0, limit: 10 }, { by: 'name', direction: 'asc' }, {})).items;
    expect(environments).toHaveLength(3);
    for (const env of environments) {
      expect(env).toMatchObject({ scanStatus: 'SUCCESS', scanScheduleEnabled: true });
      expect(env.baselineId).not.toBeNull();
    }
    const providerA = environments.find((e) => e.provider === 'provider_a')!;
    expect(providerA.remediation).toBe(true);
    const events = async (type: string) => (await services.events.list(org.id, providerA.id, { eventTypes: [type] }, { offset: 0, limit: 1000 })).items;
    expect((await events('DRIFT')).length).toBeGreaterThan(0);
    expect((await events('REMEDIATION')).length).toBeGreaterThan(0);

    const [account] = await services.conductorAccounts.list();
    expect(account).toMatchObject({ name: 'prod-main' });
    const process = await services.processes.get('web-frontend');
    expect(process.resources.length).toBe(3);
    const history = (await services.processes.history('web-frontend', undefined, undefined)).map((h) => h.event);
    expect(history).toEqual(expect.arrayContaining(['created', 'lock_changed', 'drift_corrected']));
    expect((await services.validations.list()).map((l) => l.name)).toEqual(['baseline']);
  });
});
