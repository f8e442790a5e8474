import type { Clock } from './domain/clock.js';
import { ApiClientService, apiClientCacheOptions, type ApiClientCacheOptions } from './domain/auth/api-clients.js';
import { ConductorUserService } from './domain/auth/conductor-users.js';
import type { PasswordHashing } from './domain/auth/passwords.js';
import { AuthenticationThrottle, type AuthenticationLimits } from './domain/auth/throttle.js';
import { ConsoleAuthService } from './domain/console/sessions.js';
import { EnvironmentService } from './domain/environments/service.js';
import { SimulatedCloud, type SimulatorOptions } from './domain/cloud/simulator/simulated-cloud.js';
import { EventService } from './domain/events/service.js';
import type { FaultPoint } from './domain/jobs/fault-points.js';
import { JobQueue, type JobQueueOptions } from './domain/jobs/queue.js';
import { silentLog, type Log } from './domain/log.js';
import type { Metrics } from './metrics.js';
import { RuleSource } from './domain/scans/rule-set.js';
import { EvaluationPool } from './domain/rules/evaluation-pool.js';
import { CustomRuleService } from './domain/custom-rules/service.js';
import { AccessService } from './domain/access/service.js';
import { INVITE_DELIVERY_JOB, InvitationService, type InviteDeliveryJob } from './domain/access/invitations.js';
import { ScanRunner } from './domain/scans/runner.js';
import { ScanScheduler } from './domain/scans/scheduler.js';
import { SCAN_JOB, ScanService } from './domain/scans/service.js';
import { OrganizationService } from './domain/organizations/service.js';
import { quotasOf, type Quotas } from './domain/quotas.js';
import { NOTIFICATION_DELIVERY_JOB, NotificationService, type DeliveryJob } from './domain/notifications/service.js';
import { HttpWebhookSender, SmtpEmailSender } from './domain/notifications/transports.js';
import { eventDocument } from './documents/events.js';
import { KyselyNotificationRepository } from './storage/repositories/notifications.js';
import type { DatabaseHandle } from './storage/database.js';
import { withinMs } from './storage/availability.js';
import { KyselyApiClientRepository } from './storage/repositories/api-clients.js';
import { KyselyCloudInventoryRepository } from './storage/repositories/cloud-inventory.js';
import { KyselyConductorUserRepository } from './storage/repositories/conductor-users.js';
import { ValidationLibraryService } from './domain/conductor/validation-libraries.js';
import { RbacService } from './domain/conductor/rbac.js';
import { KyselyValidationLibraryRepository } from './storage/repositories/validation-libraries.js';
import { KyselyRbacPolicyRepository } from './storage/repositories/rbac-policy.js';
import { KyselyAuthFailureRepository } from './storage/repositories/auth-failures.js';
import { KyselySessionRepository } from './storage/repositories/console.js';
import { KyselyUserRepository } from './storage/repositories/users.js';
import { KyselyEnvironmentRepository } from './storage/repositories/environments.js';
import { KyselyEventRepository } from './storage/repositories/events.js';
import { KyselyJobRepository } from './storage/repositories/jobs.js';
import { KyselyOrganizationRepository } from './storage/repositories/organizations.js';
import { KyselyScanResultRepository } from './storage/repositories/scan-results.js';
import { KyselyScanRepository } from './storage/repositories/scans.js';
import { KyselyCustomRuleRepository } from './storage/repositories/custom-rules.js';
import { KyselyRuleTestOutputRepository } from './storage/repositories/rule-test-outputs.js';
import { KyselyGroupRepository } from './storage/repositories/groups.js';
import { KyselyInviteRepository } from './storage/repositories/invites.js';
import { createConductorServices, type ConductorServices } from './conductor-services.js';

