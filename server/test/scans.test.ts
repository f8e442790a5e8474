import { beforeEach, describe, expect, it, jest } from '@jest/globals';
import { newId } from '../src/domain/ids.js';
import { resourceTypesOf } from '../src/domain/cloud/catalog.js';
import { listingError } from '../src/domain/cloud/simulator/simulated-cloud.js';
import { createServices } from '../src/services.js';
import { KyselyJobRepository } from '../src/storage/repositories/jobs.js';
import { KyselyScanResultRepository } from '../src/storage/repositories/scan-results.js';
import { describeEachDatabase } from './databases.js';
import { createEnvironment as createEnvironmentThroughApi, nextAccount, runScan, type Body } from './compliance.js';
import { useTestServer, type TestServer } from './server.js';


describeEachDatabase(
  'scans, results, baselines and events',
  (db) => {
    // A high drift rate makes every second scan see drift, compliance changes and some resources that cannot be reverted.
    const testServer = useTestServer(db, { simulator: { driftRate: 0.3 } });
    let server: TestServer;
    beforeEach(() => {
      server = testServer();
    });

    const createEnvironment = (overrides: Body = {}) => createEnvironmentThroughApi(server, { compliance_families: ['CIS', 'NIST'] }, overrides);
    const scan = (environmentId: string) => runScan(server, environmentId);

    describe('running a scan', () => {
      it('starts IN_PROGRESS, runs as a job and ends SUCCESS with a resource summary', async () => {
        const env = await createEnvironment();
        const started = await server.request('POST', `/v0/scans?environment_id=${env.id}`);
        expect(started.status).toBe(201);
        expect(started.body).toMatchObject({ environment_id: env.id, status: 'IN_PROGRESS', finished_at: null, remediation_error: false });
        const during = await server.request('GET', `/v0/environments/${env.id}`);
        expect(during.body).toMatchObject({ scan_status: 'IN_PROGRESS', last_scan_at: started.body.created_at });

        while (await server.services.jobs.runOnce());
        const finished = await server.request('GET', `/v0/scans/${started.body.id}`);
        expect(finished.body).toMatchObject({ status: 'SUCCESS', finished_at: server.clock.nowSeconds() });
        const summary = finished.body.resource_summary;
        expect(summary.total).toBeGreaterThan(50);
        expect(summary.compliant + summary.noncompliant).toBe(summary.total);
        expect(summary.noncompliant).toBeGreaterThan(0);
        expect(summary.families.map((f: any) => f.family)).toEqual(['CIS', 'NIST']);

        const after = await server.request('GET', `/v0/environments/${env.id}`);
        expect(after.body).toMatchObject({ scan_status: 'SUCCESS', next_scan_at: finished.body.finished_at + 86400 });
        expect(after.body.resource_summary).toEqual(summary);
      });

      it('stops a worker whose lease ran out while it was busy, before it writes over the worker that took the scan over', async () => {
        const env = await createEnvironment();
        const started = await server.request('POST', `/v0/scans?environment_id=${env.id}`);
        expect(started.status).toBe(201);
        const jobId = (await server.services.scans.get(server.orgId, started.body.id)).jobId!;
        // A second server process over the same database, whose worker takes over jobs whose lease ran out.
        const other = createServices(db().handle, server.clock);
        const original = server.services.evaluation.scanBatch.bind(server.services.evaluation);
        let tookOver = false;
        const evaluate = jest.spyOn(server.services.evaluation, 'scanBatch').mockImplementation(async (...args) => {
          if (!tookOver) {
            // This worker stalls past its lease; meanwhile the other one claims the job and runs the scan to its end.
            tookOver = true;
            server.clock.advanceSeconds(61);
            expect((await other.jobs.runOnce())?.id).toBe(jobId);
          }
          return original(...args);
        });
        try {
          const stalled = await server.services.jobs.runOnce();
          expect(stalled?.kind).toBe('scan');
        } finally {
          evaluate.mockRestore();
          await other.evaluation.close();
        }
        expect(tookOver).toBe(true);
        const finished = await server.request('GET', `/v0/scans/${started.body.id}`);
        expect(finished.body).toMatchObject({ status: 'SUCCESS', message: null });
        expect(await server.services.jobs.get(jobId)).toMatchObject({ status: 'succeeded', attempts: 2 });
        // The results are the other worker's, whole and once each.
        const results = await server.request('GET', `/v0/scans/${started.body.id}/compliance_by_resource_types`);
        const listed = results.body.items.reduce((sum: number, item: { total: number }) => sum + item.total, 0);
        expect(listed).toBe(finished.body.resource_summary.total);
      });

      it('refuses a second scan while one is in progress, and answers 404 for an unknown environment', async () => {
        const env = await createEnvironment();
        expect((await server.request('POST', `/v0/scans?environment_id=${env.id}`)).status).toBe(201);
        const second = await server.request('POST', `/v0/scans?environment_id=${env.id}`);
        expect(second.status).toBe(400);
        expect(second.body).toMatchObject({ type: 'WorkAlreadyStartedException', code: 400 });
        while (await server.services.jobs.runOnce());
        expect((await server.request('POST', `/v0/scans?environment_id=${newId()}`)).status).toBe(404);
        expect((await server.request('GET', `/v0/scans?environment_id=${newId()}`)).status).toBe(404);
        expect((await server.request('GET', `/v0/scans/${newId()}`)).status).toBe(404);
      });

      it('lists scans newest first, by status and time range, page by page', async () => {
        const env = await createEnvironment();
        const ids: string[] = [];
        for (let i = 0; i < 3; i += 1) {
          ids.push((await scan(env.id)).id);
          server.clock.advanceSeconds(100);
        }
        const all = await server.request('GET', `/v0/scans?environment_id=${env.id}`);
        expect(all.body.items.map((s: any) => s.id)).toEqual([...ids].reverse());
        const page = await server.request('GET', `/v0/scans?environment_id=${env.id}&max_items=2`);
        expect(page.body).toMatchObject({ count: 2, is_truncated: true, next_offset: 2 });
        const first = all.body.items[2];
        const ranged = await server.request('GET', `/v0/scans?environment_id=${env.id}&range_to=${first.created_at}`);
        expect(ranged.body.items.map((s: any) => s.id)).toEqual([ids[0]]);
        const errors = await server.request('GET', `/v0/scans?environment_id=${env.id}&status=ERROR`);
        expect(errors.body.items).toEqual([]);
      });

      it('is taken over after its worker dies mid-scan, and marked ERROR with a message once its attempts are used up', async () => {
        const env = await createEnvironment();
        const jobs = new KyselyJobRepository(db().handle.db, db().handle.dialect);
        const started = await server.request('POST', `/v0/scans?environment_id=${env.id}`);
        const now = () => server.clock.nowMs();
        // Two workers claim the job and die, one after the other; the job allows two attempts.
        for (let attempt = 0; attempt < 2; attempt += 1) {
          expect(await jobs.claim(`dead-worker-${attempt}`, now(), now() + 1_000)).toBeDefined();
          server.clock.advanceSeconds(61);
        }
        // The worker that gives the job up settles the scan at once, without waiting for the scheduler.
        expect(await server.services.jobs.runOnce()).toBeUndefined();
        const failed = await server.request('GET', `/v0/scans/${started.body.id}`);
        expect(failed.body).toMatchObject({ status: 'ERROR', message: expect.stringMatching(/^the scan was given up: abandoned/) });
        expect((await server.request('GET', `/v0/environments/${env.id}`)).body.scan_status).toBe('ERROR');
      });
    });

    it('reports the resource types the account could not list on the scan, and counts them unsurveyed', async () => {
      const types = resourceTypesOf('provider_a').map((t) => t.type);
      let account = 300_000_000_000;
      while (types.every((t) => !listingError('provider_a', String(account), t))) account += 1;
      const denied = types.filter((t) => listingError('provider_a', String(account), t));
      const env = await createEnvironment({
        provider_options: { provider_a: { role_arn: `arn:prova:iam::${account}:role/scanner`, regions: ['*'] } },
        survey_resource_types: types,
      });
      const done = await scan(env.id);
      expect(done.status).toBe('SUCCESS');
      expect(done.resource_type_errors.map((e: any) => e.resource_type).sort()).toEqual(denied.sort());
      expect(done.resource_type_errors[0].error_message).toMatch(/AccessDenied/);
    });

    it('scans a provider_b subscription, only the resource groups asked for unless it is *', async () => {
      const subscription = `8f14e45f-ceea-4e7a-9c3b-${nextAccount().padStart(12, '0')}`;
      const env = await createEnvironment({
        provider: 'provider_b',
        provider_options: { provider_b: { subscription_id: subscription } },
        compliance_families: ['CISPROVB'],
      });
      const all = await scan(env.id);
      expect(all.resource_summary.total).toBeGreaterThan(50);
      const types = await server.request('GET', `/v0/scans/${all.id}/compliance_by_resource_types?max_items=100`);
      expect(types.body.items.every((t: any) => t.resource_type.startsWith('PROVB.'))).toBe(true);

      const narrowed = await server.request('PATCH', `/v0/environments/${env.id}`, { body: { survey_resource_groups: ['rg-that-does-not-exist'] } });
      expect(narrowed.body.survey_resource_groups).toEqual(['rg-that-does-not-exist']);
      const none = await scan(env.id);
      expect(none.resource_summary.total).toBe(0);
    });

    describe('results', () => {
      it('reports compliance by rule for the environment’s families, with filters and paging', async () => {
        const env = await createEnvironment();
        const done = await scan(env.id);
        const all = await server.request('GET', `/v0/scans/${done.id}/compliance_by_rules?max_items=1000`);
        expect(all.status).toBe(200);
        const items = all.body.items as any[];
        expect(items.length).toBeGreaterThan(10);
        expect(new Set(items.map((i) => i.family))).toEqual(new Set(['CIS', 'NIST']));
        const failing = items.filter((i) => i.result === 'FAIL');
        expect(failing.length).toBeGreaterThan(0);
        for (const item of failing) {
          expect(item.failed_resource_count).toBeGreaterThan(0);
          expect(item.failed_resources.length).toBe(Math.min(item.failed_resource_count, 100));
          expect(item.failed_resources[0].messages[0]).toEqual(expect.any(String));
        }
        const onlyFail = await server.request('GET', `/v0/scans/${done.id}/compliance_by_rules?result=FAIL&family=NIST&max_items=1000`);
        expect(onlyFail.body.items.every((i: any) => i.result === 'FAIL' && i.family === 'NIST')).toBe(true);
        const paged = await server.request('GET', `/v0/scans/${done.id}/compliance_by_rules?max_items=5&offset=5`);
        expect(paged.body.items.map((i: any) => i.rule_id)).toEqual(items.slice(5, 10).map((i) => i.rule_id));
      });

      it('counts in the summary each rule once, however many controls list it: the distinct rule ids of compliance_by_rules', async () => {
        const env = await createEnvironment();
        const done = await scan(env.id);
        const all = await server.request('GET', `/v0/scans/${done.id}/compliance_by_rules?max_items=1000`);
        const items = all.body.items as Array<{ family: string; rule_id: string; result: string }>;
        expect(all.body.is_truncated).toBe(false);
        const distinct = (result: string, family?: string) => new Set(items.filter((i) => i.result === result && (!family || i.family === family)).map((i) => i.rule_id)).size;
        const summary = done.resource_summary;
        expect({ passed: summary.rules_passed, failed: summary.rules_failed }).toEqual({ passed: distinct('PASS'), failed: distinct('FAIL') });
        // Controls list some rules more than once: the items outnumber the rules.
        expect(items.filter((i) => i.result === 'FAIL').length).toBeGreaterThan(summary.rules_failed);
        for (const family of summary.families) {
          expect({ family: family.family, passed: family.rules_passed, failed: family.rules_failed }).toEqual({ family: family.family, passed: distinct('PASS', family.family), failed: distinct('FAIL', family.family) });
        }
      });

      it('marks rules UNKNOWN when their resource types are not surveyed', async () => {
        const env = await createEnvironment({ survey_resource_types: ['PROVA.S3.Bucket'] });
        const done = await scan(env.id);
        const res = await server.request('GET', `/v0/scans/${done.id}/compliance_by_rules?result=UNKNOWN&max_items=1000`);
        expect(res.body.items.length).toBeGreaterThan(0);
        for (const item of res.body.items) expect(item.unsurveyed_resource_types).not.toContain('PROVA.S3.Bucket');
      });

      it('answers a page of results again from the edge cache while the scan stays as it is, and shows a later scan its own', async () => {
        const env = await createEnvironment();
        const first = await scan(env.id);
        const read = jest.spyOn(KyselyScanResultRepository.prototype, 'ruleResults');
        try {
          const rules = await server.request('GET', `/v0/scans/${first.id}/compliance_by_rules?max_items=5`);
          const again = await server.request('GET', `/v0/scans/${first.id}/compliance_by_rules?max_items=5`);
          expect(again.body).toEqual(rules.body);
          expect(again.headers.get('etag')).toBe(rules.headers.get('etag'));
          expect(read).toHaveBeenCalledTimes(1);
          // Another page is another answer, made once.
          await server.request('GET', `/v0/scans/${first.id}/compliance_by_resource_types?family=CIS`);
          await server.request('GET', `/v0/scans/${first.id}/compliance_by_resource_types?family=CIS`);
          expect(read).toHaveBeenCalledTimes(2);
          // The drift between the two scans changes what the rules came to; the later scan's pages show its own.
          const second = await scan(env.id);
          read.mockClear();
          const later = await server.request('GET', `/v0/scans/${second.id}/compliance_by_rules?max_items=1000`);
          expect(read).toHaveBeenCalledTimes(1);
          expect(later.body).not.toEqual((await server.request('GET', `/v0/scans/${first.id}/compliance_by_rules?max_items=1000`)).body);
        } finally {
          read.mockRestore();
        }
      });

      it('reports compliance by resource type, totals matching the summary', async () => {
        const env = await createEnvironment();
        const done = await scan(env.id);
        const res = await server.request('GET', `/v0/scans/${done.id}/compliance_by_resource_types?max_items=1000`);
        const items = res.body.items as any[];
        expect(items.reduce((n, i) => n + i.total, 0)).toBe(done.resource_summary.total);
        for (const item of items) {
          expect(item.compliant + item.noncompliant_count).toBe(item.total);
          expect(item.noncompliant.length).toBe(Math.min(item.noncompliant_count, 100));
          // Failing resources, each once and with at least one failed rule.
          const ids = item.noncompliant.map((r: any) => r.resource_id);
          expect(new Set(ids).size).toBe(ids.length);
          for (const resource of item.noncompliant) expect(resource.failed_rules.length).toBeGreaterThan(0);
        }
        const one = await server.request('GET', `/v0/scans/${done.id}/compliance_by_resource_types?resource_type=PROVA.S3.Bucket&family=CIS`);
        expect(one.body.items.map((i: any) => i.resource_type)).toEqual(['PROVA.S3.Bucket']);
        for (const resource of one.body.items[0].noncompliant) {
          expect(resource.failed_rules.every((r: any) => r.family === 'CIS')).toBe(true);
        }
      });
    });

    describe('baseline, drift and remediation', () => {
      it('emits DRIFT events with attribute changes against the baseline, and none without one', async () => {
        const env = await createEnvironment();
        const first = await scan(env.id);
        await scan(env.id);
        const noBaseline = await server.request('GET', `/v0/events?environment_id=${env.id}&event_type=DRIFT`);
        expect(noBaseline.body.items).toEqual([]);

        await server.request('PATCH', `/v0/environments/${env.id}`, { body: { baseline_id: first.id } });
        const third = await scan(env.id);
        const drift = await server.request('GET', `/v0/events?environment_id=${env.id}&event_type=DRIFT&max_items=1000`);
        const events = drift.body.items as any[];
        expect(new Set(events.map((e) => e.resource_diff.change))).toEqual(new Set(['ADDED', 'MODIFIED', 'REMOVED']));
        expect(events.every((e) => e.scan_id === third.id)).toBe(true);
        const modified = events.find((e) => e.resource_diff.change === 'MODIFIED');
        expect(modified.resource_diff.attributes.length).toBeGreaterThan(0);
        expect(modified.resource_diff.attributes[0]).toMatchObject({ name: expect.any(String), removed: expect.any(Boolean) });
        const added = await server.request('GET', `/v0/events?environment_id=${env.id}&change=ADDED&max_items=1000`);
        expect(added.body.items.every((e: any) => e.resource_diff.change === 'ADDED')).toBe(true);
      });

      it('with remediation on, reverts drifted resources, records REMEDIATION events and flags what could not be reverted', async () => {
        const env = await createEnvironment();
        const first = await scan(env.id);
        await server.request('PATCH', `/v0/environments/${env.id}`, { body: { baseline_id: first.id, remediation: true } });
        // Someone changes a resource another system manages: that change cannot be reverted.
        const account = env.provider_options.provider_a.role_arn.split(':')[4];
        const managed = await db()
          .handle.db.selectFrom('cloud_resources')
          .select('resource_id')
          .where('account_key', '=', `provider_a:${account}`)
          .where('revertible', '=', 0)
          .where('type', 'in', env.survey_resource_types)
          .orderBy('resource_id')
          .executeTakeFirstOrThrow();
        await server.services.cloud.driftResource('provider_a', account, managed.resource_id, { changed_by_hand: true });
        const second = await scan(env.id);
        const remediation = await server.request('GET', `/v0/events?environment_id=${env.id}&event_type=REMEDIATION&max_items=1000`);
        const events = remediation.body.items as any[];
        expect(events.length).toBeGreaterThan(0);
        const failed = events.filter((e) => e.remediated === false);
        expect(second.remediation_error).toBe(failed.length > 0);
        expect(failed.length).toBeGreaterThan(0);
        expect(failed[0].error).toMatch(/cannot be reverted/);

        // What was reverted is back: the next scan sees only new drift and what could not be reverted.
        const third = await scan(env.id);
        const drift = await server.request('GET', `/v0/events?environment_id=${env.id}&event_type=DRIFT&max_items=1000`);
        const secondDrift = drift.body.items.filter((e: any) => e.scan_id === second.id).map((e: any) => e.resource_diff.resource_id);
        const thirdDrift = new Set(drift.body.items.filter((e: any) => e.scan_id === third.id).map((e: any) => e.resource_diff.resource_id));
        const reverted = events.filter((e) => e.remediated && e.scan_id === second.id).map((e) => e.resource_diff.resource_id);
        const stillDrifted = reverted.filter((id: string) => thirdDrift.has(id));
        expect(stillDrifted.length).toBeLessThan(reverted.length / 2);
        expect(secondDrift.length).toBeGreaterThan(0);
      });

      it('emits COMPLIANCE events for resources whose rule results changed between scans', async () => {
        const env = await createEnvironment();
        await scan(env.id);
        const second = await scan(env.id);
        const res = await server.request('GET', `/v0/events?environment_id=${env.id}&event_type=COMPLIANCE&max_items=1000`);
        const events = res.body.items as any[];
        expect(events.length).toBeGreaterThan(0);
        for (const event of events) {
          expect(event.scan_id).toBe(second.id);
          const diff = event.compliance_diff;
          expect(diff.rules.length).toBeGreaterThan(0);
          for (const rule of diff.rules) expect(rule.old_state).not.toBe(rule.new_state);
        }
      });

      it('refuses an unknown environment and a reversed time range on events', async () => {
        expect((await server.request('GET', `/v0/events?environment_id=${newId()}`)).status).toBe(404);
        const env = await createEnvironment();
        expect((await server.request('GET', `/v0/events?environment_id=${env.id}&range_from=10&range_to=5`)).status).toBe(400);
      });
    });

    describe('scheduling (seed 000 §3.4)', () => {
      it('starts the next scan one interval after the last scan ended, and after an interval change', async () => {
        const env = await createEnvironment({ scan_interval: 600 });
        server.clock.advanceSeconds(599);
        expect(await server.services.scheduler.tick()).toBe(0);
        server.clock.advanceSeconds(1);
        expect(await server.services.scheduler.tick()).toBe(1);
        server.clock.advanceSeconds(180); // the scan takes three minutes
        while (await server.services.jobs.runOnce());
        const after = await server.request('GET', `/v0/environments/${env.id}`);
        expect(after.body.next_scan_at).toBe(server.clock.nowSeconds() + 600);

        server.clock.advanceSeconds(100);
        const changed = await server.request('PATCH', `/v0/environments/${env.id}`, { body: { scan_interval: '900' } });
        expect(changed.body.next_scan_at).toBe(server.clock.nowSeconds() + 900);
        server.clock.advanceSeconds(899);
        expect(await server.services.scheduler.tick()).toBe(0);
        server.clock.advanceSeconds(1);
        expect(await server.services.scheduler.tick()).toBe(1);
        while (await server.services.jobs.runOnce());
      });

      it('keeps the schedule across a restart: a new server process over the same database starts the due scan', async () => {
        const env = await createEnvironment({ scan_interval: 600 });
        server.clock.advanceSeconds(600);
        const restarted = createServices(db().handle, server.clock);
        expect(await restarted.scheduler.tick()).toBeGreaterThanOrEqual(1);
        while (await restarted.jobs.runOnce());
        const scans = await server.request('GET', `/v0/scans?environment_id=${env.id}`);
        expect(scans.body.items.map((s: any) => s.status)).toEqual(['SUCCESS']);
      });

      it('never schedules an environment whose schedule is off, while manual scans still run', async () => {
        const env = await createEnvironment({ scan_interval: 600, scan_schedule_enabled: false });
        server.clock.advanceSeconds(10_000);
        const scans = async () => (await server.request('GET', `/v0/scans?environment_id=${env.id}`)).body.count;
        await server.services.scheduler.tick();
        expect(await scans()).toBe(0);
        expect((await scan(env.id)).status).toBe('SUCCESS');
      });
    });

    describe('metadata', () => {
      it('lists resource types per provider and region, from the catalog', async () => {
        const a = await server.request('GET', '/v0/metadata/provider_a/resource_types?region=us-east-1');
        expect(a.body.resource_types.length).toBeGreaterThanOrEqual(25);
        expect(a.body.recommended_types.every((t: string) => a.body.resource_types.includes(t))).toBe(true);
        const b = await server.request('GET', '/v0/metadata/provider_b/resource_types');
        expect(b.body.resource_types.length).toBeGreaterThanOrEqual(10);
        expect((await server.request('GET', '/v0/metadata/provider_a/resource_types?region=us-gov-east-1')).status).toBe(400);
        // Without a region: the global types only (e.g. IAM), every one of them also listed with a region.
        const global = await server.request('GET', '/v0/metadata/provider_a/resource_types');
        expect(global.body.resource_types).toContain('PROVA.IAM.User');
        expect(global.body.resource_types).not.toContain('PROVA.EC2.SecurityGroup');
        expect(global.body.resource_types.every((t: string) => a.body.resource_types.includes(t))).toBe(true);
        const everywhere = await server.request('GET', '/v0/metadata/provider_a/resource_types?region=*');
        expect(everywhere.body.resource_types).toEqual(a.body.resource_types);
      });

      it('computes the permissions to survey and to remediate', async () => {
        const all = await server.request('GET', '/v0/metadata/provider_a/permissions');
        expect(all.body.provider_a.survey_actions.length).toBeGreaterThan(10);
        expect(all.body.provider_a.remediate_actions.length).toBeGreaterThan(5);
        const one = await server.request('GET', '/v0/metadata/provider_a_gov/permissions?survey_resource_type=PROVA.S3.Bucket&remediate_resource_type=PROVA.S3.Bucket');
        expect(one.body.provider_a.survey_actions.length).toBeLessThan(all.body.provider_a.survey_actions.length);
        expect((await server.request('GET', '/v0/metadata/provider_b/permissions')).status).toBe(400);
      });
    });
  },
  'suite',
);
