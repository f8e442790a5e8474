import { dirname, join } from 'node:path';
import { systemClock, type Clock } from './domain/clock.js';
import { silentLog } from './domain/log.js';
import { DEFAULT_ORGANIZATION } from './domain/organizations/service.js';
import type { Config } from './config.js';
import { seedDemoData } from './demo/seed.js';
import { createServices, type ServiceOptions, type Services } from './services.js';
import { migrateToLatest, openDatabase, withStartupLock, type DatabaseHandle } from './storage/database.js';

/**
 * Opens and migrates the database, then makes sure the default organization and root exist (and the demo data, if
 * configured). Processes starting at once on one PostgreSQL database take turns; each finds what the ones before
 * it created and leaves it as it is.
 */
export async function bootstrap(
  config: Config,
  clock: Clock = systemClock,
  database: DatabaseHandle = openDatabase(config.databaseUrl, { pool: config.databasePool }),
  observability: Pick<ServiceOptions, 'log' | 'metrics' | 'faultPoint'> = {},
): Promise<Services> {
  const log = observability.log ?? silentLog;
  return withStartupLock(database, async () => {
    await migrateToLatest(database);
    const services = createServices(database, clock, {
      ...observability,
      jobs: { leaseMs: config.jobLeaseMs },
      maxConcurrentScansPerOrganization: config.maxConcurrentScansPerOrg,
      quotas: config.quotas,
      simulator: { driftRate: config.simDriftRate },
      authenticationLimits: config.authenticationLimits,
      notifications: { smtpUrl: config.smtpUrl, smtpFrom: config.smtpFrom, webhookAllowPrivate: config.webhookAllowPrivate },
      ...(config.publicUrl !== undefined && { publicUrl: config.publicUrl }),
    });
    const org = await services.organizations.ensure(DEFAULT_ORGANIZATION);
    const adminFile = await services.consoleAuth.ensureAdmin(org.id, config.consoleAdminEmail, config.consoleAdminPassword, config.consoleAdminPasswordFile);
    if (adminFile) log.info({ file: adminFile }, `console admin ${config.consoleAdminEmail}: password generated and written to ${adminFile} (readable by its owner only)`);
    const generated = await services.conductorUsers.ensureRoot({
      configured: config.conductorRootSecret,
      file: config.conductorRootSecretFile,
    });
    if (generated) log.info({ file: generated }, `conductor root secret generated and written to ${generated} (readable by its owner only)`);
    if (config.demoData) await seedDemoData(services, join(dirname(config.conductorRootSecretFile), 'demo-credentials.json'));
    return services;
  });
}
