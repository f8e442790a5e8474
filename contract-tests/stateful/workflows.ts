
import type { ApiName } from '../../server/src/http/apis.js';
import type { TestServer } from '../../server/test/server.js';
import { nextAccount as nextConductorAccount, compositionTar } from '../../server/test/conductor.js';
import type { ChainContext } from './chain.js';
import type { CallInput, Exchange } from './http.js';
import { environmentBody, exampleResources } from './resources.js';
import { expect } from '../../server/test/expect.js';

/**
 * Declared workflows across resources: each step calls the API (or, for what happens outside it, the simulated
 * cloud), then checks the status and body of its answer and reads back the state it changed.
 */
export interface WorkflowContext extends ChainContext {
  /** The running server: its job runner and simulated cloud stand in for time passing and people changing the cloud. */
  server: TestServer;
}

/** One named step: failures say which step of which workflow broke. */
async function step<T>(workflow: string, name: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (error instanceof Error) error.message = `${workflow} › ${name}: ${error.message}`;
    throw error;
  }
}

const expectStatus = (answer: Exchange, status: number) => expect(answer.status, answer.text.slice(0, 500)).toBe(status);

/** Every item of a compliance list, page after page, following next_offset. */
async function allPages(ctx: ChainContext, api: ApiName, operationId: string, input: CallInput, pageSize = 50): Promise<any[]> {
  const items: any[] = [];
  let offset = 0;
  for (let page = 0; page < 200; page += 1) {
    const answer = await ctx.client.call(api, operationId, { ...input, query: { ...input.query, max_items: pageSize, offset } });
    expectStatus(answer, 200);
    items.push(...answer.body.items);
    if (answer.body.next_offset === null || answer.body.next_offset === undefined) {
      expect(answer.body.is_truncated).toBe(false);
      return items;
    }
    expect(answer.body.next_offset).toBe(offset + answer.body.items.length);
    offset = answer.body.next_offset;
  }
  throw new Error(`${operationId} never ended`);
}

const SURVEYED = ['PROVA.S3.Bucket', 'PROVA.EC2.SecurityGroup'];
const bucket = (name: string, properties: Record<string, unknown>) => ({ type: 'PROVA.S3.Bucket', name, region: null, tags: { owner: 'web' }, properties });

/**
 * The scan lifecycle: create an environment → scan → wait for SUCCESS → results by rules and by resource types →
 * set the baseline → drift in the simulated cloud (one bucket modified, one removed, one added) → next scan →
 * DRIFT events for exactly those → remediation on → next scan → REMEDIATION events, the cloud back at the
 * baseline → a last scan sees no drift. The server runs with random drift off, so these are the only changes.
 */
