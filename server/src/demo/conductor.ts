import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pack } from 'tar-stream';
import { ROOT_USER } from '../domain/auth/conductor-users.js';
import { PROJECT_ROOT } from '../paths.js';
import type { Services } from '../services.js';

const EXAMPLES = join(PROJECT_ROOT, 'examples', 'conductor');

/** Packs the files of one example directory into a tar, as a user would with `tar -C <dir> -cf`. */
export async function packExample(directory: 'composition' | 'validation' | 'policy'): Promise<Buffer> {
  const dir = join(EXAMPLES, directory);
  const files: Record<string, Buffer> = {};
  for (const name of (await readdir(dir)).filter((n) => n.endsWith('.yaml')).sort()) files[name] = await readFile(join(dir, name));
  return packFiles(files);
}

/** Packs files, by name, into a tar. */
export async function packFiles(files: Record<string, string | Buffer>): Promise<Buffer> {
  const archive = pack();
  const chunks: Buffer[] = [];
  archive.on('data', (chunk: unknown) => chunks.push(chunk as Buffer));
  const ended = new Promise<void>((resolve) => archive.on('end', () => resolve()));
  for (const [name, content] of Object.entries(files)) {
    await new Promise<void>((resolve, reject) => archive.entry({ name }, content, (error) => (error ? reject(error) : resolve())));
  }
  archive.finalize();
  await ended;
  return Buffer.concat(chunks);
}

const runJobs = async (services: Services) => {
  while (await services.jobs.runOnce());
};

/**
 * Conductor demo data: the account of the demo's provider_a environment, the example validation library, and a
 * process made from the example composition with a history — created, locked and unlocked, a resource drifted
 * and corrected by enforcement — so history and ops have something to show.
 */
export async function seedConductorDemo(services: Services, account: { name: string; accountId: string }): Promise<void> {
  await services.conductorAccounts.add({ name: account.name, provider: 'provider_a', accountId: account.accountId });
  await services.validations.add('baseline', await packExample('validation'));
  const created = await services.processes.create({
    archive: await packExample('composition'),
    account: account.name,
    alias: 'web-frontend',
    importResources: false,
    actor: ROOT_USER,
  });
  await runJobs(services);
  await services.processes.update('web-frontend', { lock: true }, ROOT_USER);
  await services.processes.update('web-frontend', { lock: false }, ROOT_USER);

  const bucket = (await services.processes.get(created.process.fid)).resources.find((r) => r.type === 'PROVA.S3.Bucket');
  if (bucket?.resourceId) {
    // Someone suspends versioning by hand: a property the composition declares, so enforcement puts it back.
    await services.cloud.driftResource('provider_a', account.accountId, bucket.resourceId, { versioning: 'Suspended' });
    await services.enforcer.tick();
    await runJobs(services);
  }
}
