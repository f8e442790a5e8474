import { writeFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Services } from '../services.js';
import type { CreateEnvironmentInput } from '../domain/environments/types.js';
import { DEFAULT_ORGANIZATION } from '../domain/organizations/service.js';
import { seedConductorDemo } from './conductor.js';

export const DEMO_CLIENT_NAME = 'demo';

const DEMO_ENVIRONMENTS: CreateEnvironmentInput[] = [
  {
    name: 'Production (provider_a)',
    provider: 'provider_a',
    provider_options: { provider_a: { role_arn: 'arn:prova:iam::123456789012:role/compliance-scanner', regions: ['us-east-1', 'eu-west-1'] } },
    compliance_families: ['CIS', 'NIST', 'SOC2'],
    scan_interval: 3600,
  },
  {
    name: 'GovCloud workloads',
    provider: 'provider_a_gov',
    provider_options: { provider_a_gov: { role_arn: 'arn:prova-us-gov:iam::210987654321:role/compliance-scanner', regions: ['*'] } },
    compliance_families: ['NIST', 'HIPAA'],
  },
  {
    name: 'Analytics subscription',
    provider: 'provider_b',
    provider_options: { provider_b: { subscription_id: '8f14e45f-ceea-4e7a-9c3b-0d5e2f1a6b7c', tenant_id: '1d2c3b4a-5e6f-4a7b-8c9d-0e1f2a3b4c5d' } },
    compliance_families: ['CISPROVB', 'CSACCM'],
    survey_resource_groups: ['*'],
  },
];

/** Runs a scan to its end in this process (the job worker has not started yet). */
async function scanNow(services: Services, orgId: string, environmentId: string): Promise<string> {
  const scan = await services.scans.start(orgId, environmentId);
  while (await services.jobs.runOnce());
  return scan.id;
}

/**
 * An environment with a history: a first scan that becomes the baseline, then scans that see the simulated
 * cloud drift, so compliance and drift events exist, and for provider_a baseline enforcement with its
 * REMEDIATION events. The schedule stays on, so more scans follow while the demo runs.
 */
async function demoHistory(services: Services, orgId: string, input: CreateEnvironmentInput): Promise<void> {
  const env = await services.environments.create(orgId, input);
  const baseline = await scanNow(services, orgId, env.id);
  await services.environments.update(orgId, env.id, { baseline_id: baseline });
  await scanNow(services, orgId, env.id);
  if (input.provider === 'provider_a') {
    await services.environments.update(orgId, env.id, { remediation: true });
    await scanNow(services, orgId, env.id);
  }
}

/**
 * Demo data for `make run` and the stateful mock: a demo API client and environments with scans, a baseline,
 * drift, remediation and events in the default organization. Runs once per database; the client's credentials are printed on that first run and kept in an
 * owner-only file next to the database.
 */
export async function seedDemoData(services: Services, credentialsFile: string): Promise<void> {
  const org = await services.organizations.ensure(DEFAULT_ORGANIZATION);
  const existing = await services.environments.list(org.id, { offset: 0, limit: 1 }, { by: 'created_at', direction: 'asc' }, {});
  if (existing.items.length > 0) return;

  const { client, secret } = await services.apiClients.createWithSecret(org.id, DEMO_CLIENT_NAME);
  for (const input of DEMO_ENVIRONMENTS) await demoHistory(services, org.id, input);
  // The conductor manages resources in the same account as the provider_a environment, so its scans see them.
  await seedConductorDemo(services, { name: 'prod-main', accountId: '123456789012' });

  const credentials = { client_id: client.clientId, client_secret: secret };
  await mkdir(dirname(credentialsFile), { recursive: true, mode: 0o700 });
  await writeFile(credentialsFile, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
  console.log(`demo data created; demo API client (also in ${credentialsFile}):`);
  console.log(`  client_id:     ${credentials.client_id}`);
  console.log(`  client_secret: ${credentials.client_secret}`);
}