export async function scanLifecycle(ctx: WorkflowContext): Promise<void> {
  const run = <T>(name: string, fn: () => Promise<T>) => step('scan lifecycle', name, fn);
  const call = ctx.client.call.bind(ctx.client);
  const cloud = ctx.server.services.cloud;

  const environment = await run('create the environment', async () => {
    const body = { ...environmentBody(`lifecycle ${ctx.unique()}`), compliance_families: ['CIS', 'NIST'], survey_resource_types: SURVEYED };
    const created = await call('compliance', 'createEnvironment', { body });
    expectStatus(created, 201);
    expect(created.body).toMatchObject({ ...body, baseline_id: null, drift: false, remediation: false, scan_status: null });
    return created.body;
  });
  const account: string = environment.provider_options.provider_a.role_arn.split(':')[4];

  // Buckets of our own in the account, known by name: one made public so the results name it.
  const [kept, exposed, doomed] = await run('place buckets in the simulated cloud', async () => {
    const made = [];
    for (const spec of [
      bucket(`kept-${ctx.unique()}`, { acl_grants_public: false, policy_allows_public: false, versioning: 'Enabled' }),
      bucket(`exposed-${ctx.unique()}`, { acl_grants_public: true }),
      bucket(`doomed-${ctx.unique()}`, { acl_grants_public: false }),
    ]) {
      const outcome = await cloud.createResource('provider_a', account, spec);
      if (!outcome.ok) throw new Error(outcome.message);
      made.push(outcome.document);
    }
    return made as [(typeof made)[0], (typeof made)[0], (typeof made)[0]];
  });

  /** Starts a scan, checks it IN_PROGRESS, runs jobs one at a time until the scan reads SUCCESS. */
  const scan = (name: string) =>
    run(name, async () => {
      // Time passes between scans, so that each starts in a second of its own and lists in order.
      ctx.server.clock.advanceSeconds(600);
      const started = await call('compliance', 'createScan', { query: { environment_id: environment.id } });
      expectStatus(started, 201);
      expect(started.body).toMatchObject({ environment_id: environment.id, status: 'IN_PROGRESS', finished_at: null });
      const during = await call('compliance', 'getEnvironment', { path: { environment_id: environment.id } });
      expectStatus(during, 200);
      expect(during.body.scan_status).toBe('IN_PROGRESS');
      let current = started;
      for (let attempt = 0; attempt < 20 && current.body.status === 'IN_PROGRESS'; attempt += 1) {
        await ctx.server.services.jobs.runOnce();
        current = await call('compliance', 'getScan', { path: { scan_id: started.body.id } });
        expectStatus(current, 200);
      }
      expect(current.body).toMatchObject({ id: started.body.id, status: 'SUCCESS', message: null });
      // The notifications and other work the scan queued run too.
      await ctx.settle();
      const after = await call('compliance', 'getEnvironment', { path: { environment_id: environment.id } });
      expect(after.body).toMatchObject({ scan_status: 'SUCCESS', last_scan_at: started.body.created_at });
      return current.body;
    });

  const first = await scan('first scan');
  await run('results of the first scan: summary', async () => {
    const summary = first.resource_summary;
    expect(summary.total).toBeGreaterThan(3);
    expect(summary.compliant + summary.noncompliant).toBe(summary.total);
    expect(summary.families.map((f: any) => f.family)).toEqual(['CIS', 'NIST']);
    expect(first.resource_type_errors).toEqual([]);
  });

  await run('results by rules', async () => {
    const items = await allPages(ctx, 'compliance', 'getComplianceByRules', { path: { scan_id: first.id } });
    expect(new Set(items.map((i) => i.family))).toEqual(new Set(['CIS', 'NIST']));
    for (const item of items) {
      if (item.result === 'FAIL') expect(item.failed_resource_count).toBeGreaterThan(0);
      if (item.result === 'PASS') expect(item.failed_resource_count).toBe(0);
    }
    // The bucket made public fails the rule against public buckets, under every family that maps it.
    const notPublic = items.filter((i) => i.rule_id === 'prova-s3-bucket-not-public');
    expect(notPublic.length).toBeGreaterThan(0);
    for (const item of notPublic) {
      expect(item.result).toBe('FAIL');
      expect(item.failed_resources.map((f: any) => f.resource.resource_id)).toContain(exposed.id);
    }
    const failedRules = new Set(items.filter((i) => i.result === 'FAIL').map((i) => i.rule_id));
    const passedRules = new Set(items.filter((i) => i.result === 'PASS').map((i) => i.rule_id));
    expect(failedRules.size).toBe(first.resource_summary.rules_failed);
    expect(passedRules.size).toBe(first.resource_summary.rules_passed);
  });

  await run('results by resource types', async () => {
    const items = await allPages(ctx, 'compliance', 'getComplianceByResourceTypes', { path: { scan_id: first.id } });
    expect(items.map((i) => i.resource_type).sort()).toEqual([...SURVEYED].sort());
    expect(items.reduce((n, i) => n + i.total, 0)).toBe(first.resource_summary.total);
    for (const item of items) expect(item.compliant + item.noncompliant_count).toBe(item.total);
    const buckets = await call('compliance', 'getComplianceByResourceTypes', {
      path: { scan_id: first.id },
      query: { resource_type: 'PROVA.S3.Bucket', max_items: 1 },
    });
    expectStatus(buckets, 200);
    expect(buckets.body.items).toHaveLength(1);
    const noncompliant = buckets.body.items[0].noncompliant.map((r: any) => r.resource_id);
    expect(noncompliant).toContain(exposed.id);
  });

  await run('set the baseline', async () => {
    const patched = await call('compliance', 'updateEnvironment', { path: { environment_id: environment.id }, body: { baseline_id: first.id } });
    expectStatus(patched, 200);
    expect(patched.body).toMatchObject({ baseline_id: first.id, drift: true, remediation: false });
    const read = await call('compliance', 'getEnvironment', { path: { environment_id: environment.id } });
    expect(read.body).toMatchObject({ baseline_id: first.id, drift: true });
  });

  const added = await run('drift in the simulated cloud', async () => {
    expect(await cloud.driftResource('provider_a', account, kept.id, { versioning: 'Suspended' })).toBeDefined();
    expect(await cloud.deleteResource('provider_a', account, doomed.id)).toEqual({ ok: true });
    const outcome = await cloud.createResource('provider_a', account, bucket(`stray-${ctx.unique()}`, { acl_grants_public: false }));
    if (!outcome.ok) throw new Error(outcome.message);
    return outcome.document;
  });
  const expectedDrift = [
    [kept.id, 'MODIFIED'],
    [doomed.id, 'REMOVED'],
    [added.id, 'ADDED'],
  ].sort();

  const events = async (query: Record<string, string>) => allPages(ctx, 'compliance', 'listEvents', { query: { environment_id: environment.id, ...query } });
  const driftOf = (items: any[], scanId: string) => items.filter((e) => e.scan_id === scanId).map((e) => [e.resource_diff.resource_id, e.resource_diff.change]).sort();

  const second = await scan('scan after the drift');
  await run('DRIFT events name exactly what changed', async () => {
    expect(second.remediation_error).toBe(false);
    const drift = await events({ event_type: 'DRIFT' });
    expect(drift.every((e) => e.event_type === 'DRIFT' && e.environment_id === environment.id)).toBe(true);
    expect(driftOf(drift, second.id)).toEqual(expectedDrift);
    const modified = drift.find((e) => e.scan_id === second.id && e.resource_diff.change === 'MODIFIED');
    expect(modified.resource_diff.attributes).toContainEqual(expect.objectContaining({ name: expect.stringContaining('versioning'), old: 'Enabled', new: 'Suspended' }));
    // Remediation is off: nothing was reverted.
    expect(await events({ event_type: 'REMEDIATION' })).toEqual([]);
    expect((await cloud.getResource('provider_a', account, doomed.id))).toBeUndefined();
  });

  await run('turn remediation on', async () => {
    const patched = await call('compliance', 'updateEnvironment', { path: { environment_id: environment.id }, body: { remediation: true } });
    expectStatus(patched, 200);
    expect(patched.body).toMatchObject({ baseline_id: first.id, remediation: true });
  });

  const third = await scan('scan with remediation on');
  await run('REMEDIATION events, and the cloud back at the baseline', async () => {
    expect(third.remediation_error).toBe(false);
    // Still drifted from the baseline when the scan listed them: DRIFT again, each reverted.
    expect(driftOf(await events({ event_type: 'DRIFT' }), third.id)).toEqual(expectedDrift);
    const remediation = await events({ event_type: 'REMEDIATION' });
    expect(driftOf(remediation, third.id)).toEqual(expectedDrift);
    for (const event of remediation) expect(event).toMatchObject({ scan_id: third.id, remediated: true, error: null });
    expect((await cloud.getResource('provider_a', account, kept.id))?.properties.versioning).toBe('Enabled');
    expect(await cloud.getResource('provider_a', account, doomed.id)).toBeDefined();
    expect(await cloud.getResource('provider_a', account, added.id)).toBeUndefined();
  });

  const fourth = await scan('scan after remediation');
  await run('no drift is left', async () => {
    expect(driftOf(await events({ event_type: 'DRIFT' }), fourth.id)).toEqual([]);
    const scans = await allPages(ctx, 'compliance', 'listScans', { query: { environment_id: environment.id } });
    expect(scans.map((s) => s.id)).toEqual([fourth.id, third.id, second.id, first.id]);
    expect(scans.every((s) => s.status === 'SUCCESS')).toBe(true);
  });
}

