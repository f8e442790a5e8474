// Node usage, end to end: the package test runs this against a live server and checks what it prints (one JSON
// object per line). Configuration comes from the environment, as in a CI job.
import {
  ApiError,
  createComplianceClient,
  createConductorClient,
  pages,
  results,
  submitDryRun,
  tarFiles,
  unwrap,
  waitForDryRun,
  waitForScan,
} from '@compliance-conductor/client';
// The node entry's upload helpers also take a path: a tar or tar.gz file, or a directory packed on the fly.
import { addValidation, readArchive } from '@compliance-conductor/client/node';

function setting(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`set ${name}`);
  return value;
}

const report = (step: string, details: Record<string, unknown>) => console.log(JSON.stringify({ step, ...details }));

const baseUrl = setting('CC_URL');
const compliance = createComplianceClient({ baseUrl, auth: { user: setting('COMPLIANCE_CLIENT_ID'), secret: setting('COMPLIANCE_CLIENT_SECRET') } });
const conductor = createConductorClient({ baseUrl, auth: { user: setting('CONDUCTOR_USER'), secret: setting('CONDUCTOR_SECRET') } });

// An environment, scanned once.
const roleArn = setting('ROLE_ARN');
const environment = await unwrap(
  compliance.POST('/environments', { body: { name: 'example-prod', provider: 'provider_a', provider_options: { provider_a: { role_arn: roleArn, regions: ['*'] } } } }),
);
report('environment', { id: environment.id, name: environment.name });

const started = await unwrap(compliance.POST('/scans', { params: { query: { environment_id: environment.id } } }));
let polls = 0;
const scan = await waitForScan(compliance, started.id, { intervalMs: 100, timeoutMs: 60_000, onProgress: () => (polls += 1) });
report('scan', { id: scan.id, started: started.status, status: scan.status, polls, compliant: scan.resource_summary?.compliant ?? null, noncompliant: scan.resource_summary?.noncompliant ?? null });

// Two more environments, then every environment, two per page.
for (const name of ['example-stage', 'example-dev']) {
  await unwrap(compliance.POST('/environments', { body: { name, provider: 'provider_a', provider_options: { provider_a: { role_arn: roleArn, regions: ['*'] } } } }));
}
const offsets: number[] = [];
const names: string[] = [];
const environments = pages((offset) => {
  offsets.push(offset);
  return unwrap(compliance.GET('/environments', { params: { query: { offset, max_items: 2, order_by: 'name', order_direction: 'asc' } } }));
});
for await (const item of environments) names.push(item.name);
report('pages', { names, offsets });

// A typed 404, as a result and as a thrown ApiError.
const missing = '3f1c2a9e-8b7d-4c6e-9f10-2a3b4c5d6e7f';
const result = await results(compliance).GET('/environments/{environment_id}', { params: { path: { environment_id: missing } } });
if (result.ok) throw new Error('a missing environment was found');
if (result.status === 404) report('not-found', { status: result.status, type: result.error.type, code: result.error.code, message: result.error.message });
try {
  await unwrap(compliance.GET('/environments/{environment_id}', { params: { path: { environment_id: missing } } }));
} catch (error) {
  if (!(error instanceof ApiError)) throw error;
  report('api-error', { status: error.status, operation: error.operation, body: error.body });
}

// A validation library uploaded from a directory, then dry-runs it applies to.
const library = await addValidation(conductor, 'owner-tags', setting('VALIDATION_DIR'));
report('validation', { name: library.name, rules: library.rule_count, sha256: library.sha256, size: library.size });

const account = setting('ACCOUNT_NAME');
await unwrap(conductor.POST('/accounts', { body: { name: account, provider: 'provider_a', account_id: setting('ACCOUNT_ID') } }));
const accepted = await submitDryRun(conductor, { command: 'RUN', account }, await readArchive(setting('COMPOSITION_FILE')));
const dryRun = await waitForDryRun(conductor, accepted.id, { timeoutMs: 60_000 });
report('dry-run', { id: dryRun.id, accepted: accepted.status, status: dryRun.status, plan: dryRun.plan.map((op) => `${op.operation} ${op.resource_name}`) });

const untagged = await tarFiles({ 'composition.yaml': 'resources:\n  - name: untagged\n    type: PROVA.S3.Bucket\n' });
const refused = await waitForDryRun(conductor, (await submitDryRun(conductor, { command: 'run', account }, untagged)).id, { timeoutMs: 60_000 });
report('dry-run-refused', { status: refused.status, errors: refused.errors.map((e) => e.code) });
report('done', {});
