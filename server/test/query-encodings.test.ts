import { execFile, execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, it } from '@jest/globals';
import { PROJECT_ROOT } from '../src/paths.js';
import { conductorClient } from './conductor.js';
import { createEnvironment, customRuleBody } from './compliance.js';
import { describeEachDatabase } from './databases.js';
import { filesTar } from './fixtures/archives.js';
import { useTestServer, type TestServer } from './server.js';
import { expect } from './expect.js';

const run = promisify(execFile);

/** A query as name/value pairs, in order; values as the user means them, before any encoding. */
type Pairs = Array<[string, string]>;

/** Every character but RFC 3986's unreserved ones percent-encoded (encodeURIComponent leaves `!'()*` alone). */
const strictlyEncoded = (pairs: Pairs) =>
  pairs
    .map(([name, value]) => `${name}=${encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}`)
    .join('&');

/** What Python's `urllib.parse.urlencode` makes of each query (`+` for a space, `/`, `:`, `@`… percent-encoded). */
function pythonUrlencoded(queries: Pairs[]): string[] {
  const script = 'import json, sys\nfrom urllib.parse import urlencode\nprint(json.dumps([urlencode([tuple(p) for p in q]) for q in json.load(sys.stdin)]))';
  return JSON.parse(execFileSync('python3', ['-c', script], { input: JSON.stringify(queries), encoding: 'utf8' })) as string[];
}

/** What a literal URL on curl's command line holds: reserved characters as typed, `+` for a space (curl refuses a raw one). */
const curlLiteral = (pairs: Pairs) => pairs.map(([name, value]) => `${name}=${value.replace(/ /g, '+')}`).join('&');

interface Answer {
  status: number;
  body: unknown;
}

async function viaFetch(server: TestServer, path: string, auth: string): Promise<Answer> {
  const res = await server.request('GET', path, { auth });
  return { status: res.status, body: res.body };
}

/** Sends the URL exactly as curl does with `--globoff` (no `[]{}` globbing), and nothing re-encodes it on the way. */
async function viaCurl(server: TestServer, path: string, auth: string): Promise<Answer> {
  const { stdout } = await run('curl', ['--globoff', '--silent', '--show-error', '-H', `authorization: ${auth}`, '-w', '\n%{http_code}', `${server.baseUrl}${path}`]);
  const cut = stdout.lastIndexOf('\n');
  const text = stdout.slice(0, cut);
  return { status: Number(stdout.slice(cut + 1)), body: text ? JSON.parse(text) : undefined };
}

/**
 * Sends each query to `path` strictly percent-encoded, as `urlencode`, as `URLSearchParams` and as curl's literal
 * URL, and expects the last three to get the first one's answer. Returns the strictly encoded answers.
 */
async function expectSameAnswerEachWay(server: TestServer, path: string, auth: string, queries: Pairs[]): Promise<Answer[]> {
  const python = pythonUrlencoded(queries);
  const answers: Answer[] = [];
  for (const [i, pairs] of queries.entries()) {
    const reference = await viaFetch(server, `${path}?${strictlyEncoded(pairs)}`, auth);
    const encodings = {
      'python urlencode': python[i]!,
      URLSearchParams: new URLSearchParams(pairs).toString(),
    };
    for (const [client, query] of Object.entries(encodings)) {
      expect(await viaFetch(server, `${path}?${query}`, auth), `${client}: ${path}?${query}`).toEqual(reference);
    }
    const literal = curlLiteral(pairs);
    expect(await viaCurl(server, `${path}?${literal}`, auth), `curl: ${path}?${literal}`).toEqual(reference);
    answers.push(reference);
  }
  return answers;
}

const EXAMPLE_RULES = readFileSync(join(PROJECT_ROOT, 'examples/conductor/validation/rules.yaml'), 'utf8');

