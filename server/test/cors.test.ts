import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DATABASE_TARGETS, openTestDatabase, type TestDatabase } from './databases.js';
import { startTestServer, type TestServer, type TestServerOptions } from './server.js';

const run = promisify(execFile);
const FRONTEND = 'http://localhost:5173';

/** A preflight as a browser sends it, by curl; the answer's status and headers, names in lower case. */
async function preflight(url: string, method: string, headers: string): Promise<{ status: number; headers: Record<string, string> }> {
  const { stdout } = await run('curl', ['-sS', '-i', '-X', 'OPTIONS', '-H', `Origin: ${FRONTEND}`, '-H', `Access-Control-Request-Method: ${method}`, '-H', `Access-Control-Request-Headers: ${headers}`, url]);
  const [statusLine, ...lines] = stdout.split('\r\n\r\n')[0]!.split('\r\n');
  const answer: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    answer[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(statusLine!.split(' ')[1]), headers: answer };
}

/** Cross-origin calls (CORS_ORIGINS); the browser's side is in browser/cross-origin.test.ts. */
describe('cross-origin requests', () => {
  const servers: Array<{ server: TestServer; db: TestDatabase & { dispose(): Promise<void> } }> = [];
  const start = async (options: TestServerOptions) => {
    const db = await openTestDatabase(DATABASE_TARGETS[0]!);
    const server = await startTestServer(db, options);
    servers.push({ server, db });
    return server;
  };
  let listing: TestServer;
  let anyOrigin: TestServer;
  let closed: TestServer;

  beforeAll(async () => {
    [listing, anyOrigin, closed] = [await start({ corsOrigins: [FRONTEND] }), await start({ corsOrigins: '*' }), await start({})];
  });
  afterAll(async () => {
    for (const { server, db } of servers) {
      await server.close();
      await db.dispose();
    }
  });

  it('answers a listed origin’s preflight with 204, the API’s methods and the headers it reads', async () => {
    const compliance = await preflight(`${listing.baseUrl}/v0/environments`, 'POST', 'authorization,content-type');
    expect(compliance.status).toBe(204);
    expect(compliance.headers['access-control-allow-origin']).toBe(FRONTEND);
    expect(compliance.headers['access-control-allow-methods']!.split(',')).toEqual(expect.arrayContaining(['GET', 'POST', 'PATCH', 'DELETE']));
    expect(compliance.headers['access-control-allow-headers']).toBe('Authorization,Content-Type,If-None-Match,X-Request-Id');
    expect(compliance.headers['access-control-allow-credentials']).toBeUndefined();
    const conductor = await preflight(`${listing.baseUrl}/api/v0/accounts`, 'GET', 'authorization');
    expect(conductor.status).toBe(204);
    expect(conductor.headers['access-control-allow-origin']).toBe(FRONTEND);
  });

  it('lets the console’s session cookie travel only to an origin listed by name', async () => {
    const listed = await preflight(`${listing.baseUrl}/console/api/session`, 'POST', 'content-type,x-csrf-token');
    expect(listed.status).toBe(204);
    expect(listed.headers['access-control-allow-headers']).toBe('Content-Type,X-CSRF-Token,X-Request-Id');
    expect(listed.headers['access-control-allow-credentials']).toBe('true');
    const any = await preflight(`${anyOrigin.baseUrl}/console/api/session`, 'POST', 'content-type,x-csrf-token');
    expect(any.headers['access-control-allow-origin']).toBe('*');
    expect(any.headers['access-control-allow-credentials']).toBeUndefined();
  });

  it('answers with Access-Control-Allow-Origin on the actual request, and exposes ETag, Location, Retry-After and X-Request-Id', async () => {
    const res = await fetch(`${listing.baseUrl}/v0/environments`, { headers: { origin: FRONTEND, authorization: listing.auth } });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe(FRONTEND);
    expect(res.headers.get('access-control-expose-headers')).toContain('ETag');
    expect(res.headers.get('access-control-expose-headers')).toContain('Location');
    expect(res.headers.get('access-control-expose-headers')).toContain('X-Request-Id');
    // A page may send the ETag back: answered 304, readable as such.
    const again = await fetch(`${listing.baseUrl}/v0/environments`, { headers: { origin: FRONTEND, authorization: listing.auth, 'if-none-match': res.headers.get('etag')! } });
    expect(again.status).toBe(304);
    expect(again.headers.get('access-control-allow-origin')).toBe(FRONTEND);
  });

  it('gives an origin that is not listed, and every origin when CORS_ORIGINS is unset, no access', async () => {
    const other = await fetch(`${listing.baseUrl}/v0/environments`, { headers: { origin: 'http://evil.example', authorization: listing.auth } });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    const unset = await preflight(`${closed.baseUrl}/v0/environments`, 'GET', 'authorization');
    expect(unset.headers['access-control-allow-origin']).toBeUndefined();
  });
});
