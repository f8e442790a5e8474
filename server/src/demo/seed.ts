import { link, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Services } from '../services.js';
import { newApiClientCredentials } from '../domain/auth/api-clients.js';
import { secretMatches } from '../domain/auth/secrets.js';
import { AppError } from '../domain/errors.js';
import { randomToken } from '../domain/ids.js';
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

/** The demo API client's credentials, as kept in the credentials file. */
export interface DemoCredentials {
  client_id: string;
  client_secret: string;
}

/** The credentials file's content; undefined when there is no file. A file of another shape stops the start. */
async function readDemoCredentials(file: string): Promise<DemoCredentials | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const { client_id: clientId, client_secret: secret } = (parsed ?? {}) as Record<string, unknown>;
  if (typeof clientId !== 'string' || typeof secret !== 'string') {
    throw new Error(`${file} must hold {"client_id": "cl_…", "client_secret": "…"}: correct it, or remove it for new demo credentials`);
  }
  return { client_id: clientId, client_secret: secret };
}

/**
 * The credentials in `file`, or new ones written there. The file is never overwritten: every database seeded with
 * it gets the same demo client, so the file stays true whichever database the server starts on. It appears whole
 * or not at all (a hard link of a complete file), so of two processes seeding two databases at once, one writes it
 * and the other reads what was written.
 */
async function demoCredentials(file: string): Promise<DemoCredentials> {
  const kept = await readDemoCredentials(file);
  if (kept) return kept;
  const fresh = newApiClientCredentials();
  const credentials: DemoCredentials = { client_id: fresh.clientId, client_secret: fresh.secret };
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  const draft = join(dirname(file), `.${basename(file)}.${randomToken(6)}`);
  await writeFile(draft, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  try {
    await link(draft, file);
    return credentials;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return (await readDemoCredentials(file))!;
  } finally {
    await rm(draft, { force: true });
  }
}

/** Whether the database's demo client takes the credentials in `file` (false also when there is no such file). */
async function demoCredentialsWork(services: Services, orgId: string, file: string): Promise<boolean> {
  const credentials = await readDemoCredentials(file);
  if (!credentials) return false;
  try {
    const client = await services.apiClients.get(orgId, credentials.client_id);
    return client.status === 'Active' && secretMatches(credentials.client_secret, client.secretHash);
  } catch (error) {
    if (error instanceof AppError && error.code === 'not_found') return false;
    throw error;
  }
}

/**
 * Demo data for `make run` and the stateful mock: a demo API client and environments with scans, a baseline,
 * drift, remediation and events in the default organization. Runs once per database. The client's credentials are
 * printed on that first run and kept in an owner-only file next to the database (see demoCredentials); starting on
 * a database seeded with other credentials says so.
 */
export async function seedDemoData(services: Services, credentialsFile: string): Promise<void> {
  const org = await services.organizations.ensure(DEFAULT_ORGANIZATION);
  const existing = await services.environments.list(org.id, { offset: 0, limit: 1 }, { by: 'created_at', direction: 'asc' }, {});
  if (existing.items.length > 0) {
    if (!(await demoCredentialsWork(services, org.id, credentialsFile))) {
      console.warn(
        `demo data: this database was seeded with a demo API client other than the one in ${credentialsFile} (or the file is gone); ` +
          'issue a new secret for the client named "demo" in the console, or create an API client with the admin command',
      );
    }
    return;
  }

  const credentials = await demoCredentials(credentialsFile);
  await services.apiClients.createWithSecret(org.id, DEMO_CLIENT_NAME, { clientId: credentials.client_id, secret: credentials.client_secret });
  for (const input of DEMO_ENVIRONMENTS) await demoHistory(services, org.id, input);
  // The conductor manages resources in the same account as the provider_a environment, so its scans see them.
  await seedConductorDemo(services, { name: 'prod-main', accountId: '123456789012' });

  console.log(`demo data created; demo API client (also in ${credentialsFile}):`);
  console.log(`  client_id:     ${credentials.client_id}`);
  console.log(`  client_secret: ${credentials.client_secret}`);
}