describeEachDatabase(
  'query values as standard clients encode them',
  (db) => {
    const server = useTestServer(db);
    const { call, addAccount, createProcess } = conductorClient(server);
    const pad = (n: number) => String(n).padStart(2, '0');
    /** `mm/dd/YYYY HH:MM` (UTC) of a Unix time. */
    const minute = (seconds: number) => {
      const d = new Date(seconds * 1000);
      return `${pad(d.getUTCMonth() + 1)}/${pad(d.getUTCDate())}/${d.getUTCFullYear()} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}`;
    };

    it('reads history and ops for an mm/dd/YYYY HH:MM range sent with + for the space and raw / and :', async () => {
      const account = await addAccount();
      const start = server().clock.nowSeconds();
      server().clock.advanceSeconds(30);
      const { fid } = await createProcess(account.name);
      server().clock.advanceSeconds(3600);
      expect((await call('PATCH', `/processes/${fid}`, { action: 'suspend' })).status).toBe(202);
      server().clock.advanceSeconds(3600);
      expect((await call('PATCH', `/processes/${fid}`, { action: 'resume' })).status).toBe(202);

      const range: Pairs = [
        ['start', minute(start + 60)],
        ['end', minute(start + 3630)],
      ];
      const [history] = await expectSameAnswerEachWay(server(), `/api/v0/processes/${fid}/history`, server().rootAuth, [range]);
      expect(history!.status).toBe(200);
      expect((history!.body as { items: Array<{ event: string }> }).items.map((h) => h.event)).toEqual(['suspended']);

      const [ops, opsFirst] = await expectSameAnswerEachWay(server(), `/api/v0/processes/${fid}/ops`, server().rootAuth, [
        [['end', minute(start)]],
        [
          ['first', 'true'],
          ['start', minute(start)],
          ['end', minute(start + 7200)],
        ],
      ]);
      expect(ops).toMatchObject({ status: 200, body: { count: 2 } });
      expect(opsFirst).toMatchObject({ status: 200, body: { count: 2 } });
    });

    it('still judges the decoded value by the declared pattern, and names the parameter', async () => {
      const account = await addAccount();
      const { fid } = await createProcess(account.name);
      const answers = await expectSameAnswerEachWay(server(), `/api/v0/processes/${fid}/history`, server().rootAuth, [
        [['start', '2026-06-01 12:00']],
        [['end', '06/01/2026  12:00']],
      ]);
      for (const answer of answers) {
        expect(answer.status).toBe(400);
        expect(answer.body).toMatchObject({ code: 400, message: expect.stringMatching(/^query\.(start|end): (must NOT have more than 16 characters; query\.(start|end): )?must match pattern/) });
      }
    });

    it('filters invites by an email address sent with a raw @', async () => {
      const group = await server().request('POST', '/v0/groups', { body: { name: 'Auditors', policy: 'builtin:AUDITOR' } });
      expect(group.status, group.text).toBe(201);
      for (const email of ['dana.o-neil@example.com', 'erin@example.com']) {
        const invited = await server().request('POST', '/v0/invites', { body: { email, group_ids: [group.body.id] } });
        expect(invited.status, invited.text).toBe(201);
      }
      const [found, malformed] = await expectSameAnswerEachWay(server(), '/v0/invites', server().auth, [
        [['email', 'Dana.O-Neil@example.com']],
        [['email', 'dana o-neil at example.com']],
      ]);
      expect(found!.status).toBe(200);
      expect((found!.body as { items: Array<{ email: string }> }).items.map((i) => i.email)).toEqual(['dana.o-neil@example.com']);
      expect(malformed!.status).toBe(400);
    });

    it('searches environments and rules with JSON queries holding spaces, quotes, brackets and colons', async () => {
      await createEnvironment(server(), { name: 'prod east' });
      await createEnvironment(server(), { name: 'prod west' });
      const [environments] = await expectSameAnswerEachWay(server(), '/v0/environments', server().auth, [
        [['query', JSON.stringify(['provider:provider_a', 'name:prod east'])]],
      ]);
      expect(environments!.status).toBe(200);
      expect((environments!.body as { items: Array<{ name: string }> }).items.map((e) => e.name)).toEqual(['prod east']);

      const rule = await server().request('POST', '/v0/rules', { body: customRuleBody('Versioned buckets') });
      expect(rule.status, rule.text).toBe(201);
      const [rules, unknownPrefix] = await expectSameAnswerEachWay(server(), '/v0/rules', server().auth, [
        [
          ['query', JSON.stringify(['resource_type:PROVA.S3', 'keep versioning'])],
          ['max_items', '5'],
        ],
        [['query', JSON.stringify(['colour:dark red'])]],
      ]);
      expect(rules!.status).toBe(200);
      expect((rules!.body as { items: Array<{ id: string }> }).items.map((r) => r.id)).toEqual([rule.body.id]);
      expect(unknownPrefix!.status).toBe(400);
    });

    it('lists validation libraries by a prefix holding reserved characters, its length counted after decoding', async () => {
      const name = `enc-${process.pid}-lib`;
      const uploaded = await server().request('POST', `/api/v0/validations?name=${name}`, {
        body: await filesTar({ 'rules.yaml': EXAMPLE_RULES }),
        auth: server().rootAuth,
      });
      expect(uploaded.status, uploaded.text).toBe(201);
      // 64 characters once decoded (the declared maxLength), far more as %20 and %2F: accepted; 65 are not.
      const longest = 'a b/'.repeat(16);
      const [matching, none, atMost, beyond] = await expectSameAnswerEachWay(server(), '/api/v0/validations', server().rootAuth, [
        [['prefix', `enc-${process.pid}`]],
        [['prefix', 'team a/b:c@d']],
        [['prefix', longest]],
        [['prefix', `${longest}x`]],
      ]);
      expect((matching!.body as { items: Array<{ name: string }> }).items.map((l) => l.name)).toEqual([name]);
      expect(none).toEqual({ status: 200, body: { count: 0, items: [] } });
      expect(atMost).toEqual({ status: 200, body: { count: 0, items: [] } });
      expect(beyond!.status).toBe(400);
    });

    it('reads integer values only as decimal digits, on every API, whichever way a client encodes them', async () => {
      const notDecimal = ['0x2', '2e0', '2.0', ' 2', '0b1', '0o7', '+2', '2 ', '0x0'];
      // The dry-run is one nobody made: a decimal timeout gets as far as looking it up (404), the others do not.
      const cases: Array<[string, string, string, number]> = [
        ['/v0/environments', 'max_items', server().auth, 200],
        ['/v0/environments', 'offset', server().auth, 200],
        ['/api/v0/dry-run/0d6f3c2a-8b1e-4f5a-9c7d-2e4b6a8c0f13', 'timeout', server().rootAuth, 404],
      ];
      for (const [path, name, auth, decimalStatus] of cases) {
        const answers = await expectSameAnswerEachWay(server(), path, auth, [[[name, '2']], ...notDecimal.map((v): Pairs => [[name, v]])]);
        expect(answers[0]!.status, `${path}?${name}=2`).toBe(decimalStatus);
        for (const [i, answer] of answers.slice(1).entries()) {
          expect(answer.status, `${path}?${name}=${JSON.stringify(notDecimal[i])}`).toBe(400);
          expect(JSON.stringify(answer.body)).toContain('decimal digits');
        }
      }
    });
  },
  'suite',
);
