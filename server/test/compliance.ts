
import { resourceTypesOf } from '../src/domain/cloud/catalog.js';
import { listingError } from '../src/domain/cloud/simulator/simulated-cloud.js';
import type { TestServer } from './server.js';
import { expect } from './expect.js';

const ALL_TYPES = resourceTypesOf('provider_a').map((t) => t.type);
// Deterministic: a test sees the same accounts, and so the same simulated inventory and drift, on every run.
let accountCounter = 100_000_000_000;

/**
 * A provider_a account number no other test uses, so inventories and drift never leak between tests. Its role
 * can list every resource type, so scans see the whole inventory unless a test wants otherwise.
 */
export function nextAccount(): string {
  do accountCounter += 7919;
  while (ALL_TYPES.some((type) => listingError('provider_a', String(accountCounter), type)));
  return String(accountCounter);
}

export type Body = Record<string, any>;

/** Creates a provider_a environment through the API, with `defaults` and then `overrides` over a minimal body. */
export async function createEnvironment(server: TestServer, defaults: Body = {}, overrides: Body = {}): Promise<Body> {
  const res = await server.request('POST', '/v0/environments', {
    body: {
      name: 'prod',
      provider: 'provider_a',
      provider_options: { provider_a: { role_arn: `arn:prova:iam::${nextAccount()}:role/scanner`, regions: ['*'] } },
      ...defaults,
      ...overrides,
    },
  });
  expect(res.status, res.text).toBe(201);
  return res.body as Body;
}

/** Starts a scan through the API and runs every due job (the scan, and whatever it queues) to the end. */
export async function runScan(server: TestServer, environmentId: string): Promise<Body> {
  const started = await server.request('POST', `/v0/scans?environment_id=${environmentId}`);
  expect(started.status, started.text).toBe(201);
  while (await server.services.jobs.runOnce());
  const finished = await server.request('GET', `/v0/scans/${started.body.id}`);
  return finished.body as Body;
}

/** A valid custom rule body (S3 bucket versioning), named `name`. */
export const customRuleBody = (name: string): Body => ({
  name,
  description: 'S3 buckets keep versioning.',
  providers: ['PROVIDER_A'],
  resource_type: 'PROVA.S3.Bucket',
  rule_text: 'resource.properties.versioning == "Enabled"',
  severity: 'Medium',
  source: 'CUSTOM',
  families: ['CIS'],
});