/** Every use case of the product, wired to one database and one clock. HTTP handlers and jobs call only these. */
export interface Services {
  clock: Clock;
  database: DatabaseHandle;
  /** How many records of each kind an organization (processes: an account) may have; creates past them are refused. */
  quotas: Readonly<Quotas>;
  organizations: OrganizationService;
  apiClients: ApiClientService;
  consoleAuth: ConsoleAuthService;
  conductorUsers: ConductorUserService;
  /** The conductor's validation libraries; also the CompositionValidator every dry-run and process change asks. */
  validations: ValidationLibraryService;
  rbac: RbacService;
  environments: EnvironmentService;
  scans: ScanService;
  events: EventService;
  notifications: NotificationService;
  cloud: SimulatedCloud;
  jobs: JobQueue;
  /** The worker threads that evaluate rules for scans and rule tests; closed on shutdown. */
  evaluation: EvaluationPool;
  scheduler: ScanScheduler;
  customRules: CustomRuleService;
  access: AccessService;
  /** Invites' emails, and their acceptance in the console. */
  invitations: InvitationService;
  conductorAccounts: ConductorServices['conductorAccounts'];
  processes: ConductorServices['processes'];
  dryRuns: ConductorServices['dryRuns'];
  /** Corrects drift of processes with enforcement on; `tick()` once, or `start()` to tick periodically. */
  enforcer: ConductorServices['enforcer'];
}

export interface ServiceOptions {
  jobs?: JobQueueOptions;
  /**
   * Scans of one organization running at once across every server process (MAX_CONCURRENT_SCANS_PER_ORG);
   * DEFAULT_MAX_CONCURRENT_SCANS_PER_ORGANIZATION unless set.
   */
  maxConcurrentScansPerOrganization?: number;
  simulator?: Partial<SimulatorOptions>;
  /**
   * Where email notifications go out (without smtpUrl, email deliveries fail with a message saying so), and
   * whether webhooks may target loopback, private and link-local addresses (off unless set).
   */
  notifications?: { smtpUrl?: string; smtpFrom?: string; webhookAllowPrivate?: boolean };
  /**
   * The address people reach the server at (PUBLIC_URL), where invitation links point; unset, the links point to
   * the address the inviting request was sent to.
   */
  publicUrl?: string;
  /** How long verified API-client credentials and grants are reused (tests shorten it or drive its clock). */
  apiClientCache?: ApiClientCacheOptions;
  /** Where background work logs (jobs, the scheduler, enforcement, deliveries); unset, nowhere. */
  log?: Log;
  /** Counts jobs and scans, and reads the queue's depth and the long-poll waiters when scraped. */
  metrics?: Metrics;
  /** The fault matrix's hook at the points background work passes (see JobQueueOptions.faultPoint); unset, none. */
  faultPoint?: FaultPoint;
  /**
   * scrypt's cost for the console passwords and conductor secrets hashed from now on; unset, the product's
   * (DEFAULT_PASSWORD_HASHING). Tests that hash or check many lower it: each costs about a tenth of a second at the
   * product's cost.
   */
  passwordHashing?: PasswordHashing;
  /** Failed authentications allowed per window on every API (AUTH_FAILURE_WINDOW_SECONDS, …); unset, the product's. */
  authenticationLimits?: AuthenticationLimits;
  /**
   * How many environments, custom rules, notifications, groups and API clients one organization may have, and
   * processes one conductor account (MAX_…_PER_ORG, MAX_PROCESSES_PER_ACCOUNT); those unset, DEFAULT_QUOTAS.
   */
  quotas?: Partial<Quotas>;
}

/** Scans of one organization running at once unless configured (MAX_CONCURRENT_SCANS_PER_ORG). */
export const DEFAULT_MAX_CONCURRENT_SCANS_PER_ORGANIZATION = 2;

/** How long a metrics scrape waits for the job table's counts. */
const SCRAPE_WAIT_MS = 250;