/**
 * The process lifecycle: create a process from a composition → lock → a state change answers 409 → unlock →
 * suspend → resume → kill; state and history are read after each step, the jobs' ops after those that run one.
 */
export async function processLifecycle(ctx: WorkflowContext): Promise<void> {
  const run = <T>(name: string, fn: () => Promise<T>) => step('process lifecycle', name, fn);
  const call = ctx.client.call.bind(ctx.client);
  const events: string[] = [];
  let fid = '';

  const { name: accountName, accountId } = nextConductorAccount();
  await run('add the account', async () => {
    const added = await call('conductor', 'addAccount', { body: { name: accountName, provider: 'provider_a', account_id: accountId } });
    expectStatus(added, 201);
    expect(added.headers.get('location')).toBe(`/api/v0/accounts/${accountName}`);
  });

  const read = async () => {
    const got = await call('conductor', 'getProcess', { path: { process: fid } });
    expectStatus(got, 200);
    return got.body;
  };
  const history = async () => {
    const got = await call('conductor', 'getProcessHistory', { path: { process: fid } });
    expectStatus(got, 200);
    expect(got.body.count).toBe(got.body.items.length);
    return got.body.items as any[];
  };
  /** The history has grown by exactly `event`; answers the new entry. */
  const recorded = async (event: string) => {
    events.push(event);
    const items = await history();
    expect(items.map((h) => h.event)).toEqual(events);
    return items.at(-1);
  };
  const ops = async (transaction: string) => {
    const got = await call('conductor', 'listProcessJobOps', { path: { process: fid, job_id: transaction } });
    expectStatus(got, 200);
    return got.body.items as any[];
  };

  const alias = `lifecycle-${ctx.unique()}`;
  const resources = exampleResources() as Array<{ name: string }>;
  await run('create the process', async () => {
    const created = await call('conductor', 'createProcess', { query: { account: accountName, alias }, body: await compositionTar(resources) });
    expectStatus(created, 201);
    fid = created.body.fid;
    expect(created.headers.get('location')).toBe(`/api/v0/processes/${fid}`);
    expect(created.body).toMatchObject({ alias, account: accountName, state: 'RUNNING', enforcement: true, lock: false });
    expect(created.body.resources.map((r: any) => [r.name, r.status])).toEqual(resources.map((r) => [r.name, 'pending']));
    const entry = await recorded('created');
    expect(entry).toMatchObject({ event: 'created', actor: 'root', job_id: expect.any(String) });
    await ctx.settle();
    const process = await read();
    expect(process).toMatchObject({ fid, state: 'RUNNING', composition_digest: created.body.composition_digest });
    expect(process.resources.map((r: any) => [r.name, r.status])).toEqual(resources.map((r) => [r.name, 'present']));
    expect((await ops(entry.job_id)).map((o) => [o.operation, o.resource_name, o.status])).toEqual(resources.map((r) => ['create', r.name, 'succeeded']));
  });

  /** A PATCH that is accepted (202, Location of its transaction's ops), then the process and its history read back. */
  const patch = async (body: Record<string, unknown>, shows: Record<string, unknown>, event: string) => {
    const answer = await call('conductor', 'updateProcess', { path: { process: fid }, body });
    expectStatus(answer, 202);
    expect(answer.body).toMatchObject({ fid, ...shows });
    expect(answer.headers.get('location')).toBe(`/api/v0/processes/${fid}/ops/${answer.body.transaction_id}`);
    expect(await read()).toMatchObject(shows);
    const entry = await recorded(event);
    expect(entry.id === answer.body.transaction_id || entry.job_id === answer.body.transaction_id).toBe(true);
    return answer.body;
  };

  await run('lock', () => patch({ lock: true }, { lock: true, state: 'RUNNING' }, 'lock_changed'));

  await run('a state change while locked answers 409, and changes nothing', async () => {
    for (const action of ['suspend', 'kill']) {
      const refused = await call('conductor', 'updateProcess', { path: { process: fid }, body: { action } });
      expectStatus(refused, 409);
      expect(refused.body).toMatchObject({ code: 409, errors: [expect.objectContaining({ code: 'process.locked', location: 'body.action' })] });
    }
    const killRefused = await call('conductor', 'deleteProcess', { path: { process: fid }, query: { kill: true } });
    expectStatus(killRefused, 409);
    expect(await read()).toMatchObject({ state: 'RUNNING', lock: true });
    expect((await history()).map((h) => h.event)).toEqual(events);
  });

  await run('unlock', () => patch({ lock: false }, { lock: false, state: 'RUNNING' }, 'lock_changed'));

  await run('suspend', async () => {
    const suspended = await patch({ action: 'suspend' }, { state: 'SUSPENDED', lock: false }, 'suspended');
    // A change that starts no job: its ops list is empty.
    expect(await ops(suspended.transaction_id)).toEqual([]);
    const listed = await call('conductor', 'listProcesses', { query: { account: accountName } });
    expectStatus(listed, 200);
    expect(listed.body.items).toContainEqual(expect.objectContaining({ fid, state: 'SUSPENDED' }));
  });

  await run('resume', () => patch({ action: 'resume' }, { state: 'RUNNING' }, 'resumed'));

  await run('kill', async () => {
    const before = await read();
    const killing = await patch({ action: 'kill' }, { state: 'KILLING', alias }, 'kill_requested');
    const job = killing.transaction_id as string;
    await ctx.settle();
    const killed = await read();
    expect(killed).toMatchObject({ fid, state: 'KILLED', alias: null });
    expect(killed.resources.map((r: any) => r.status)).toEqual(resources.map(() => 'deleted'));
    events.push('killed');
    expect((await history()).slice(-2).map((h) => [h.event, h.job_id])).toEqual([
      ['kill_requested', job],
      ['killed', job],
    ]);
    expect((await ops(job)).map((o) => [o.operation, o.resource_name, o.status])).toEqual(resources.map((r) => ['delete', r.name, 'succeeded']));
    for (const r of before.resources) expect(await ctx.server.services.cloud.getResource('provider_a', accountId, r.resource_id)).toBeUndefined();
    // A killed process takes no more transitions, and is no longer listed as running for its account.
    const resumed = await call('conductor', 'updateProcess', { path: { process: fid }, body: { action: 'resume' } });
    expectStatus(resumed, 409);
    const listed = await call('conductor', 'listProcesses', { query: { account: accountName } });
    expectStatus(listed, 200);
    expect(listed.body.items.map((p: any) => p.fid)).not.toContain(fid);
  });

  await run('release the killed process, then remove the account', async () => {
    const released = await call('conductor', 'deleteProcess', { path: { process: fid } });
    expectStatus(released, 200);
    expect(released.body).toEqual({ fid, status: 'Released' });
    expectStatus(await call('conductor', 'getProcess', { path: { process: fid } }), 404);
    expectStatus(await call('conductor', 'getProcessHistory', { path: { process: fid } }), 404);
    const removed = await call('conductor', 'removeAccount', { path: { account: accountName } });
    expectStatus(removed, 200);
  });
}
