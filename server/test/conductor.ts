import { stringify } from 'yaml';

import { filesTar } from './fixtures/archives.js';
import type { TestServer } from './server.js';
import { expect } from './expect.js';

/** Helpers for the conductor's component tests: accounts and processes made through the API as root. */

let counter = 0;
/** A fresh account number (and name) per call, so tests sharing a database never see each other's inventory. */
export function nextAccount(): { name: string; accountId: string } {
  counter += 1;
  return { name: `acct-${process.pid}-${counter}`, accountId: String(400_000_000_000 + process.pid * 1000 + counter).slice(0, 12) };
}

export const compositionYaml = (resources: unknown[], imports?: unknown[]): string => stringify({ resources, ...(imports && { imports }) });

export const compositionTar = (resources: unknown[], imports?: unknown[]): Promise<Buffer> => filesTar({ 'composition.yaml': compositionYaml(resources, imports) });

/** Two resources: a global bucket and a regional queue, with a few properties and tags each. */
export const WEB_RESOURCES = [
  { name: 'assets', type: 'PROVA.S3.Bucket', properties: { versioning: 'Enabled', acl_grants_public: false }, tags: { env: 'prod' } },
  { name: 'jobs', type: 'PROVA.SQS.Queue', region: 'us-east-1', properties: { visibility_timeout_seconds: 30 }, tags: { owner: 'web' } },
];

export function conductorClient(server: () => TestServer) {
  const call = (method: string, path: string, body?: unknown) => server().request(method, `/api/v0${path}`, { auth: server().rootAuth, ...(body !== undefined && { body }) });
  const runJobs = async () => {
    while (await server().services.jobs.runOnce());
  };
  return {
    call,
    runJobs,
    async addAccount(overrides: Record<string, unknown> = {}) {
      const { name, accountId } = nextAccount();
      const res = await call('POST', '/accounts', { name, provider: 'provider_a', account_id: accountId, ...overrides });
      expect(res.status, res.text).toBe(201);
      return res.body as { name: string; provider: string; account_id: string };
    },
    /** Creates a process and, unless told otherwise, runs its creation job. */
    async createProcess(account: string, resources: unknown[] = WEB_RESOURCES, options: { alias?: string; query?: string; imports?: unknown[]; run?: boolean } = {}) {
      const query = `account=${account}${options.alias ? `&alias=${options.alias}` : ''}${options.query ?? ''}`;
      const res = await call('POST', `/processes?${query}`, await compositionTar(resources, options.imports));
      expect(res.status, res.text).toBe(201);
      if (options.run !== false) await runJobs();
      return res.body as { fid: string; alias: string | null; resources: Array<Record<string, any>> };
    },
    async getProcess(ref: string) {
      const res = await call('GET', `/processes/${ref}`);
      expect(res.status, res.text).toBe(200);
      return res.body as { fid: string; state: string; alias: string | null; enforcement: boolean; lock: boolean; resources: Array<Record<string, any>> };
    },
  };
}
