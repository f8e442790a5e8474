import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { ManualClock } from '../src/domain/clock.js';
import { SimulatedCloud } from '../src/domain/cloud/simulator/simulated-cloud.js';
import type { CompositionValidator } from '../src/domain/conductor/composition.js';
import { AppError } from '../src/domain/errors.js';
import { JobQueue } from '../src/domain/jobs/queue.js';
import { createConductorServices } from '../src/conductor-services.js';
import { PROJECT_ROOT } from '../src/paths.js';
import { KyselyCloudInventoryRepository } from '../src/storage/repositories/cloud-inventory.js';
import { KyselyJobRepository } from '../src/storage/repositories/jobs.js';
import { compositionTar, conductorClient, nextAccount, WEB_RESOURCES } from './conductor.js';
import { describeEachDatabase, type TestDatabase } from './databases.js';
import { filesTar } from './fixtures/archives.js';
import { useTestServer } from './server.js';

/** Rejects every resource tagged `reject`, as a validation library would. */
const fakeValidator: CompositionValidator = {
  async violations(composition) {
    return composition.resources.flatMap((resource, i) =>
      resource.tags.reject ? [{ code: 'rule.violation', message: `${resource.name} is rejected (rule fake of library test)`, location: `composition.yaml:resources[${i}]` }] : [],
    );
  },
};

function conductorWith(db: TestDatabase, validator: CompositionValidator) {
  const clock = new ManualClock();
  const jobs = new JobQueue(new KyselyJobRepository(db.handle.db, db.handle.dialect), clock);
  const cloud = new SimulatedCloud(new KyselyCloudInventoryRepository(db.handle.db), clock, { driftRate: 0 });
  return { jobs, ...createConductorServices({ database: db.handle, jobs, cloud, clock, validator }) };
}

const rejected = [WEB_RESOURCES[0], { ...WEB_RESOURCES[1], tags: { reject: 'yes' } }];

describeEachDatabase('conductor compositions and the validation libraries', (db) => {
  it('every violation stops a process creation (400 with the violations) and a composition update', async () => {
    const conductor = conductorWith(db(), fakeValidator);
    const { name, accountId } = nextAccount();
    await conductor.conductorAccounts.add({ name, provider: 'provider_a', accountId });
    const refusal = await conductor.processes
      .create({ archive: await compositionTar(rejected), account: name, importResources: false, actor: 'root' })
      .catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(AppError);
    expect(refusal).toMatchObject({ code: 'bad_request', details: [{ code: 'rule.violation', location: 'composition.yaml:resources[1]' }] });
    expect(await conductor.processes.list(name)).toEqual([]);

    const { process } = await conductor.processes.create({ archive: await compositionTar(WEB_RESOURCES), account: name, importResources: false, actor: 'root' });
    const update = await conductor.processes.updateComposition(process.fid, await compositionTar(rejected), 'root').catch((error: unknown) => error);
    expect(update).toMatchObject({ code: 'bad_request', details: [{ code: 'rule.violation' }] });
    expect((await conductor.processes.get(process.fid)).process.compositionDigest).toBe(process.compositionDigest);
  });

  it('a dry-run reports the violations as its errors', async () => {
    const conductor = conductorWith(db(), fakeValidator);
    const { name, accountId } = nextAccount();
    await conductor.conductorAccounts.add({ name, provider: 'provider_a', accountId });
    const requested = await conductor.dryRuns.request({ command: 'RUN', account: name, importResources: false, archive: await compositionTar(rejected) });
    while (await conductor.jobs.runOnce());
    const result = await conductor.dryRuns.get(requested.id);
    expect(result).toMatchObject({ status: 'FAILED', plan: [], errors: [{ code: 'rule.violation', message: 'jobs is rejected (rule fake of library test)' }] });
  });
});

describeEachDatabase(
  'conductor compositions and the uploaded validation libraries',
  (db) => {
    const server = useTestServer(db);
    const { call, runJobs, addAccount } = conductorClient(server);
    const rules = readFileSync(join(PROJECT_ROOT, 'examples/conductor/validation/rules.yaml'), 'utf8');

    it('the example library refuses what its rules forbid, in process creations and dry-runs alike', async () => {
      const account = await addAccount();
      const library = `conductor-test-${account.name}`;
      expect((await call('POST', `/validations?name=${library}`, await filesTar({ 'rules.yaml': rules }))).status).toBe(201);
      try {
        const publicBucket = [{ name: 'site', type: 'PROVA.S3.Bucket', properties: { encryption: { enabled: true }, policy_allows_public: true, acl_grants_public: false }, tags: { owner: 'web' } }];
        const created = await call('POST', `/processes?account=${account.name}`, await compositionTar(publicBucket));
        expect(created.status).toBe(400);
        expect(created.body.errors).toEqual([{ code: 'rule.violation', message: expect.stringMatching(/buckets-not-public/), location: 'composition.yaml:resources[0]' }]);
        const requested = await call('POST', `/dry-run?command=RUN&account=${account.name}`, await compositionTar(publicBucket));
        await runJobs();
        const dryRun = await call('GET', `/dry-run/${requested.body.id}`);
        expect(dryRun.body).toMatchObject({ status: 'FAILED', errors: created.body.errors });
        const fine = [{ ...publicBucket[0], properties: { ...publicBucket[0]!.properties, policy_allows_public: false } }];
        expect((await call('POST', `/processes?account=${account.name}`, await compositionTar(fine))).status).toBe(201);
      } finally {
        await call('DELETE', `/validations/${library}`);
      }
    });
  },
  'suite',
);
