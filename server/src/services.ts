import type { Clock } from './domain/clock.js';
import { ApiClientService } from './domain/auth/api-clients.js';
import { ConductorUserService } from './domain/auth/conductor-users.js';
import { EnvironmentService } from './domain/environments/service.js';
import { JobQueue, type JobQueueOptions } from './domain/jobs/queue.js';
import { OrganizationService } from './domain/organizations/service.js';
import type { DatabaseHandle } from './storage/database.js';
import { KyselyApiClientRepository } from './storage/repositories/api-clients.js';
import { KyselyConductorUserRepository } from './storage/repositories/conductor-users.js';
import { KyselyEnvironmentRepository } from './storage/repositories/environments.js';
import { KyselyJobRepository } from './storage/repositories/jobs.js';
import { KyselyOrganizationRepository } from './storage/repositories/organizations.js';
import { KyselyScanRepository } from './storage/repositories/scans.js';

/** Every use case of the product, wired to one database and one clock. HTTP handlers and jobs call only these. */
export interface Services {
  clock: Clock;
  database: DatabaseHandle;
  organizations: OrganizationService;
  apiClients: ApiClientService;
  conductorUsers: ConductorUserService;
  environments: EnvironmentService;
  jobs: JobQueue;
}

export function createServices(database: DatabaseHandle, clock: Clock, jobOptions: JobQueueOptions = {}): Services {
  const { db } = database;
  return {
    clock,
    database,
    organizations: new OrganizationService(new KyselyOrganizationRepository(db), clock),
    apiClients: new ApiClientService(new KyselyApiClientRepository(db), clock),
    conductorUsers: new ConductorUserService(new KyselyConductorUserRepository(db), clock),
    environments: new EnvironmentService({
      environments: new KyselyEnvironmentRepository(db),
      scans: new KyselyScanRepository(db),
      clock,
    }),
    jobs: new JobQueue(new KyselyJobRepository(db, database.dialect), clock, jobOptions),
  };
}
