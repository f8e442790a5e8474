import { beforeEach, describe, it, jest } from '@jest/globals';
import { sql } from 'kysely';
import { createEnvironment, runScan, type Body } from '../../test/compliance.js';
import { describeEachDatabase } from '../../test/databases.js';
import { expect } from '../../test/expect.js';
import { basic, useTestServer, type TestServer } from '../../test/server.js';
import { KyselyEnvironmentRepository } from '../storage/repositories/environments.js';
import { KyselyScanResultRepository } from '../storage/repositories/scan-results.js';
import { loadApiDocument, type ApiDocument } from './apis.js';
import { ConditionalAnswers, EdgeCache } from './edge-cache.js';
import type { AnyReply } from './registry.js';

/** The ETag the spec declares on the 200 of listEnvironments: every tag the server sends must match it. */
const ETAG_PATTERN = new RegExp(
  (
    (loadApiDocument('compliance').openapi.paths as Record<string, any>)['/environments'].get.responses['200'].headers.ETag.schema as { pattern: string }
  ).pattern,
);

/**
 * The edge cache (edge-cache.ts) through the whole app, with response validation on: every 200 and 304 below is
 * validated against the spec, kept or not.
 */
describeEachDatabase('the edge cache', (db) => {
  const testServer = useTestServer(db);
  let server: TestServer;
  let prod: Body;
  let staging: Body;
  beforeEach(async () => {
    server = testServer();
    prod = await createEnvironment(server, { name: 'prod' });
    staging = await createEnvironment(server, { name: 'staging' });
  });

  const get = (path: string, headers: Record<string, string> = {}, auth?: string) => server.request('GET', path, { headers, ...(auth && { auth }) });
  const tagOf = (answer: { headers: Headers }) => answer.headers.get('etag') ?? '';

  /** Puts the API client in a new group granting `policy` over `environments`. */
  async function group(clientId: string, environments: string[], policy = 'builtin:ORGANIZATION_REPORT_VIEWER'): Promise<void> {
    const created = await server.request('POST', '/v0/groups', {
      body: { name: `group ${Math.random()}`, policy, environment_ids: environments, api_client_ids: [clientId] },
    });
    expect(created.status, created.text).toBe(201);
  }

  /** A new API client of the test's organization in a group granting results over `environments`. */
  async function restrictedTo(environments: string[]): Promise<{ auth: string; clientId: string }> {
    const { client, secret } = await server.services.apiClients.createWithSecret(server.orgId, `restricted ${Math.random()}`);
    await group(client.clientId, environments);
    return { auth: basic(client.clientId, secret), clientId: client.clientId };
  }

  it('answers 304 with the ETag and no body to a tag that is current, or to *, and 200 with the body to any other', async () => {
    for (const path of ['/v0/environments', `/v0/environments/${prod.id}`]) {
      const first = await get(path);
      expect(first.status).toBe(200);
      const tag = tagOf(first);
      expect(tag).toMatch(ETAG_PATTERN);

      for (const sent of [tag, `"nope", ${tag}`, tag.slice(2), `  ${tag}  `, '*']) {
        const again = await get(path, { 'if-none-match': sent });
        expect({ sent, status: again.status, text: again.text, tag: tagOf(again) }).toEqual({ sent, status: 304, text: '', tag });
      }
      for (const sent of ['W/"stale"', '"stale", W/"other"', `${tag}x`, 'W/']) {
        const again = await get(path, { 'if-none-match': sent });
        expect({ sent, status: again.status, tag: tagOf(again) }).toEqual({ sent, status: 200, tag });
        expect(again.text).toBe(first.text);
      }
    }
  });

  it('writes a kept answer without making it again, byte for byte, until its version moves', async () => {
    const read = jest.spyOn(KyselyEnvironmentRepository.prototype, 'get');
    const list = jest.spyOn(KyselyEnvironmentRepository.prototype, 'list');
    try {
      const one = await get(`/v0/environments/${prod.id}`);
      const page = await get('/v0/environments?max_items=10');
      expect([read.mock.calls.length, list.mock.calls.length]).toEqual([1, 1]);
      for (let i = 0; i < 3; i += 1) {
        expect((await get(`/v0/environments/${prod.id}`)).text).toBe(one.text);
        expect((await get('/v0/environments?max_items=10')).text).toBe(page.text);
      }
      expect([read.mock.calls.length, list.mock.calls.length]).toEqual([1, 1]);
      // Another query is another answer.
      await get('/v0/environments?max_items=1');
      expect(list.mock.calls.length).toBe(2);
      // A write through the API moves the environment's version and the list's: both are made again.
      expect((await server.request('PATCH', `/v0/environments/${prod.id}`, { body: { name: 'prod-renamed' } })).status).toBe(200);
      expect((await get(`/v0/environments/${prod.id}`)).body.name).toBe('prod-renamed');
      expect((await get('/v0/environments?max_items=10')).body.items.map((e: Body) => e.name)).toEqual(['staging', 'prod-renamed']);
      expect([read.mock.calls.length, list.mock.calls.length]).toEqual([2, 3]);
    } finally {
      read.mockRestore();
      list.mockRestore();
    }
  });

  it('moves the tag at once when SQL beside the server writes, and answers what it wrote', async () => {
    const one = await get(`/v0/environments/${prod.id}`);
    const page = await get('/v0/environments');
    await sql`update environments set name = 'renamed by SQL' where id = ${prod.id}`.execute(db().handle.db);

    const oneAfter = await get(`/v0/environments/${prod.id}`, { 'if-none-match': tagOf(one) });
    expect(oneAfter.status).toBe(200);
    expect(tagOf(oneAfter)).not.toBe(tagOf(one));
    expect(oneAfter.body.name).toBe('renamed by SQL');
    const pageAfter = await get('/v0/environments', { 'if-none-match': tagOf(page) });
    expect(pageAfter.status).toBe(200);
    expect(tagOf(pageAfter)).not.toBe(tagOf(page));
    expect(pageAfter.body.items.map((e: Body) => e.name)).toContain('renamed by SQL');
    // The new tag is current until the next write.
    expect((await get(`/v0/environments/${prod.id}`, { 'if-none-match': tagOf(oneAfter) })).status).toBe(304);

    await sql`delete from environments where id = ${prod.id}`.execute(db().handle.db);
    expect((await get(`/v0/environments/${prod.id}`, { 'if-none-match': '*' })).status).toBe(404);
    const pageGone = await get('/v0/environments', { 'if-none-match': tagOf(pageAfter) });
    expect(pageGone.status).toBe(200);
    expect(pageGone.body.items.map((e: Body) => e.id)).toEqual([staging.id]);
  });

  it('gives a caller restricted by groups its own tags and bodies, and never a 304 for what it may not see', async () => {
    const { auth: restricted } = await restrictedTo([prod.id]);
    const everything = await get('/v0/environments');
    const covered = await get('/v0/environments', {}, restricted);
    expect(everything.body.items.map((e: Body) => e.name)).toEqual(['staging', 'prod']);
    expect(covered.body.items.map((e: Body) => e.name)).toEqual(['prod']);
    expect(tagOf(covered)).not.toBe(tagOf(everything));
    // Each tag names its own view only: the other caller's tag is stale to it, and each is answered its own body.
    const crossed = await get('/v0/environments', { 'if-none-match': tagOf(everything) }, restricted);
    expect({ status: crossed.status, text: crossed.text }).toEqual({ status: 200, text: covered.text });
    const back = await get('/v0/environments', { 'if-none-match': tagOf(covered) });
    expect({ status: back.status, text: back.text }).toEqual({ status: 200, text: everything.text });
    expect((await get('/v0/environments', { 'if-none-match': tagOf(covered) }, restricted)).status).toBe(304);

    // One environment: the same body, another tag.
    const one = await get(`/v0/environments/${prod.id}`);
    const oneRestricted = await get(`/v0/environments/${prod.id}`, {}, restricted);
    expect(oneRestricted.text).toBe(one.text);
    expect(tagOf(oneRestricted)).not.toBe(tagOf(one));

    // Access is checked before the cache: an environment the groups do not cover is a 403, whatever tag is sent.
    const other = await get(`/v0/environments/${staging.id}`);
    for (const sent of [tagOf(other), '*']) {
      const refused = await get(`/v0/environments/${staging.id}`, { 'if-none-match': sent }, restricted);
      expect({ status: refused.status, type: refused.body?.type }).toEqual({ status: 403, type: 'EnvironmentAccessDenied' });
    }
    // Nor does anything kept reach a caller without credentials.
    expect((await server.request('GET', `/v0/environments/${prod.id}`, { auth: null, headers: { 'if-none-match': tagOf(one) } })).status).toBe(401);
  });

  it('moves a restricted caller\'s tags when its groups change, at once in this process', async () => {
    const { auth, clientId } = await restrictedTo([prod.id]);
    const before = await get('/v0/environments', {}, auth);
    expect((await get('/v0/environments', { 'if-none-match': tagOf(before) }, auth)).status).toBe(304);
    await group(clientId, [staging.id]);
    const after = await get('/v0/environments', { 'if-none-match': tagOf(before) }, auth);
    expect(after.status).toBe(200);
    expect(after.body.items.map((e: Body) => e.name)).toEqual(['staging', 'prod']);
    // Covering every environment, it sees what the whole organization sees: the same answer, the same tag.
    await group(clientId, ['*']);
    expect(tagOf(await get('/v0/environments', {}, auth))).toBe(tagOf(await get('/v0/environments')));
  });

  it('keys the answers of a scan by its environment\'s version: a finished scan\'s results stay kept, and every write of the scan moves them', async () => {
    const scan = await runScan(server, prod.id);
    const read = jest.spyOn(KyselyScanResultRepository.prototype, 'ruleResults');
    try {
      for (const suffix of ['', '/compliance_by_rules?max_items=3', '/compliance_by_resource_types?max_items=2']) {
        const path = `/v0/scans/${scan.id}${suffix}`;
        const first = await get(path);
        expect(first.status, first.text).toBe(200);
        expect(tagOf(first)).toMatch(ETAG_PATTERN);
        const again = await get(path, { 'if-none-match': tagOf(first) });
        expect({ path, status: again.status, text: again.text }).toEqual({ path, status: 304, text: '' });
        expect((await get(path)).text).toBe(first.text);
      }
      // The two result pages, made once each.
      expect(read).toHaveBeenCalledTimes(2);
      const tag = tagOf(await get(`/v0/scans/${scan.id}`));
      await sql`update scans set message = 'written beside the server' where id = ${scan.id}`.execute(db().handle.db);
      const changed = await get(`/v0/scans/${scan.id}`, { 'if-none-match': tag });
      expect({ status: changed.status, message: changed.body.message }).toEqual({ status: 200, message: 'written beside the server' });
      expect(tagOf(changed)).not.toBe(tag);
    } finally {
      read.mockRestore();
    }
  });

  it('answers a scan in progress, and its empty pages, by the version every write of the scan moves', async () => {
    const started = await server.request('POST', `/v0/scans?environment_id=${prod.id}`);
    expect(started.status).toBe(201);
    const running = await get(`/v0/scans/${started.body.id}`);
    const page = await get(`/v0/scans/${started.body.id}/compliance_by_rules`);
    expect([running.body.status, page.body.count]).toEqual(['IN_PROGRESS', 0]);
    expect((await get(`/v0/scans/${started.body.id}`, { 'if-none-match': tagOf(running) })).status).toBe(304);
    while (await server.services.jobs.runOnce());
    const finished = await get(`/v0/scans/${started.body.id}`, { 'if-none-match': tagOf(running) });
    expect({ status: finished.status, scan: finished.body.status }).toEqual({ status: 200, scan: 'SUCCESS' });
    const results = await get(`/v0/scans/${started.body.id}/compliance_by_rules`, { 'if-none-match': tagOf(page) });
    expect(results.status).toBe(200);
    expect(results.body.count).toBeGreaterThan(0);
  });

  it('answers what the operation answers without a version to key by, and refusals as they are, whatever If-None-Match says', async () => {
    const unknown = '00000000-0000-4000-8000-000000000000';
    for (const path of [`/v0/environments/${unknown}`, `/v0/scans/${unknown}`, `/v0/scans/${unknown}/compliance_by_rules`]) {
      const answer = await get(path, { 'if-none-match': '*' });
      expect({ path, status: answer.status, etag: answer.headers.get('etag') }).toEqual({ path, status: 404, etag: null });
    }
    // A query the handler refuses is refused, not answered 304.
    const refused = await get('/v0/environments?query=not-json', { 'if-none-match': '*' });
    expect(refused.status).toBe(400);
  });
}, 'suite');