export function createServices(database: DatabaseHandle, clock: Clock, options: ServiceOptions = {}): Services {
  const { db } = database;
  const { metrics } = options;
  const log = options.log ?? silentLog;
  const quotas = quotasOf(options.quotas);
  // One pool of rule-evaluation threads per process: the request thread never evaluates a scan, a rule test or a
  // validation library's rules.
  const evaluation = new EvaluationPool();
  // Built first: the conductor's process and dry-run use cases check compositions through it.
  const validations = new ValidationLibraryService({ libraries: new KyselyValidationLibraryRepository(db), clock, evaluation });
  const environmentRepository = new KyselyEnvironmentRepository(db);
  const scanRepository = new KyselyScanRepository(db);
  const results = new KyselyScanResultRepository(db);
  const eventRepository = new KyselyEventRepository(db);
  const jobRepository = new KyselyJobRepository(db, database.dialect);
  const jobs = new JobQueue(jobRepository, clock, {
    ...options.jobs,
    // A scan holds a worker longest: capped per organization, one organization's many scans leave workers to others.
    runningLimits: { [SCAN_JOB]: options.maxConcurrentScansPerOrganization ?? DEFAULT_MAX_CONCURRENT_SCANS_PER_ORGANIZATION, ...options.jobs?.runningLimits },
    log,
    ...(metrics && { metrics }),
    faultPoint: options.faultPoint,
  });
  const cloud = new SimulatedCloud(new KyselyCloudInventoryRepository(db), clock, { driftRate: 0.02, ...options.simulator });
  const customRules = new CustomRuleService({
    rules: new KyselyCustomRuleRepository(db),
    testOutputs: new KyselyRuleTestOutputRepository(db),
    scans: scanRepository,
    environments: environmentRepository,
    results,
    apiClients: new KyselyApiClientRepository(db),
    clock,
    evaluation,
    quota: quotas.customRules,
    textQuota: quotas.customRuleText,
  });
  // Scans evaluate the organization's enabled custom rules beside the built-in catalog.
  const rules = new RuleSource(customRules.activeRules);
  const scans = new ScanService({ environments: environmentRepository, scans: scanRepository, results, jobs, clock });
  // Notifications and invites go out through the same SMTP server.
  const email = new SmtpEmailSender({ url: options.notifications?.smtpUrl, from: options.notifications?.smtpFrom });
  const notifications = new NotificationService({
    notifications: new KyselyNotificationRepository(db),
    environments: environmentRepository,
    events: eventRepository,
    jobs,
    clock,
    webhook: new HttpWebhookSender({ allowPrivate: options.notifications?.webhookAllowPrivate ?? false }),
    webhookAllowPrivate: options.notifications?.webhookAllowPrivate ?? false,
    email,
    // Webhook bodies carry events exactly as GET /events shows them.
    eventDocument,
    log,
    quota: quotas.notifications,
  });
  jobs.register(
    NOTIFICATION_DELIVERY_JOB,
    (payload, context) => notifications.deliver(payload as DeliveryJob, context.job, context.reached, context.signal),
    (payload, reason, job) => notifications.giveUp(payload as DeliveryJob, job, reason),
  );
  const runner = new ScanRunner({
    environments: environmentRepository,
    scans: scanRepository,
    results,
    events: eventRepository,
    cloud,
    rules,
    clock,
    evaluation,
    afterScan: (scan, events) => notifications.dispatchForScan(scan, events),
  });
  jobs.register(
    SCAN_JOB,
    async (payload, context) => {
      const { orgId, scanId } = payload as { orgId: string; scanId: string };
      const started = performance.now();
      await runner.run(orgId, scanId, context.heartbeat, context.signal);
      if (metrics) {
        const scan = await scanRepository.get(orgId, scanId);
        metrics.scanFinished((performance.now() - started) / 1000, scan?.status === 'SUCCESS' ? scan.summary?.total : undefined);
      }
    },
    (payload, reason) => {
      const { orgId, scanId } = payload as { orgId: string; scanId: string };
      return runner.giveUp(orgId, scanId, reason);
    },
  );
  const conductor = createConductorServices({ database, jobs, cloud, clock, validator: validations, log, processQuota: quotas.processesPerAccount });
  metrics?.watch({
    // A scrape never waits on a busy database: the gauge is left empty instead.
    queueDepth: () => withinMs(jobRepository.countUnfinished(), SCRAPE_WAIT_MS),
    jobKinds: () => jobs.kinds(),
    longPollWaiters: () => conductor.dryRuns.waitingRequests,
  });
  // Credentials and grants of API clients are reused for a moment (see RecentlyRead), with the same bound.
  const apiClientCache = apiClientCacheOptions(options.apiClientCache);
  // One count of failed authentications for the three APIs: an address guessing on one is limited on all.
  const throttle = new AuthenticationThrottle(new KyselyAuthFailureRepository(db), clock, options.authenticationLimits);
  const groupRepository = new KyselyGroupRepository(db, database.dialect);
  const inviteRepository = new KyselyInviteRepository(db);
  // What a console user may do follows their groups, which the access service reads (and reuses for a moment).
  const consoleAuth: ConsoleAuthService = new ConsoleAuthService(
    new KyselyUserRepository(db),
    new KyselyOrganizationRepository(db),
    new KyselySessionRepository(db),
    throttle,
    clock,
    (user) => access.consoleAccessOf(user),
    options.passwordHashing,
  );
  const invitations: InvitationService = new InvitationService({
    invites: inviteRepository,
    users: new KyselyUserRepository(db),
    groups: groupRepository,
    organizations: new KyselyOrganizationRepository(db),
    consoleAuth,
    throttle,
    jobs,
    email,
    clock,
    ...(options.passwordHashing && { hashing: options.passwordHashing }),
    ...(options.publicUrl !== undefined && { publicUrl: options.publicUrl }),
    log,
  });
  jobs.register(
    INVITE_DELIVERY_JOB,
    (payload, context) => invitations.deliver(payload as InviteDeliveryJob, context.reached, context.signal),
    (payload, reason) => invitations.giveUp(payload as InviteDeliveryJob, reason),
  );
  const access: AccessService = new AccessService({
    groups: groupRepository,
    invites: inviteRepository,
    users: new KyselyUserRepository(db),
    clock,
    grantsCache: apiClientCache,
    groupQuota: quotas.groups,
    invitations,
  });
  return {
    ...conductor,
    clock,
    database,
    quotas,
    organizations: new OrganizationService(new KyselyOrganizationRepository(db), clock),
    apiClients: new ApiClientService(new KyselyApiClientRepository(db), clock, throttle, apiClientCache, quotas.apiClients),
    consoleAuth,
    conductorUsers: new ConductorUserService(new KyselyConductorUserRepository(db), clock, { throttle, ...(options.passwordHashing && { hashing: options.passwordHashing }) }),
    validations,
    rbac: new RbacService({
      policies: new KyselyRbacPolicyRepository(db),
      users: new KyselyConductorUserRepository(db),
      clock,
      ...(options.passwordHashing && { hashing: options.passwordHashing }),
      // Policies name accounts by name and processes by alias (or FID), while requests may use either name. An
      // unknown one has no other names: the rule must then match the name given.
      aliases: {
        account: async (ref) => {
          const account = await conductor.conductorAccounts.lookup(ref);
          return account ? [account.name] : [];
        },
        process: (ref) => conductor.processes.find(ref).then((found) => [found.fid, ...(found.alias === null ? [] : [found.alias])], () => []),
      },
    }),
    environments: new EnvironmentService({ environments: environmentRepository, scans: scanRepository, clock, quota: quotas.environments }),
    scans,
    events: new EventService(environmentRepository, eventRepository),
    notifications,
    cloud,
    jobs,
    evaluation,
    scheduler: new ScanScheduler(environmentRepository, scanRepository, jobs, scans, runner, clock, log),
    customRules,
    access,
    invitations,
  };
}
