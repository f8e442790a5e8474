import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { Request, Response } from 'express';
import { beforeEach, describe, it } from '@jest/globals';
import { COMPRESS_FROM_BYTES, compressible } from '../src/http/compression.js';
import { PROJECT_ROOT } from '../src/paths.js';
import { filesTar } from './fixtures/archives.js';
import { createEnvironment, runScan } from './compliance.js';
import { describeEachDatabase } from './databases.js';
import { expect } from './expect.js';
import { useTestServer, type TestServer } from './server.js';

/**
 * Answers are compressed when the client asks for it (Accept-Encoding), from COMPRESS_FROM_BYTES on, by media type:
 * a page of 1 000 results and a spec shrink on the wire and decode to what a plain answer says; a client that asks
 * for nothing (Python's urllib) gets plain JSON; small answers and long-polls are sent as they are.
 */
const run = promisify(execFile);

interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The bytes as they came over the wire. */
  wire: Buffer;
}

/** A request whose answer is read as sent: fetch would decode it, hiding what went over the wire. */
function raw(server: TestServer, path: string, headers: Record<string, string>): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${server.baseUrl}${path}`, { headers: { authorization: server.auth, ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, wire: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

const decoded = (answer: RawAnswer): Buffer => {
  switch (answer.headers['content-encoding']) {
    case 'br':
      return brotliDecompressSync(answer.wire);
    case 'gzip':
      return gunzipSync(answer.wire);
    default:
      return answer.wire;
  }
};

describeEachDatabase('compressed answers', (db) => {
  const testServer = useTestServer(db);
  let server: TestServer;
  beforeEach(() => {
    server = testServer();
  });
  /** A page of up to 1 000 results of a scan of the test's own organization. */
  const pageOfResults = async (): Promise<string> => {
    const env = await createEnvironment(server, { name: 'compressed' });
    const scan = await runScan(server, env.id as string);
    return `/v0/scans/${scan.id}/compliance_by_rules?max_items=1000`;
  };

  it('compresses a page of 1 000 results for a client that accepts brotli or gzip, and it decodes to the plain answer', async () => {
    const page = await pageOfResults();
    const plain = await raw(server, page, {});
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.wire.length).toBeGreaterThan(COMPRESS_FROM_BYTES);
    for (const [accepted, encoding] of [
      ['gzip, deflate, br', 'br'],
      ['gzip', 'gzip'],
    ] as const) {
      const compressed = await raw(server, page, { 'accept-encoding': accepted });
      expect(compressed.status).toBe(200);
      expect(compressed.headers['content-encoding'], accepted).toBe(encoding);
      expect(compressed.headers.vary).toMatch(/Accept-Encoding/i);
      expect(compressed.wire.length).toBeLessThan(plain.wire.length / 3);
      expect(JSON.parse(decoded(compressed).toString('utf8'))).toEqual(JSON.parse(plain.wire.toString('utf8')));
    }
  });

  it('compresses the spec served as YAML', async () => {
    const yaml = await raw(server, '/v0/swagger', { 'accept-encoding': 'gzip', accept: 'application/yaml' });
    expect(yaml.status).toBe(200);
    expect(yaml.headers['content-encoding']).toBe('gzip');
    expect(decoded(yaml).toString('utf8')).toMatch(/^swagger: ['"]?2\.0/m);
  });

  it('sends answers under the threshold as they are', async () => {
    const small = await raw(server, '/healthz', { 'accept-encoding': 'gzip, br' });
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(small.wire.toString('utf8'))).toEqual({ status: 'ok' });
  });

  it('compresses the HTML of /docs, and sends a validation library exactly as uploaded, though the client accepts gzip', async () => {
    const docs = await raw(server, '/docs/', { 'accept-encoding': 'gzip' });
    expect(docs.status).toBe(200);
    expect(docs.headers['content-type']).toMatch(/^text\/html/);
    expect(docs.headers['content-encoding']).toBe('gzip');
    expect(decoded(docs).toString('utf8')).toContain('<html');

    const name = `compressed-${db().target.name}`;
    const library = await filesTar({ 'rules.yaml': readFileSync(join(PROJECT_ROOT, 'examples/conductor/validation/rules.yaml'), 'utf8') });
    expect(library.length).toBeGreaterThan(COMPRESS_FROM_BYTES);
    const uploaded = await server.request('POST', `/api/v0/validations?name=${name}`, { body: library, auth: server.rootAuth, headers: { 'content-type': 'application/x-tar' } });
    expect(uploaded.status, uploaded.text).toBe(201);
    const archive = await raw(server, `/api/v0/validations/${name}/archive`, { authorization: server.rootAuth, 'accept-encoding': 'gzip, br' });
    expect(archive.status).toBe(200);
    expect(archive.headers['content-type']).toMatch(/^application\/x-tar/);
    expect(archive.headers['content-encoding']).toBeUndefined();
    expect(archive.wire.equals(library)).toBe(true);
  });

  it("gives Python's urllib, which asks for no encoding, plain JSON", async () => {
    const script = [
      'import json, sys, urllib.request',
      'req = urllib.request.Request(sys.argv[1], headers={"Authorization": sys.argv[2]})',
      'with urllib.request.urlopen(req, timeout=30) as res:',
      '    body = res.read()',
      '    print(json.dumps({"encoding": res.headers.get("Content-Encoding"), "items": len(json.loads(body)["items"])}))',
    ].join('\n');
    const page = await pageOfResults();
    const { stdout } = await run('python3', ['-c', script, `${server.baseUrl}${page}`, server.auth], { timeout: 60_000 });
    const answered = JSON.parse(stdout) as { encoding: string | null; items: number };
    expect(answered.encoding).toBeNull();
    expect(answered.items).toBeGreaterThan(0);
  });
}, 'suite');

describe('what is compressed', () => {
  const answer = (type: string) => ({ getHeader: (name: string) => (name.toLowerCase() === 'content-type' ? type : undefined) }) as unknown as Response;
  const request = (operationId: string, query: Record<string, string>) => ({ openapi: { schema: { operationId } }, query, headers: {} }) as unknown as Request;

  it('JSON, YAML and HTML, but never a long-poll of a dry-run, and not an archive compressed already', () => {
    expect(compressible(request('getDryRun', {}), answer('application/json; charset=utf-8'))).toBe(true);
    expect(compressible(request('getDryRun', { timeout: '30' }), answer('application/json; charset=utf-8'))).toBe(false);
    expect(compressible(request('getSwagger', {}), answer('application/yaml'))).toBe(true);
    expect(compressible(request('getSwagger', {}), answer('text/html; charset=utf-8'))).toBe(true);
    expect(compressible(request('getValidationArchive', {}), answer('application/gzip'))).toBe(false);
    expect(compressible(request('getValidationArchive', {}), answer('application/x-tar'))).toBe(false);
    expect(compressible(request('getRbacArchive', {}), answer('application/x-tar'))).toBe(false);
  });
});
