import type { Clock } from './domain/clock.js';
import { ApiClientService } from './domain/auth/api-clients.js';
import { ConductorUserService } from './domain/auth/conductor-users.js';
import { EnvironmentService } from './domain/environments/service.js';
import { SimulatedCloud, type SimulatorOptions } from './domain/cloud/simulator/simulated-cloud.js';
import { EventService } from './domain/events/service.js';
import { JobQueue, type JobQueueOptions } from './domain/jobs/queue.js';
import { RuleSource } from './domain/scans/rule-set.js';
import { ScanRunner } from './domain/scans/runner.js';
import { ScanScheduler } from './domain/scans/scheduler.js';
import { SCAN_JOB, ScanService } from './domain/scans/service.js';
import { OrganizationService } from './domain/organizations/service.js';
import type { DatabaseHandle } from './storage/database.js';
import { KyselyApiClientRepository } from './storage/repositories/api-clients.js';
import { KyselyCloudInventoryRepository } from './storage/repositories/cloud-inventory.js';
import { KyselyConductorUserRepository } from './storage/repositories/conductor-users.js';
import { KyselyEnvironmentRepository } from './storage/repositories/environments.js';
import { KyselyEventRepository } from './storage/repositories/events.js';
import { KyselyJobRepository } from './storage/repositories/jobs.js';
import { KyselyOrganizationRepository } from './storage/repositories/organizations.js';
import { KyselyScanResultRepository } from './storage/repositories/scan-results.js';
import { KyselyScanRepository } from './storage/repositories/scans.js';

/** Every use case of the product, wired to one database and one clock. HTTP handlers and jobs call only these. */
export interface Services {
  clock: Clock;
  database: DatabaseHandle;
  organizations: OrganizationService;
  apiClients: ApiClientService;
  conductorUsers: ConductorUserService;
  environments: EnvironmentService;
  scans: ScanService;
  events: EventService;
  cloud: SimulatedCloud;
  jobs: JobQueue;
  scheduler: ScanScheduler;
}

export interface ServiceOptions {
  jobs?: JobQueueOptions;
  simulator?: Partial<SimulatorOptions>;
}

export function createServices(database: DatabaseHandle, clock: Clock, options: ServiceOptions = {}): Services {
  const { db } = database;
  const environmentRepository = new KyselyEnvironmentRepository(db);
  const scanRepository = new KyselyScanRepository(db);
  const results = new KyselyScanResultRepository(db);
  const eventRepository = new KyselyEventRepository(db);
  const jobs = new JobQueue(new KyselyJobRepository(db, database.dialect), clock, options.jobs);
  const cloud = new SimulatedCloud(new KyselyCloudInventoryRepository(db), clock, { driftRate: 0.02, ...options.simulator });
  const rules = new RuleSource();
  const scans = new ScanService({ environments: environmentRepository, scans: scanRepository, results, rules, jobs, clock });
  const runner = new ScanRunner({ environments: environmentRepository, scans: scanRepository, results, events: eventRepository, cloud, rules, clock });
  jobs.register(SCAN_JOB, async (payload, context) => {
    const { orgId, scanId } = payload as { orgId: string; scanId: string };
    await runner.run(orgId, scanId, context.heartbeat);
  });
  return {
    clock,
    database,
    organizations: new OrganizationService(new KyselyOrganizationRepository(db), clock),
    apiClients: new ApiClientService(new KyselyApiClientRepository(db), clock),
    conductorUsers: new ConductorUserService(new KyselyConductorUserRepository(db), clock),
    environments: new EnvironmentService({ environments: environmentRepository, scans: scanRepository, clock }),
    scans,
    events: new EventService(environmentRepository, eventRepository),
    cloud,
    jobs,
    scheduler: new ScanScheduler(environmentRepository, scanRepository, jobs, scans, runner, clock),
  };
}
