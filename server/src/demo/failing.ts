import { newId } from '../domain/ids.js';
import { DEFAULT_ORGANIZATION } from '../domain/organizations/service.js';
import type { Services } from '../services.js';
import { KyselyEnvironmentRepository } from '../storage/repositories/environments.js';
import { KyselyNotificationRepository } from '../storage/repositories/notifications.js';
import { KyselyScanRepository } from '../storage/repositories/scans.js';
import { packExample, packFiles } from './conductor.js';

/** Where the `failing` scenario's webhook points: a name that never resolves (RFC 6761), so it fails for real too. */
export const FAILING_WEBHOOK_URL = 'https://hooks.example.invalid/compliance';

/** The `failing` scenario's dry-run, the same in every process: `GET /api/v0/dry-run/{id}` shows its errors. */
export const FAILING_DRY_RUN_ID = '6661696c-0000-4000-8000-000000000001';

/** What the receiver of the webhook answered each attempt. */
const WEBHOOK_ANSWER = { httpStatus: 503, error: 'HTTP 503 Service Unavailable' } as const;
/** The seconds after the scan each attempt of the delivery was made, as the job queue's backoff spaces them. */
const ATTEMPTS_AFTER = [1, 2, 4, 8, 16];

/** A composition the example validation library refuses: an unencrypted, public bucket, and SSH open to the world. */
const REFUSED_COMPOSITION = `resources:
  - name: public-assets
    type: PROVA.S3.Bucket
    properties:
      encryption: { enabled: false }
      policy_allows_public: true
      acl_grants_public: false
    tags: { env: prod, owner: web }
  - name: bastion-sg
    type: PROVA.EC2.SecurityGroup
    region: us-east-1
    properties:
      description: bastion
      vpc_id: vpc-0a1b2c3d
      is_default: false
      ingress:
        - { protocol: tcp, from_port: 22, to_port: 22, cidr: 0.0.0.0/0 }
    tags: { env: prod }
`;

const runJobs = async (services: Services) => {
  while (await services.jobs.runOnce());
};

async function scanNow(services: Services, orgId: string, environmentId: string) {
  const scan = await services.scans.start(orgId, environmentId);
  await runJobs(services);
  return services.scans.get(orgId, scan.id);
}

/**
 * The stateful mock's `failing` scenario, seeded on the empty one through the services, as the demo is: what a
 * frontend shows when things go wrong.
 * - `Payments (provider_a)`: two successful scans (a baseline, then drift), then a scan that ended `ERROR`
 *   (the role could not be assumed); `Legacy subscription (provider_b)`: two scans, both `ERROR`. Their schedules
 *   are off, so these stay the latest scans.
 * - The notification `Payments alerts` watches Payments' drift: its webhook answered 503 to every attempt of the
 *   delivery of the drift scan, until the delivery was given up; the notification shows that error.
 * - The conductor account `prod-main` with the example validation library `baseline`, and a RUN dry-run of a
 *   composition that breaks the library's rules (FAILING_DRY_RUN_ID): `FAILED`, with an error per broken rule.
 * An ending scan is recorded as the scan runner records a failure: the scan `ERROR` with its message, then its
 * environment. The webhook's attempts are recorded as the delivery job records them; no request leaves the mock.
 * `createdBy` is the API client the notification is made by.
 */
export async function seedFailingScenario(services: Services, createdBy: string): Promise<void> {
  const org = await services.organizations.ensure(DEFAULT_ORGANIZATION);
  const scans = new KyselyScanRepository(services.database.db);
  const environments = new KyselyEnvironmentRepository(services.database.db);
  const failedScan = async (environmentId: string, message: string) => {
    const scan = await services.scans.start(org.id, environmentId);
    const finishedAt = services.clock.nowSeconds();
    await scans.update({ ...scan, status: 'ERROR', message, finishedAt, updatedAt: finishedAt });
    await environments.recordScan(environmentId, { scanId: scan.id, startedAt: scan.createdAt, status: 'ERROR', finishedAt });
    // The scan's job finds the scan ended and ends too.
    await runJobs(services);
  };

  const roleArn = 'arn:prova:iam::345678901234:role/compliance-scanner';
  const payments = await services.environments.create(org.id, {
    name: 'Payments (provider_a)',
    provider: 'provider_a',
    provider_options: { provider_a: { role_arn: roleArn, regions: ['us-east-1'] } },
    compliance_families: ['CIS', 'NIST'],
    scan_schedule_enabled: false,
  });
  const baseline = await scanNow(services, org.id, payments.id);
  await services.environments.update(org.id, payments.id, { baseline_id: baseline.id });
  const drifted = await scanNow(services, org.id, payments.id);
  await failedScan(payments.id, `could not assume role ${roleArn}: access denied`);

  const subscription = '0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e';
  const legacy = await services.environments.create(org.id, {
    name: 'Legacy subscription (provider_b)',
    provider: 'provider_b',
    provider_options: { provider_b: { subscription_id: subscription, tenant_id: '1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f' } },
    compliance_families: ['CISPROVB'],
    scan_schedule_enabled: false,
  });
  for (let i = 0; i < 2; i++) {
    await failedScan(legacy.id, `could not list subscription ${subscription}: the client secret of the service principal expired`);
  }

  const notification = await services.notifications.create(org.id, createdBy, {
    name: 'Payments alerts',
    events: ['drift', 'compliance'],
    environments: [payments.id],
    webhook_url: FAILING_WEBHOOK_URL,
    webhook_secret: 'failing-scenario-webhook-secret',
  });
  const deliveries = new KyselyNotificationRepository(services.database.db);
  const deliveryId = newId();
  for (const [i, after] of ATTEMPTS_AFTER.entries()) {
    const last = i === ATTEMPTS_AFTER.length - 1;
    await deliveries.recordAttempt(
      {
        id: newId(),
        notificationId: notification.id,
        deliveryId,
        scanId: drifted.id,
        environmentId: payments.id,
        transport: 'webhook',
        target: FAILING_WEBHOOK_URL,
        attempt: i + 1,
        status: 'failed',
        willRetry: !last,
        httpStatus: WEBHOOK_ANSWER.httpStatus,
        smtpResponse: null,
        error: WEBHOOK_ANSWER.error,
        attemptedAt: (drifted.finishedAt ?? drifted.createdAt) + after,
      },
      last ? `webhook: ${WEBHOOK_ANSWER.error} (gave up after ${ATTEMPTS_AFTER.length} attempts)` : undefined,
    );
  }

  await services.conductorAccounts.add({ name: 'prod-main', provider: 'provider_a', accountId: '123456789012' });
  await services.validations.add('baseline', await packExample('validation'));
  const archive = await packFiles({ 'composition.yaml': REFUSED_COMPOSITION });
  const dryRun = await services.dryRuns.request({ command: 'RUN', account: 'prod-main', importResources: false, archive });
  await runJobs(services);
  // A dry-run is found by its id only: a fixed one, for frontends to hard-code.
  await services.database.db.updateTable('conductor_dry_runs').set({ id: FAILING_DRY_RUN_ID }).where('id', '=', dryRun.id).execute();
}