describe('the edge cache, bound to an API', () => {
  const compliance = loadApiDocument('compliance');
  const cache = new EdgeCache({ validating: false });
  const versions = (names: string[]) => ({ versions: Object.fromEntries(names.map((name) => [name, async () => 1])), view: () => '' });
  const conditional = ['listEnvironments', 'getEnvironment', 'getScan', 'getComplianceByRules', 'getComplianceByResourceTypes'];

  it('refuses to start when an operation that declares 304 has no version reader, a reader has no such operation, or its 200 fixes headers', () => {
    expect(ConditionalAnswers.bind(compliance, cache, versions(conditional)).has('getEnvironment')).toBe(true);
    expect(() => ConditionalAnswers.bind(compliance, cache, versions(conditional.slice(1)))).toThrow(/listEnvironments declares 304 but has no version reader/);
    expect(() => ConditionalAnswers.bind(compliance, cache, versions([...conditional, 'createEnvironment']))).toThrow(
      /version reader createEnvironment matches no operation of the compliance spec that declares 304/,
    );
    const fixing: ApiDocument = {
      ...compliance,
      operations: compliance.operations.map((operation) =>
        operation.operationId === 'getScan' ? { ...operation, fixedResponseHeaders: { 200: { 'Cache-Control': 'no-store' } } } : operation,
      ),
    };
    expect(() => ConditionalAnswers.bind(fixing, cache, versions(conditional))).toThrow(/getScan declares 304 and fixes headers of its 200/);
    const none: ApiDocument = { ...compliance, operations: compliance.operations.filter((operation) => !operation.statuses.includes('304')) };
    expect(ConditionalAnswers.bind(none, cache, undefined).has('getEnvironment')).toBe(false);
  });
});

