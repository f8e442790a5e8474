import { describe, it, jest } from '@jest/globals';
import { CompletionWaiter, type WaitEnd } from '../src/domain/conductor/completion-waiter.js';
import { accountKey } from '../src/domain/cloud/simulator/simulated-cloud.js';
import { newId } from '../src/domain/ids.js';
import { KyselyDryRunRepository } from '../src/storage/repositories/conductor.js';
import { HOSTILE_ARCHIVES, filesTar } from './fixtures/archives.js';
import { compositionTar, conductorClient, WEB_RESOURCES } from './conductor.js';
import { describeEachDatabase } from './databases.js';
import { eventually } from './eventually.js';
import { abandonNextJob, useTestServer } from './server.js';
import { expect } from './expect.js';

describeEachDatabase(
  'conductor dry-runs',
  (db) => {
    const server = useTestServer(db);
    const { call, runJobs, addAccount, createProcess, getProcess } = conductorClient(server);
    const cloud = () => server().services.cloud;

    /** Requests a dry-run, runs its job, and returns the finished record. */
    const dryRun = async (query: string, body?: Buffer) => {
      const requested = await call('POST', `/dry-run?${query}`, body);
      expect(requested.status, requested.text).toBe(202);
      expect(requested.body).toEqual({ id: expect.any(String), status: 'PENDING' });
      expect(requested.headers.get('location')).toBe(`/api/v0/dry-run/${requested.body.id}`);
      await runJobs();
      const result = await call('GET', `/dry-run/${requested.body.id}`);
      expect(result.status, result.text).toBe(200);
      return result.body as { id: string; command: string; status: string; process: string | null; account: string; errors: any[]; plan: any[] };
    };

    /** Every resource of the account's inventory, as the cloud holds it now. */
    const inventory = async (accountId: string) =>
      server()
        .services.database.db.selectFrom('cloud_resources')
        .select(['resource_id', 'properties', 'tags'])
        .where('account_key', '=', accountKey('provider_a', accountId))
        .orderBy('resource_id')
        .execute();

    describe('plans', () => {
      it('RUN plans the creation of every resource and the import of every adopted one, creating nothing', async () => {
        const account = await addAccount();
        await cloud().ensureAccount('provider_a', account.account_id);
        const legacy = await cloud().createResource('provider_a', account.account_id, { type: 'PROVA.S3.Bucket', name: 'legacy', region: null, tags: {}, properties: {} });
        if (!legacy.ok) throw new Error(legacy.message);
        const before = await inventory(account.account_id);
        const result = await dryRun(
          `command=run&account=${account.name}&import_resources=true`,
          await compositionTar(WEB_RESOURCES, [{ name: 'logs', type: 'PROVA.S3.Bucket', id: legacy.document.id }]),
        );
        expect(result).toMatchObject({ command: 'RUN', status: 'SUCCEEDED', process: null, account: account.name, errors: [] });
        expect(result.plan).toEqual([
          { operation: 'create', resource_name: 'assets', resource_type: 'PROVA.S3.Bucket', resource_id: null, changes: WEB_RESOURCES[0]!.properties },
          { operation: 'create', resource_name: 'jobs', resource_type: 'PROVA.SQS.Queue', resource_id: null, changes: WEB_RESOURCES[1]!.properties },
          { operation: 'import', resource_name: 'logs', resource_type: 'PROVA.S3.Bucket', resource_id: legacy.document.id, changes: legacy.document.properties },
        ]);
        expect(await inventory(account.account_id)).toEqual(before);
        expect((await call('GET', `/processes?account=${account.name}`)).body.count).toBe(0);
      });

      it('UPDATE plans updates (from, to), deletes, creates and resources left alone, changing nothing', async () => {
        const account = await addAccount();
        const process = await getProcess((await createProcess(account.name)).fid);
        const before = await inventory(account.account_id);
        const result = await dryRun(
          `command=UPDATE&process=${process.fid}&account=${account.account_id}`,
          await compositionTar([
            { ...WEB_RESOURCES[0], properties: { versioning: 'Suspended', acl_grants_public: false }, tags: { env: 'dev' } },
            { name: 'cache', type: 'PROVA.S3.Bucket' },
          ]),
        );
        expect(result).toMatchObject({ command: 'UPDATE', status: 'SUCCEEDED', process: process.fid, account: account.name });
        expect(result.plan).toEqual([
          {
            operation: 'update',
            resource_name: 'assets',
            resource_type: 'PROVA.S3.Bucket',
            resource_id: process.resources[0]!.resource_id,
            changes: { versioning: { from: 'Enabled', to: 'Suspended' }, 'tags.env': { from: 'prod', to: 'dev' } },
          },
          { operation: 'create', resource_name: 'cache', resource_type: 'PROVA.S3.Bucket', resource_id: null, changes: {} },
          { operation: 'delete', resource_name: 'jobs', resource_type: 'PROVA.SQS.Queue', resource_id: process.resources[1]!.resource_id, changes: null },
        ]);
        const same = await dryRun(`command=update&process=${process.fid}`, await compositionTar(WEB_RESOURCES));
        expect(same.plan.map((p) => p.operation)).toEqual(['none', 'none']);
        expect(await inventory(account.account_id)).toEqual(before);
        expect(await getProcess(process.fid)).toEqual(process);
      });

      it('KILL plans the deletion of every resource, and the process keeps running', async () => {
        const account = await addAccount();
        const alias = `k-${account.name}`;
        const process = await getProcess((await createProcess(account.name, WEB_RESOURCES, { alias })).fid);
        const result = await dryRun(`command=kill&process=${alias}`);
        expect(result).toMatchObject({ command: 'KILL', status: 'SUCCEEDED', process: process.fid });
        expect(result.plan.map((p) => [p.operation, p.resource_name, p.resource_id])).toEqual(process.resources.map((r) => ['delete', r.name, r.resource_id]));
        expect(await getProcess(process.fid)).toEqual(process);
      });

      it('RESUME plans the corrections of drift when enforcement is on, and fails for a running or locked process', async () => {
        const account = await addAccount();
        const process = await getProcess((await createProcess(account.name)).fid);
        const running = await dryRun(`command=RESUME&process=${process.fid}`);
        expect(running).toMatchObject({ status: 'FAILED', plan: [], errors: [{ code: 'process.illegal_state', location: 'query.command' }] });

        await call('PATCH', `/processes/${process.fid}`, { action: 'suspend' });
        await cloud().driftResource('provider_a', account.account_id, process.resources[0]!.resource_id, { versioning: 'Suspended' });
        const resume = await dryRun(`command=resume&process=${process.fid}`);
        expect(resume.status).toBe('SUCCEEDED');
        expect(resume.plan.map((p) => [p.operation, p.resource_name, p.changes])).toEqual([
          ['update', 'assets', { versioning: { from: 'Suspended', to: 'Enabled' } }],
          ['none', 'jobs', null],
        ]);
        expect((await getProcess(process.fid)).resources[0]!.status).toBe('drifted');

        await call('PATCH', `/processes/${process.fid}`, { lock: true });
        const locked = await dryRun(`command=RESUME&process=${process.fid}`);
        expect(locked).toMatchObject({ status: 'FAILED', errors: [{ code: 'process.locked' }] });
        const update = await dryRun(`command=UPDATE&process=${process.fid}`, await compositionTar(WEB_RESOURCES));
        expect(update.errors[0].code).toBe('process.locked');
      });

      it('fails with every problem of an invalid composition', async () => {
        const account = await addAccount();
        const result = await dryRun(`command=RUN&account=${account.name}`, await compositionTar([{ name: 'q', type: 'PROVA.SQS.Queue' }, { name: 'x', type: 'nope' }]));
        expect(result).toMatchObject({ status: 'FAILED', plan: [] });
        expect(result.errors.map((e) => [e.code, e.location])).toEqual([['composition.invalid', 'composition.yaml:resources[1].type']]);
        const regionless = await dryRun(`command=RUN&account=${account.name}`, await compositionTar([{ name: 'q', type: 'PROVA.SQS.Queue' }]));
        expect(regionless.errors).toEqual([{ code: 'composition.invalid', message: expect.stringMatching(/regional/), location: 'composition.yaml:resources[0].region' }]);
        const empty = await dryRun(`command=RUN&account=${account.name}`, await filesTar({ 'composition.yaml': '' }));
        expect(empty.status).toBe('FAILED');
      });
    });

    describe('requests refused at once', () => {
      it('answers 400 for missing parameters or body and 404 for an unknown process or account', async () => {
        const account = await addAccount();
        const { fid } = await createProcess(account.name);
        const other = await addAccount();
        const tar = await compositionTar(WEB_RESOURCES);
        const expectations: Array<[string, Buffer | undefined, number, string]> = [
          ['command=RUN', tar, 400, 'query.account'],
          [`command=RUN&account=${account.name}&process=${fid}`, tar, 400, 'query.process'],
          [`command=RUN&account=${account.name}`, undefined, 400, 'body'],
          ['command=UPDATE', tar, 400, 'query.process'],
          [`command=UPDATE&process=${fid}`, undefined, 400, 'body'],
          [`command=KILL&process=${fid}&account=${other.name}`, undefined, 400, 'query.account'],
          ['command=KILL&process=no-such-process', undefined, 404, 'query.process'],
          [`command=RUN&account=no-such-account`, tar, 404, 'query.account'],
        ];
        for (const [query, body, status, location] of expectations) {
          const res = await call('POST', `/dry-run?${query}`, body);
          expect(res.status, `${query}: ${res.text}`).toBe(status);
          expect(res.body.errors[0]?.location, query).toBe(location);
        }
        expect((await call('POST', `/dry-run?command=DESTROY&process=${fid}`)).status).toBe(400);
        for (const [name, build] of Object.entries(HOSTILE_ARCHIVES)) {
          const res = await call('POST', `/dry-run?command=RUN&account=${account.name}`, await build());
          expect(res.status, `${name}: ${res.text}`).toBe(400);
        }
        expect((await call('GET', `/dry-run/${newId()}`)).status).toBe(404);
        expect((await call('GET', `/dry-run/${newId()}?timeout=-1`)).status).toBe(400);
        expect((await call('GET', `/dry-run/${newId()}?timeout=9007199254740992`)).status).toBe(400);
      });
    });

    it('lists every problem the request validation finds in errors, each with its location', async () => {
      const res = await call('GET', '/dry-run/not-a-dry-run-id?timeout=-1');
      expect(res.status, res.text).toBe(400);
      expect(res.body).toEqual({ code: 400, message: expect.any(String), errors: expect.any(Array) });
      const locations = new Set(res.body.errors.map((e: { location: string }) => e.location));
      expect(locations).toEqual(new Set(['path.id', 'query.timeout']));
      for (const error of res.body.errors) {
        expect(error).toEqual({ code: error.location, message: expect.stringMatching(/\S/), location: expect.any(String) });
      }
      expect(res.body.errors.find((e: { location: string }) => e.location === 'query.timeout').message).toMatch(/>= 0/);
    });

    it('lists an unknown query parameter beside the other problems of the request', async () => {
      const res = await call('GET', '/dry-run/not-a-dry-run-id?timeout=-1&colour=blue&shape=');
      expect(res.status, res.text).toBe(400);
      const locations = new Set(res.body.errors.map((e: { location: string }) => e.location));
      expect(locations).toEqual(new Set(['path.id', 'query.timeout', 'query.colour', 'query.shape']));
      expect(res.body.errors.find((e: { location: string }) => e.location === 'query.colour').message).toBe("query.colour: Unknown query parameter 'colour'");
      // Alone, an unknown parameter is still refused, with the same words.
      const alone = await call('GET', `/dry-run/${newId()}?colour=blue`);
      expect(alone.status, alone.text).toBe(400);
      expect(alone.body.errors).toEqual([{ code: 'query.colour', message: "query.colour: Unknown query parameter 'colour'", location: 'query.colour' }]);
    });

    it('ends FAILED with the reason when its job is given up, and wakes whoever waits', async () => {
      const account = await addAccount();
      const requested = await call('POST', `/dry-run?command=run&account=${account.name}`, await compositionTar(WEB_RESOURCES));
      expect(requested.status, requested.text).toBe(202);
      const waiting = call('GET', `/dry-run/${requested.body.id}?timeout=30`);
      // Every attempt's worker dies mid-job; after the last lease runs out the queue gives the job up.
      await abandonNextJob(server(), db(), 3);
      await runJobs();
      const answer = await waiting;
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ status: 'FAILED', plan: [], errors: [{ code: 'dry_run.error', location: 'query.command' }] });
      expect(answer.body.errors[0].message).toMatch(/abandoned/);
    });

    describe('waiting for the result', () => {
      const requestKill = async () => {
        const account = await addAccount();
        const { fid } = await createProcess(account.name);
        const requested = await call('POST', `/dry-run?command=KILL&process=${fid}`);
        expect(requested.status).toBe(202);
        return requested.body.id as string;
      };

      /**
       * Records every wait of the dry-runs' waiter: the timeout asked for, and what ended it (its promise resolves
       * with `notified`, `found`, `timed-out` or `closed`).
       */
      const recordWaits = () => {
        const wait = jest.spyOn(CompletionWaiter.prototype, 'wait');
        return {
          wait,
          /** What ended each wait so far, in the order they began. */
          ends: () => Promise.all(wait.mock.results.map((result) => result.value as Promise<WaitEnd>)),
          restore: () => wait.mockRestore(),
        };
      };

      it('answers at once without timeout, and at the timeout when the result is not ready', async () => {
        const id = await requestKill();
        const waits = recordWaits();
        try {
          expect((await call('GET', `/dry-run/${id}`)).body).toMatchObject({ status: 'PENDING', finished_at: null, plan: [] });
          expect(waits.wait).not.toHaveBeenCalled();
          const waited = await call('GET', `/dry-run/${id}?timeout=1`);
          expect(waited.body.status).toBe('PENDING');
          // The answer came when the waiter's own timer for the second asked for ran out, not on a result.
          expect(waits.wait.mock.calls).toEqual([[id, 1_000]]);
          expect(await waits.ends()).toEqual(['timed-out']);
        } finally {
          waits.restore();
        }
      });

      it('accepts any timeout of 0 or more and waits at most 60 seconds', async () => {
        const wait = jest.spyOn(CompletionWaiter.prototype, 'wait');
        try {
          for (const timeout of [61, 3600, Number.MAX_SAFE_INTEGER]) {
            const id = await requestKill();
            const waiting = call('GET', `/dry-run/${id}?timeout=${timeout}`);
            await eventually(() => expect(wait).toHaveBeenCalledTimes(1));
            await runJobs();
            const answer = await waiting;
            expect(answer.status, answer.text).toBe(200);
            expect(answer.body.status).toBe('SUCCEEDED');
            expect(wait).toHaveBeenCalledWith(id, 60_000);
            wait.mockClear();
          }
        } finally {
          wait.mockRestore();
        }
      });

      it('answers as soon as the result is ready, for every client waiting', async () => {
        const id = await requestKill();
        // The poll for results of other server processes finds nothing here: only the job's own notice can wake them.
        const polled = jest.spyOn(KyselyDryRunRepository.prototype, 'finishedAmong').mockResolvedValue([]);
        const waits = recordWaits();
        try {
          const waiting = Array.from({ length: 50 }, () => call('GET', `/dry-run/${id}?timeout=30`));
          // Every request waits before the job runs.
          await eventually(() => expect(waits.wait).toHaveBeenCalledTimes(50), { timeout: 20_000 });
          await runJobs();
          const answers = await Promise.all(waiting);
          for (const answer of answers) expect(answer.body).toMatchObject({ status: 'SUCCEEDED', finished_at: server().clock.nowSeconds() });
          // Each waited for the 30 s asked for and was woken by the job's notice, none by its timeout.
          expect(waits.wait.mock.calls).toEqual(Array(50).fill([id, 30_000]));
          expect(await waits.ends()).toEqual(Array(50).fill('notified'));
        } finally {
          waits.restore();
          polled.mockRestore();
        }
      });

      it('sees a result another server process recorded in the database at the next poll', async () => {
        const id = await requestKill();
        const repository = new KyselyDryRunRepository(db().handle.db);
        // Every poll of the waiter, with whether it began after the result was recorded and what it found.
        const polls: Array<{ afterRecord: boolean; found: string[] }> = [];
        let recorded = false;
        const finishedAmong = KyselyDryRunRepository.prototype.finishedAmong;
        const polled = jest.spyOn(KyselyDryRunRepository.prototype, 'finishedAmong').mockImplementation(async function (this: KyselyDryRunRepository, ids) {
          const afterRecord = recorded;
          const found = await finishedAmong.call(this, ids);
          polls.push({ afterRecord, found });
          return found;
        });
        const waits = recordWaits();
        try {
          const waiting = call('GET', `/dry-run/${id}?timeout=20`);
          await eventually(() => expect(waits.wait).toHaveBeenCalledTimes(1));
          const stored = (await repository.get(id))!;
          // Another server process finishes the dry-run: nothing in this one is notified.
          await repository.update({ ...stored, status: 'SUCCEEDED', finishedAt: server().clock.nowSeconds() });
          recorded = true;
          const answer = await waiting;
          expect(answer.body.status).toBe('SUCCEEDED');
          // Found by a poll, not by the 20 s timeout; no poll that began after the record missed it (one under way
          // when it was recorded may have found it first).
          expect(await waits.ends()).toEqual(['found']);
          expect(polls.filter((poll) => poll.found.includes(id))).toHaveLength(1);
          expect(polls.filter((poll) => poll.afterRecord && !poll.found.includes(id))).toEqual([]);
        } finally {
          waits.restore();
          polled.mockRestore();
        }
      });
    });
  },
  'suite',
);
