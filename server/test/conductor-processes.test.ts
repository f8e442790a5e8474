import { describe, it } from '@jest/globals';
import { listingError } from '../src/domain/cloud/simulator/simulated-cloud.js';
import { newId } from '../src/domain/ids.js';
import { HOSTILE_ARCHIVES, filesTar } from './fixtures/archives.js';
import { compositionTar, conductorClient, nextAccount, WEB_RESOURCES } from './conductor.js';
import { describeEachDatabase } from './databases.js';
import { abandonNextJob, useTestServer } from './server.js';
import { expect } from './expect.js';

describeEachDatabase(
  'conductor accounts and processes',
  (db) => {
    const server = useTestServer(db);
    const { call, runJobs, addAccount, createProcess, getProcess } = conductorClient(server);
    const cloud = () => server().services.cloud;
    /** The cloud document of a process's resource, by composition name. */
    const cloudResource = async (accountId: string, process: { resources: Array<Record<string, any>> }, name: string) => {
      const resource = process.resources.find((r) => r.name === name)!;
      return cloud().getResource('provider_a', accountId, resource.resource_id);
    };

    describe('accounts', () => {
      it('adds an account (201 with Location), lists it by name with its process count, and removes it', async () => {
        const { name, accountId } = nextAccount();
        const added = await call('POST', '/accounts', { name, provider: 'provider_a', account_id: accountId });
        expect(added.status, added.text).toBe(201);
        expect(added.headers.get('location')).toBe(`/api/v0/accounts/${name}`);
        expect(added.body).toEqual({ name, provider: 'provider_a', account_id: accountId, created_at: server().clock.nowSeconds(), process_count: 0 });
        const listed = await call('GET', '/accounts');
        expect(listed.body.items).toContainEqual(added.body);
        const names = listed.body.items.map((a: any) => a.name);
        expect(names).toEqual([...names].sort());
        expect(listed.body.count).toBe(listed.body.items.length);

        const removed = await call('DELETE', `/accounts/${name}`);
        expect(removed.status, removed.text).toBe(200);
        expect(removed.body).toEqual({ name, status: 'Removed' });
        expect((await call('DELETE', `/accounts/${name}`)).status).toBe(404);
        expect((await call('GET', '/accounts')).body.items.map((a: any) => a.name)).not.toContain(name);
      });

      it('refuses a taken name or account ID (409) and an account ID that does not fit the provider (400)', async () => {
        const account = await addAccount();
        const sameName = await call('POST', '/accounts', { name: account.name, provider: 'provider_a', account_id: nextAccount().accountId });
        expect(sameName.status).toBe(409);
        expect(sameName.body.errors[0]).toMatchObject({ code: 'account.exists', location: 'body.name' });
        const sameId = await call('POST', '/accounts', { name: nextAccount().name, provider: 'provider_a', account_id: account.account_id });
        expect(sameId.status).toBe(409);
        expect(sameId.body.errors[0]).toMatchObject({ code: 'account.id_exists', location: 'body.account_id' });
        const mismatch = await call('POST', '/accounts', { name: nextAccount().name, provider: 'provider_b', account_id: '123456789012' });
        expect(mismatch.status).toBe(400);
        expect(mismatch.body.errors[0]).toMatchObject({ code: 'body.account_id', location: 'body.account_id' });
        const provB = await call('POST', '/accounts', { name: nextAccount().name, provider: 'provider_b', account_id: newId() });
        expect(provB.status, provB.text).toBe(201);
      });

      it('cannot be removed while a process still uses it, by name or by account ID; killed processes do not count', async () => {
        const account = await addAccount();
        const process = await createProcess(account.name);
        expect((await call('GET', '/accounts')).body.items.find((a: any) => a.name === account.name).process_count).toBe(1);
        const refused = await call('DELETE', `/accounts/${account.account_id}`);
        expect(refused.status).toBe(409);
        expect(refused.body.errors[0].code).toBe('account.in_use');
        expect((await call('DELETE', `/processes/${process.fid}?kill=true`)).status).toBe(202);
        expect((await call('DELETE', `/accounts/${account.name}`)).status).toBe(409);
        await runJobs();
        const removed = await call('DELETE', `/accounts/${account.account_id}`);
        expect(removed.body).toEqual({ name: account.name, status: 'Removed' });
        // The killed process outlives its account.
        expect((await getProcess(process.fid)).state).toBe('KILLED');
      });
    });

    describe('creating and reading processes', () => {
      it('creates a process RUNNING with enforcement on, and a job that creates its resources in the cloud', async () => {
        const account = await addAccount();
        const res = await call('POST', `/processes?account=${account.name}&alias=web-${account.name}`, await compositionTar(WEB_RESOURCES));
        expect(res.status, res.text).toBe(201);
        const fid = res.body.fid;
        expect(res.headers.get('location')).toBe(`/api/v0/processes/${fid}`);
        expect(res.body).toMatchObject({ alias: `web-${account.name}`, account: account.name, state: 'RUNNING', enforcement: true, lock: false });
        expect(res.body.composition_digest).toMatch(/^[0-9a-f]{64}$/);
        expect(res.body.resources).toEqual([
          { name: 'assets', type: 'PROVA.S3.Bucket', resource_id: null, region: null, status: 'pending', properties: WEB_RESOURCES[0]!.properties },
          { name: 'jobs', type: 'PROVA.SQS.Queue', resource_id: null, region: 'us-east-1', status: 'pending', properties: WEB_RESOURCES[1]!.properties },
        ]);

        await runJobs();
        const created = await getProcess(`web-${account.name}`);
        expect(created.fid).toBe(fid);
        expect(created.resources.map((r) => r.status)).toEqual(['present', 'present']);
        const bucket = await cloudResource(account.account_id, created, 'assets');
        expect(bucket).toMatchObject({ type: 'PROVA.S3.Bucket', region: null, tags: { env: 'prod' }, properties: { versioning: 'Enabled', acl_grants_public: false } });
        // Properties the composition leaves out take the provider's defaults.
        expect(bucket!.properties).toHaveProperty('encryption');
        expect(await cloudResource(account.account_id, created, 'jobs')).toMatchObject({ region: 'us-east-1', properties: { visibility_timeout_seconds: 30 } });

        const history = await call('GET', `/processes/${fid}/history`);
        expect(history.body.items).toHaveLength(1);
        expect(history.body.items[0]).toMatchObject({ event: 'created', actor: 'root', details: { composition_digest: res.body.composition_digest } });
        const jobId = history.body.items[0].job_id;
        const ops = await call('GET', `/processes/${fid}/ops/${jobId}`);
        expect(ops.body.items.map((o: any) => [o.operation, o.resource_name, o.status])).toEqual([
          ['create', 'assets', 'succeeded'],
          ['create', 'jobs', 'succeeded'],
        ]);
        expect(ops.body.items.map((o: any) => o.resource_id)).toEqual(created.resources.map((r) => r.resource_id));
      });

      it('lists running processes, oldest first, by account; an unknown account lists nothing', async () => {
        const account = await addAccount();
        const other = await addAccount();
        const first = await createProcess(account.name, WEB_RESOURCES, { run: false });
        server().clock.advanceSeconds(10);
        const second = await createProcess(account.name, WEB_RESOURCES.slice(0, 1), { run: false });
        await createProcess(other.name, WEB_RESOURCES, { run: false });
        const listed = await call('GET', `/processes?account=${account.name}`);
        expect(listed.status).toBe(200);
        expect(listed.body.items.map((p: any) => [p.fid, p.resource_count])).toEqual([
          [first.fid, 2],
          [second.fid, 1],
        ]);
        expect((await call('GET', `/processes?account=${account.account_id}`)).body.count).toBe(2);
        expect((await call('GET', '/processes?account=no-such-account')).body).toEqual({ count: 0, items: [] });
        const all = await call('GET', '/processes');
        expect(all.body.items.map((p: any) => p.fid)).toEqual(expect.arrayContaining([first.fid, second.fid]));
      });

      it('refuses an unknown account (404), a taken alias (409) and an alias that is a UUID (400)', async () => {
        const account = await addAccount();
        const tar = await compositionTar(WEB_RESOURCES);
        expect((await call('POST', '/processes?account=no-such-account', tar)).status).toBe(404);
        await createProcess(account.name, WEB_RESOURCES, { alias: `taken-${account.name}`, run: false });
        const taken = await call('POST', `/processes?account=${account.name}&alias=taken-${account.name}`, tar);
        expect(taken.status).toBe(409);
        expect(taken.body.errors[0].code).toBe('process.alias_taken');
        const uuid = await call('POST', `/processes?account=${account.name}&alias=${newId()}`, tar);
        expect(uuid.status).toBe(400);
        expect(uuid.body.errors[0].location).toBe('query.alias');
      });

      it('answers 400 for every hostile archive, and creates nothing', async () => {
        const account = await addAccount();
        for (const [name, build] of Object.entries(HOSTILE_ARCHIVES)) {
          const res = await call('POST', `/processes?account=${account.name}`, await build());
          expect(res.status, `${name}: ${res.text}`).toBe(400);
          expect(res.body.code).toBe(400);
        }
        expect((await call('GET', `/processes?account=${account.name}`)).body.count).toBe(0);
      });

      it('answers 400 listing every problem of an invalid composition', async () => {
        const account = await addAccount();
        const missing = await call('POST', `/processes?account=${account.name}`, await filesTar({ 'other.yaml': 'x' }));
        expect(missing.status).toBe(400);
        expect(missing.body.errors[0]).toMatchObject({ code: 'archive.missing_file', location: 'composition.yaml' });

        const syntax = await call('POST', `/processes?account=${account.name}`, await filesTar({ 'composition.yaml': 'resources: [\n  - name: x\n' }));
        expect(syntax.status).toBe(400);
        expect(syntax.body.errors[0].location).toMatch(/^composition\.yaml/);

        const invalid = await call(
          'POST',
          `/processes?account=${account.name}`,
          await compositionTar([
            { name: 'a', type: 'PROVB.Storage.Account', region: 'eastus' },
            { name: 'b', type: 'PROVA.SQS.Queue' },
            { name: 'b', type: 'PROVA.S3.Bucket', region: 'us-east-1', colour: 'red' },
          ]),
        );
        expect(invalid.status).toBe(400);
        expect(invalid.body.errors.map((e: any) => e.location)).toEqual([
          'composition.yaml:resources[2].colour',
          'composition.yaml:resources[2].name',
        ]);
        const unsupported = await call(
          'POST',
          `/processes?account=${account.name}`,
          await compositionTar([
            { name: 'a', type: 'PROVB.Storage.Account', region: 'eastus' },
            { name: 'b', type: 'PROVA.SQS.Queue' },
            { name: 'c', type: 'PROVA.S3.Bucket', region: 'us-east-1' },
            { name: 'd', type: 'PROVA.SQS.Queue', region: 'mars-1' },
          ]),
        );
        expect(unsupported.status).toBe(400);
        expect(unsupported.body.errors.map((e: any) => [e.code, e.location])).toEqual([
          ['composition.invalid', 'composition.yaml:resources[0].type'],
          ['composition.invalid', 'composition.yaml:resources[1].region'],
          ['composition.invalid', 'composition.yaml:resources[2].region'],
          ['composition.invalid', 'composition.yaml:resources[3].region'],
        ]);
      });

      it('with import_resources, adopts existing resources of the account instead of creating them', async () => {
        const account = await addAccount();
        await cloud().ensureAccount('provider_a', account.account_id);
        const existing = await cloud().createResource('provider_a', account.account_id, { type: 'PROVA.S3.Bucket', name: 'legacy-logs', region: null, tags: { team: 'ops' }, properties: {} });
        if (!existing.ok) throw new Error(existing.message);
        const imports = [{ name: 'logs', type: 'PROVA.S3.Bucket', id: existing.document.id }];

        // Without import_resources the imports are ignored.
        const ignored = await createProcess(account.name, WEB_RESOURCES.slice(0, 1), { imports, run: false });
        expect(ignored.resources.map((r) => r.name)).toEqual(['assets']);

        const missing = await call('POST', `/processes?account=${account.name}&import_resources=true`, await compositionTar([], [{ name: 'x', type: 'PROVA.S3.Bucket', id: 'arn:prova:s3:::nothing' }]));
        expect(missing.status).toBe(400);
        expect(missing.body.errors[0]).toMatchObject({ code: 'import.not_found', location: 'composition.yaml:imports[0].id' });

        const adopting = await createProcess(account.name, WEB_RESOURCES.slice(0, 1), { imports, query: '&import_resources=true' });
        const process = await getProcess(adopting.fid);
        expect(process.resources.map((r) => [r.name, r.resource_id === existing.document.id, r.status])).toEqual([
          ['assets', false, 'present'],
          ['logs', true, 'present'],
        ]);
        expect(process.resources[1]!.properties).toEqual(existing.document.properties);
        const ops = await call('GET', `/processes/${adopting.fid}/ops`);
        expect(ops.body.items.map((o: any) => [o.operation, o.resource_name, o.resource_id === existing.document.id])).toEqual([
          ['create', 'assets', false],
          ['import', 'logs', true],
        ]);
      });

      it('creates its resources in the same cloud the compliance scans of that account see', async () => {
        let accountId = nextAccount().accountId;
        // An account whose role may list both types, so the scan sees them.
        while (listingError('provider_a', accountId, 'PROVA.S3.Bucket') || listingError('provider_a', accountId, 'PROVA.SQS.Queue')) accountId = nextAccount().accountId;
        const account = await addAccount({ account_id: accountId });
        const process = await getProcess((await createProcess(account.name)).fid);
        const env = await server().request('POST', '/v0/environments', {
          body: {
            name: 'conductor-scan',
            provider: 'provider_a',
            provider_options: { provider_a: { role_arn: `arn:prova:iam::${accountId}:role/scanner`, regions: ['*'] } },
            compliance_families: ['CIS'],
          },
        });
        expect(env.status, env.text).toBe(201);
        const scan = await server().request('POST', `/v0/scans?environment_id=${env.body.id}`);
        expect(scan.status, scan.text).toBe(201);
        await runJobs();
        const seen = await server()
          .services.database.db.selectFrom('scan_resources')
          .select('resource_id')
          .where('scan_id', '=', scan.body.id)
          .where('resource_id', 'in', process.resources.map((r) => r.resource_id))
          .execute();
        expect(seen).toHaveLength(2);
      });
    });

    describe('lifecycle', () => {
      it('suspends and resumes, recording each change, and refuses transitions the state does not allow (409)', async () => {
        const account = await addAccount();
        const { fid } = await createProcess(account.name);
        const suspended = await call('PATCH', `/processes/${fid}`, { action: 'suspend' });
        expect(suspended.status, suspended.text).toBe(202);
        expect(suspended.body).toMatchObject({ fid, state: 'SUSPENDED', enforcement: true, lock: false, alias: null });
        expect(suspended.headers.get('location')).toBe(`/api/v0/processes/${fid}/ops/${suspended.body.transaction_id}`);
        // A change that starts no job is its history entry, whose ops list is empty.
        const history = (await call('GET', `/processes/${fid}/history`)).body.items;
        expect(history.at(-1)).toMatchObject({ id: suspended.body.transaction_id, event: 'suspended', job_id: null, details: { from_state: 'RUNNING' } });
        expect((await call('GET', `/processes/${fid}/ops/${suspended.body.transaction_id}`)).body).toEqual({ count: 0, items: [] });

        const again = await call('PATCH', `/processes/${fid}`, { action: 'suspend' });
        expect(again.status).toBe(409);
        expect(again.body).toMatchObject({ code: 409, message: 'Illegal state change', errors: [{ code: 'process.illegal_state', location: 'body.action' }] });
        expect((await call('PATCH', `/processes/${fid}`, { action: 'resume' })).body.state).toBe('RUNNING');
        expect((await call('PATCH', `/processes/${fid}`, { action: 'resume' })).status).toBe(409);
        expect((await call('GET', `/processes/${fid}/history`)).body.items.map((h: any) => h.event)).toEqual(['created', 'suspended', 'resumed']);
        // Suspended processes are still listed and still count for their account.
        await call('PATCH', `/processes/${fid}`, { action: 'suspend' });
        expect((await call('GET', `/processes?account=${account.name}`)).body.items[0]).toMatchObject({ fid, state: 'SUSPENDED' });
      });

      it('leaves a process whose kill job is given up SUSPENDED, recording why, so the kill can be requested again', async () => {
        const account = await addAccount();
        const { fid } = await createProcess(account.name);
        expect((await call('PATCH', `/processes/${fid}`, { action: 'kill' })).status).toBe(202);
        // Every attempt's worker dies mid-job; once the last lease runs out the queue gives the job up.
        await abandonNextJob(server(), db(), 3);
        await runJobs();
        expect((await getProcess(fid)).state).toBe('SUSPENDED');
        const history = (await call('GET', `/processes/${fid}/history`)).body.items;
        expect(history.at(-1)).toMatchObject({ event: 'kill_failed', actor: 'conductor', details: { reason: expect.stringMatching(/abandoned/) } });
        expect(history.at(-1).job_id).toBe(history.at(-2).job_id);

        expect((await call('DELETE', `/processes/${fid}?kill=true`)).status).toBe(202);
        await runJobs();
        expect((await getProcess(fid)).state).toBe('KILLED');
      });

      it('answers 404 Process not found for an unknown process, and validates the patch', async () => {
        const unknown = await call('PATCH', '/processes/no-such-process', { action: 'suspend' });
        expect(unknown.status).toBe(404);
        expect(unknown.body).toMatchObject({ message: 'Process not found', errors: [{ code: 'process.not_found', location: 'path.process' }] });
        expect((await call('PATCH', `/processes/${newId()}`, { lock: true })).status).toBe(404);
        const account = await addAccount();
        const { fid } = await createProcess(account.name);
        expect((await call('PATCH', `/processes/${fid}`, {})).status).toBe(400);
        expect((await call('PATCH', `/processes/${fid}`, { action: 'explode' })).status).toBe(400);
        expect((await call('PATCH', `/processes/${fid}`, { alias: newId() })).status).toBe(400);
      });

      it('changes, frees and refuses taken aliases; a no-op answers with the latest history entry', async () => {
        const account = await addAccount();
        const one = await createProcess(account.name, WEB_RESOURCES, { alias: `one-${account.name}` });
        await createProcess(account.name, WEB_RESOURCES, { alias: `two-${account.name}` });
        const taken = await call('PATCH', `/processes/${one.fid}`, { alias: `two-${account.name}` });
        expect(taken.status).toBe(409);
        expect(taken.body.errors[0].code).toBe('process.alias_taken');
        const renamed = await call('PATCH', `/processes/one-${account.name}`, { alias: `uno-${account.name}` });
        expect(renamed.body.alias).toBe(`uno-${account.name}`);
        expect((await call('GET', `/processes/one-${account.name}`)).status).toBe(404);
        expect((await getProcess(`uno-${account.name}`)).fid).toBe(one.fid);
        const cleared = await call('PATCH', `/processes/${one.fid}`, { alias: '' });
        expect(cleared.body.alias).toBeNull();
        const history = (await call('GET', `/processes/${one.fid}/history`)).body.items;
        expect(history.slice(1).map((h: any) => [h.event, h.details])).toEqual([
          ['alias_changed', { from: `one-${account.name}`, to: `uno-${account.name}` }],
          ['alias_changed', { from: `uno-${account.name}`, to: null }],
        ]);
        const nothing = await call('PATCH', `/processes/${one.fid}`, { enforcement: true, lock: false });
        expect(nothing.status).toBe(202);
        expect(nothing.body.transaction_id).toBe(history.at(-1).id);
      });

      it('a locked process refuses every transition and composition update until unlocked; alias and enforcement still change', async () => {
        const account = await addAccount();
        const { fid } = await createProcess(account.name);
        const locked = await call('PATCH', `/processes/${fid}`, { lock: true });
        expect(locked.body).toMatchObject({ lock: true, state: 'RUNNING' });
        for (const action of ['suspend', 'kill']) {
          const refused = await call('PATCH', `/processes/${fid}`, { action });
          expect(refused.status).toBe(409);
          expect(refused.body.errors[0]).toMatchObject({ code: 'process.locked', location: 'body.action' });
        }
        expect((await call('DELETE', `/processes/${fid}`)).status).toBe(409);
        expect((await call('DELETE', `/processes/${fid}?kill=true`)).status).toBe(409);
        const update = await call('PUT', `/processes/${fid}/composition`, await compositionTar(WEB_RESOURCES.slice(0, 1)));
        expect(update.status).toBe(409);
        expect(update.body.errors[0].code).toBe('process.locked');
        // Locking and acting in one request is refused as a whole.
        const both = await call('PATCH', `/processes/${fid}`, { lock: true, action: 'suspend', alias: `x-${account.name}` });
        expect(both.status).toBe(409);
        expect(await getProcess(fid)).toMatchObject({ alias: null, lock: true, state: 'RUNNING' });
        // Alias and enforcement are not state transitions.
        expect((await call('PATCH', `/processes/${fid}`, { alias: `locked-${account.name}`, enforcement: false })).body).toMatchObject({
          alias: `locked-${account.name}`,
          enforcement: false,
          lock: true,
        });
        // Unlocking and acting in one request works: the lock is checked as the request leaves it.
        const unlocked = await call('PATCH', `/processes/${fid}`, { lock: false, action: 'suspend' });
        expect(unlocked.status, unlocked.text).toBe(202);
        expect(unlocked.body).toMatchObject({ lock: false, state: 'SUSPENDED' });
        const events = (await call('GET', `/processes/${fid}/history`)).body.items.map((h: any) => h.event);
        expect(events).toEqual(['created', 'lock_changed', 'alias_changed', 'enforcement_changed', 'lock_changed', 'suspended']);
      });

      it('kill deletes the resources through a job; the killed process keeps its FID and loses its alias', async () => {
        const account = await addAccount();
        const alias = `doomed-${account.name}`;
        const created = await getProcess((await createProcess(account.name, WEB_RESOURCES, { alias })).fid);
        const killing = await call('PATCH', `/processes/${alias}`, { action: 'kill' });
        expect(killing.status).toBe(202);
        expect(killing.body).toMatchObject({ state: 'KILLING', alias });
        const jobId = killing.body.transaction_id;
        expect(killing.headers.get('location')).toBe(`/api/v0/processes/${created.fid}/ops/${jobId}`);
        // A KILLING process accepts no change at all.
        expect((await call('PATCH', `/processes/${alias}`, { enforcement: false })).status).toBe(409);
        expect((await call('DELETE', `/processes/${alias}`)).status).toBe(409);

        await runJobs();
        expect((await call('GET', `/processes/${alias}`)).status).toBe(404);
        const killed = await getProcess(created.fid);
        expect(killed).toMatchObject({ state: 'KILLED', alias: null });
        expect(killed.resources.map((r) => r.status)).toEqual(['deleted', 'deleted']);
        for (const r of created.resources) expect(await cloud().getResource('provider_a', account.account_id, r.resource_id)).toBeUndefined();
        const ops = await call('GET', `/processes/${created.fid}/ops/${jobId}`);
        expect(ops.body.items.map((o: any) => [o.operation, o.resource_name, o.status])).toEqual([
          ['delete', 'assets', 'succeeded'],
          ['delete', 'jobs', 'succeeded'],
        ]);
        const history = (await call('GET', `/processes/${created.fid}/history`)).body.items;
        expect(history.slice(-2).map((h: any) => [h.event, h.job_id, h.actor])).toEqual([
          ['kill_requested', jobId, 'root'],
          ['killed', jobId, 'conductor'],
        ]);
        expect((await call('GET', `/processes?account=${account.name}`)).body.count).toBe(0);
        // Nothing changes a killed process; releasing it removes it; its alias is free again.
        expect((await call('PATCH', `/processes/${created.fid}`, { action: 'resume' })).status).toBe(409);
        expect((await call('DELETE', `/processes/${created.fid}?kill=true`)).status).toBe(409);
        await createProcess(account.name, WEB_RESOURCES, { alias, run: false });
        expect((await call('DELETE', `/processes/${created.fid}`)).body).toEqual({ fid: created.fid, status: 'Released' });
        expect((await call('GET', `/processes/${created.fid}`)).status).toBe(404);
      });

      it('DELETE with kill=true answers 202 with the job; without it the process is released and its resources stay', async () => {
        const account = await addAccount();
        const killed = await createProcess(account.name);
        const kill = await call('DELETE', `/processes/${killed.fid}?kill=true`);
        expect(kill.status).toBe(202);
        expect(kill.body).toEqual({ fid: killed.fid, state: 'KILLING', job_id: expect.any(String) });
        expect(kill.headers.get('location')).toBe(`/api/v0/processes/${killed.fid}/ops/${kill.body.job_id}`);
        await runJobs();
        expect((await getProcess(killed.fid)).state).toBe('KILLED');

        const alias = `kept-${account.name}`;
        const released = await getProcess((await createProcess(account.name, WEB_RESOURCES, { alias })).fid);
        const release = await call('DELETE', `/processes/${alias}`);
        expect(release.status).toBe(200);
        expect(release.body).toEqual({ fid: released.fid, status: 'Released' });
        expect((await call('GET', `/processes/${released.fid}`)).status).toBe(404);
        expect((await call('GET', `/processes/${released.fid}/history`)).status).toBe(404);
        expect((await call('PATCH', `/processes/${released.fid}`, { lock: true })).status).toBe(404);
        for (const r of released.resources) expect(await cloud().getResource('provider_a', account.account_id, r.resource_id)).toBeDefined();
        // Its alias is free, and its account is no longer in use.
        await createProcess(account.name, WEB_RESOURCES, { alias, run: false });
        await call('DELETE', `/processes/${alias}`);
        expect((await call('DELETE', `/accounts/${account.name}`)).status).toBe(200);
      });
    });

    describe('composition updates', () => {
      it('creates, updates and deletes the difference in one job, leaving matching resources alone', async () => {
        const account = await addAccount();
        const v1 = [...WEB_RESOURCES, { name: 'legacy', type: 'PROVA.SQS.Queue', region: 'us-west-2', properties: { fifo: false } }];
        const before = await getProcess((await createProcess(account.name, v1)).fid);
        const v2 = [
          { ...WEB_RESOURCES[0], properties: { versioning: 'Suspended', acl_grants_public: false } },
          WEB_RESOURCES[1],
          { name: 'cache', type: 'PROVA.S3.Bucket', properties: { object_lock: true } },
        ];
        const res = await call('PUT', `/processes/${before.fid}/composition`, await compositionTar(v2));
        expect(res.status, res.text).toBe(202);
        expect(res.body).toEqual({ fid: before.fid, job_id: expect.any(String) });
        expect(res.headers.get('location')).toBe(`/api/v0/processes/${before.fid}/ops/${res.body.job_id}`);
        await runJobs();

        const ops = await call('GET', `/processes/${before.fid}/ops/${res.body.job_id}`);
        expect(ops.body.items.map((o: any) => [o.operation, o.resource_name, o.status])).toEqual([
          ['update', 'assets', 'succeeded'],
          ['create', 'cache', 'succeeded'],
          ['delete', 'legacy', 'succeeded'],
        ]);
        const after = await getProcess(before.fid);
        expect(after.resources.map((r) => [r.name, r.status])).toEqual([
          ['assets', 'present'],
          ['jobs', 'present'],
          ['cache', 'present'],
        ]);
        expect(after.resources[0]!.resource_id).toBe(before.resources[0]!.resource_id);
        expect(await cloudResource(account.account_id, after, 'assets')).toMatchObject({ properties: { versioning: 'Suspended' } });
        expect(await cloud().getResource('provider_a', account.account_id, before.resources[2]!.resource_id)).toBeUndefined();
        const history = (await call('GET', `/processes/${before.fid}/history`)).body.items;
        expect(history.at(-1)).toMatchObject({ event: 'composition_updated', job_id: res.body.job_id });
        expect((await call('GET', `/processes/${before.fid}`)).body.composition_digest).toBe(history.at(-1).details.composition_digest);
      });

      it('is refused for a suspended process (409), for an invalid composition (400) and for hostile archives (400)', async () => {
        const account = await addAccount();
        const { fid } = await createProcess(account.name);
        for (const [name, build] of Object.entries(HOSTILE_ARCHIVES)) {
          const res = await call('PUT', `/processes/${fid}/composition`, await build());
          expect(res.status, `${name}: ${res.text}`).toBe(400);
        }
        const invalid = await call('PUT', `/processes/${fid}/composition`, await compositionTar([{ name: 'x', type: 'PROVA.Nope.Thing' }]));
        expect(invalid.status).toBe(400);
        expect(invalid.body.errors[0]).toMatchObject({ code: 'composition.invalid', location: 'composition.yaml:resources[0].type' });
        await call('PATCH', `/processes/${fid}`, { action: 'suspend' });
        const suspended = await call('PUT', `/processes/${fid}/composition`, await compositionTar(WEB_RESOURCES));
        expect(suspended.status).toBe(409);
        expect(suspended.body.errors[0].code).toBe('process.illegal_state');
        expect((await call('PUT', `/processes/${newId()}/composition`, await compositionTar(WEB_RESOURCES))).status).toBe(404);
      });
    });

    describe('enforcement', () => {
      const driftBucket = async (accountId: string, process: { resources: Array<Record<string, any>> }) =>
        cloud().driftResource('provider_a', accountId, process.resources[0]!.resource_id, { versioning: 'Suspended' });

      it('with enforcement on, drift is found by the periodic check and corrected by a job recorded as ops', async () => {
        const account = await addAccount();
        const process = await getProcess((await createProcess(account.name)).fid);
        expect(await server().services.enforcer.tick()).toBe(0);
        await driftBucket(account.account_id, process);
        expect((await getProcess(process.fid)).resources.map((r) => r.status)).toEqual(['drifted', 'present']);

        expect(await server().services.enforcer.tick()).toBe(1);
        // A correction in flight is not started twice.
        expect(await server().services.enforcer.tick()).toBe(0);
        await runJobs();
        expect(await cloudResource(account.account_id, process, 'assets')).toMatchObject({ properties: { versioning: 'Enabled' } });
        expect((await getProcess(process.fid)).resources.map((r) => r.status)).toEqual(['present', 'present']);
        const last = await call('GET', `/processes/${process.fid}/ops?last=true`);
        expect(last.body.items.map((o: any) => [o.operation, o.resource_name, o.status])).toEqual([['correct', 'assets', 'succeeded']]);
        const history = (await call('GET', `/processes/${process.fid}/history`)).body.items;
        expect(history.at(-1)).toMatchObject({ event: 'drift_corrected', actor: 'conductor', job_id: last.body.items[0].job_id, details: { resources: 1 } });

        // A resource deleted outside the conductor is recreated.
        await cloud().deleteResource('provider_a', account.account_id, process.resources[1]!.resource_id);
        expect((await getProcess(process.fid)).resources[1]!.status).toBe('deleted');
        expect(await server().services.enforcer.tick()).toBe(1);
        await runJobs();
        expect((await getProcess(process.fid)).resources[1]!.status).toBe('present');
      });

      it('a job that a crash left unqueued is queued by the periodic check; one the queue gave up on is marked failed', async () => {
        const account = await addAccount();
        const { fid } = await createProcess(account.name, WEB_RESOURCES, { run: false });
        const { db: database } = server().services.database;
        const job = await database.selectFrom('conductor_jobs').selectAll().where('fid', '=', fid).executeTakeFirstOrThrow();
        // The server process died between registering the job and queueing it.
        await database.deleteFrom('jobs').where('id', '=', job.queue_job_id!).execute();
        await database.updateTable('conductor_jobs').set({ queue_job_id: null }).where('id', '=', job.id).execute();
        await runJobs();
        expect((await getProcess(fid)).resources.map((r) => r.status)).toEqual(['pending', 'pending']);
        await server().services.enforcer.tick();
        await runJobs();
        expect((await getProcess(fid)).resources.map((r) => r.status)).toEqual(['pending', 'pending']);
        server().clock.advanceSeconds(121);
        await server().services.enforcer.tick();
        await runJobs();
        expect((await getProcess(fid)).resources.map((r) => r.status)).toEqual(['present', 'present']);

        const update = await call('PUT', `/processes/${fid}/composition`, await compositionTar(WEB_RESOURCES.slice(0, 1)));
        const queued = await database.selectFrom('conductor_jobs').select('queue_job_id').where('id', '=', update.body.job_id).executeTakeFirstOrThrow();
        await database.updateTable('jobs').set({ status: 'failed', last_error: 'the database went away' }).where('id', '=', queued.queue_job_id!).execute();
        await server().services.enforcer.tick();
        expect(await database.selectFrom('conductor_jobs').select(['status', 'message']).where('id', '=', update.body.job_id).executeTakeFirstOrThrow()).toEqual({
          status: 'failed',
          message: 'the job failed: the database went away',
        });
      });

      it('with enforcement off, or while suspended, drift stays; turning enforcement on corrects it at once', async () => {
        const account = await addAccount();
        const process = await getProcess((await createProcess(account.name)).fid);
        const off = await call('PATCH', `/processes/${process.fid}`, { enforcement: false });
        expect(off.body.enforcement).toBe(false);
        await driftBucket(account.account_id, process);
        expect(await server().services.enforcer.tick()).toBe(0);
        await runJobs();
        expect((await getProcess(process.fid)).resources[0]!.status).toBe('drifted');
        expect(await cloudResource(account.account_id, process, 'assets')).toMatchObject({ properties: { versioning: 'Suspended' } });

        const on = await call('PATCH', `/processes/${process.fid}`, { enforcement: true });
        const history = (await call('GET', `/processes/${process.fid}/history`)).body.items;
        expect(history.at(-1)).toMatchObject({ event: 'enforcement_changed', job_id: on.body.transaction_id, details: { from: false, to: true } });
        await runJobs();
        expect((await getProcess(process.fid)).resources[0]!.status).toBe('present');
        const ops = await call('GET', `/processes/${process.fid}/ops/${on.body.transaction_id}`);
        expect(ops.body.items.map((o: any) => o.operation)).toEqual(['correct']);

        await call('PATCH', `/processes/${process.fid}`, { action: 'suspend' });
        await driftBucket(account.account_id, process);
        expect(await server().services.enforcer.tick()).toBe(0);
        const resumed = await call('PATCH', `/processes/${process.fid}`, { action: 'resume' });
        const resumedEntry = (await call('GET', `/processes/${process.fid}/history`)).body.items.at(-1);
        expect(resumedEntry).toMatchObject({ event: 'resumed', job_id: resumed.body.transaction_id });
        await runJobs();
        expect((await getProcess(process.fid)).resources[0]!.status).toBe('present');
      });
    });

    describe('history and ops', () => {
      it('restricts history and ops to a time window in mm/dd/YYYY HH:MM (UTC), end to the end of its minute', async () => {
        // The test clock starts at 06/01/2026 12:00 UTC.
        const account = await addAccount();
        const start = server().clock.nowSeconds();
        const pad = (n: number) => String(n).padStart(2, '0');
        const at = (seconds: number) => {
          const d = new Date(seconds * 1000);
          return `${pad(d.getUTCMonth() + 1)}/${pad(d.getUTCDate())}/${d.getUTCFullYear()} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}`;
        };
        server().clock.advanceSeconds(30);
        const { fid } = await createProcess(account.name);
        server().clock.advanceSeconds(3600);
        await call('PATCH', `/processes/${fid}`, { action: 'suspend' });
        server().clock.advanceSeconds(3600);
        await call('PATCH', `/processes/${fid}`, { action: 'resume' });
        const history = (query: string) => call('GET', `/processes/${fid}/history?${query}`);

        expect((await history(`start=${encodeURIComponent(at(start + 3600))}`)).body.items.map((h: any) => h.event)).toEqual(['suspended', 'resumed']);
        // The creation happened 30 s into the minute `end` names: the end of that minute includes it.
        expect((await history(`end=${encodeURIComponent(at(start))}`)).body.items.map((h: any) => h.event)).toEqual(['created']);
        const middle = `start=${encodeURIComponent(at(start + 60))}&end=${encodeURIComponent(at(start + 3630))}`;
        expect((await history(middle)).body.items.map((h: any) => h.event)).toEqual(['suspended']);

        for (const bad of ['2026-06-01 12:00', '13/01/2026 12:00', '02/30/2026 12:00', '06/01/2026 24:00']) {
          const res = await history(`start=${encodeURIComponent(bad)}`);
          expect(res.status, bad).toBe(400);
        }
        const impossible = await history(`start=${encodeURIComponent('02/30/2026 12:00')}`);
        expect(impossible.body.errors[0]).toMatchObject({ code: 'query.start', location: 'query.start' });
        const reversed = await history(`start=${encodeURIComponent(at(start + 7200))}&end=${encodeURIComponent(at(start))}`);
        expect(reversed.status).toBe(400);
        expect(reversed.body.errors[0].code).toBe('query.start');
        expect((await call('GET', `/processes/${fid}/ops?end=${encodeURIComponent('1/1/2026 10:00')}`)).status).toBe(400);

        const ops = await call('GET', `/processes/${fid}/ops?start=${encodeURIComponent(at(start + 60))}`);
        expect(ops.body).toEqual({ count: 0, items: [] });
        expect((await call('GET', `/processes/${fid}/ops?end=${encodeURIComponent(at(start))}`)).body.count).toBe(2);
      });

      it('selects the first or the last job with first/last (not both), and one job by id', async () => {
        const account = await addAccount();
        const { fid } = await createProcess(account.name);
        const update = await call('PUT', `/processes/${fid}/composition`, await compositionTar(WEB_RESOURCES.slice(0, 1)));
        await runJobs();
        const all = await call('GET', `/processes/${fid}/ops`);
        expect(all.body.items.map((o: any) => o.operation)).toEqual(['create', 'create', 'delete']);
        const first = await call('GET', `/processes/${fid}/ops?first=true`);
        expect(first.body.items.map((o: any) => o.operation)).toEqual(['create', 'create']);
        const last = await call('GET', `/processes/${fid}/ops?last=true`);
        expect(last.body.items.map((o: any) => [o.operation, o.job_id])).toEqual([['delete', update.body.job_id]]);
        const both = await call('GET', `/processes/${fid}/ops?first=true&last=true`);
        expect(both.status).toBe(400);
        expect(both.body.errors[0].location).toBe('query.last');

        const other = await createProcess(account.name);
        const otherJob = (await call('GET', `/processes/${other.fid}/history`)).body.items[0].job_id;
        expect((await call('GET', `/processes/${fid}/ops/${otherJob}`)).status).toBe(404);
        expect((await call('GET', `/processes/${fid}/ops/${newId()}`)).status).toBe(404);
        expect((await call('GET', `/processes/${fid}/ops/${update.body.job_id}`)).body.count).toBe(1);
      });
    });
  },
  'suite',
);