describe('the edge cache, by itself', () => {
  /** What the cache writes: status, headers and bytes, on a response that keeps them. */
  const answered = () => {
    const written = { statusCode: 0, headers: {} as Record<string, string>, body: undefined as Buffer | undefined };
    const res = {
      set statusCode(status: number) {
        written.statusCode = status;
      },
      setHeader: (name: string, value: string) => (written.headers[name.toLowerCase()] = value),
      end: (body?: Buffer) => (written.body = body),
    };
    return { res, written };
  };
  let made = 0;
  const handler = (text: string, status = 200) => async (): Promise<AnyReply> => {
    made += 1;
    return { status, body: { text } };
  };
  const ask = async (cache: EdgeCache, key: string, version: number, text: string, ifNoneMatch?: string, status = 200) => {
    const { res, written } = answered();
    const req = { headers: ifNoneMatch === undefined ? {} : { 'if-none-match': ifNoneMatch } };
    const reply = await cache.answer(req as never, res as never, 'salt', key, version, handler(text, status), {} as never, undefined);
    return { ...written, reply, text: written.body?.toString() };
  };

  beforeEach(() => {
    made = 0;
  });

  it('writes what it kept at a version, with its tag, until the version moves', async () => {
    const cache = new EdgeCache({ validating: false });
    const first = await ask(cache, 'k', 1, 'one');
    expect(first).toMatchObject({ statusCode: 200, text: '{"text":"one"}', headers: { 'content-type': 'application/json; charset=utf-8', 'content-length': '14' } });
    expect(first.headers.etag).toMatch(ETAG_PATTERN);
    expect(await ask(cache, 'k', 1, 'two')).toMatchObject({ statusCode: 200, text: '{"text":"one"}', headers: { etag: first.headers.etag } });
    expect(made).toBe(1);
    const moved = await ask(cache, 'k', 2, 'two');
    expect(moved).toMatchObject({ statusCode: 200, text: '{"text":"two"}' });
    expect(moved.headers.etag).not.toBe(first.headers.etag);
    // The same key and version make the same tag in every cache (every process), and another salt another one.
    expect((await ask(new EdgeCache({ validating: false }), 'k', 2, 'two')).headers.etag).toBe(moved.headers.etag);
    const other = answered();
    await new EdgeCache({ validating: false }).answer({ headers: {} } as never, other.res as never, 'another salt', 'k', 2, handler('two'), {} as never, undefined);
    expect(other.written.headers.etag).toMatch(ETAG_PATTERN);
    expect(other.written.headers.etag).not.toBe(moved.headers.etag);
  });

  it.each([
    ['the tag', 304, (tag: string) => tag],
    ['its opaque part', 304, (tag: string) => tag.slice(2)],
    ['the tag among others, with or without commas', 304, (tag: string) => `"a", W/"b" ${tag}`],
    ['*', 304, () => '*'],
    ['another tag', 200, () => 'W/"other"'],
    ['the tag cut short', 200, (tag: string) => tag.slice(0, -2) + '"'],
    ['the tag and more in one', 200, (tag: string) => `${tag}${tag}`],
    ['*, among tags', 200, () => '"a", *'],
  ])('answers If-None-Match naming %s with %i', async (_what, status, header) => {
    const cache = new EdgeCache({ validating: false });
    const { headers } = await ask(cache, 'k', 1, 'one');
    const answer = await ask(cache, 'k', 1, 'one', header(headers.etag!));
    expect({ status: answer.statusCode, etag: answer.headers.etag }).toEqual({ status, etag: headers.etag });
    expect(answer.text).toBe(status === 304 ? undefined : '{"text":"one"}');
  });

  it('hands back what it does not keep, and keeps nothing of it', async () => {
    const cache = new EdgeCache({ validating: false });
    const refused = await ask(cache, 'k', 1, 'gone', undefined, 404);
    expect(refused.reply).toEqual({ status: 404, body: { text: 'gone' } });
    expect(refused.statusCode).toBe(0);
    expect(cache.size.answers).toBe(0);
  });

  it('keeps answers up to its bound, the least recently used going first, and none over a quarter of it', async () => {
    const cache = new EdgeCache({ maxBytes: 8 * 1024, validating: false });
    const text = 'x'.repeat(1000);
    for (const key of ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h']) await ask(cache, key, 1, text);
    expect(cache.size.bytes).toBeLessThanOrEqual(8 * 1024);
    expect(cache.size.answers).toBeLessThan(8);
    made = 0;
    await ask(cache, 'h', 1, text);
    expect(made).toBe(0);
    await ask(cache, 'a', 1, text);
    expect(made).toBe(1);
    // An answer over 2 KB is written, never kept.
    const large = 'y'.repeat(3000);
    for (let i = 0; i < 2; i += 1) expect((await ask(cache, 'large', 1, large)).text).toBe(JSON.stringify({ text: large }));
    expect(made).toBe(3);
  });
});
