import type { Environment, EnvironmentFilter, EnvironmentOrder, ScanStatus } from './environments/types.js';
import type { Event, EventFilter } from './events/types.js';
import type { DeliveryAttempt, Notification } from './notifications/types.js';
import type { Finding, RuleResult, Scan, ScannedResource, TypeResult } from './scans/types.js';
import type { OrgUser } from './users/types.js';
import type { GroupGrant, NamedGrant } from './access/grants.js';
import type { Group, Invite, NamedRef } from './access/types.js';
import type { CustomRule, CustomRuleFilter, CustomRuleProvider, KeptRuleTestOutput } from './custom-rules/types.js';
import type { Admission, SizeAdmission } from './quotas.js';
import type {
  Account,
  AccountWithCount,
  CloudOperation,
  DryRun,
  HistoryEntry,
  Process,
  ProcessJob,
  ProcessResource,
  TimeWindow,
} from './conductor/types.js';

/**
 * What the domain hands a repository's `modify`: the stored record in, the record to write out. It runs while the
 * row is locked, so it must not wait on the database (on SQLite that would wait for the very connection it holds).
 * Throwing abandons the change.
 */
export type Change<T> = (current: T) => T | Promise<T>;

/**
 * Repository interfaces: what the domain asks of storage. Implementations live beside this file and speak Kysely;
 * the domain never sees a query.
 */
export interface PageRequest {
  offset: number;
  limit: number;
}

/** A page as the layers hand it to one another: read-only, as its items are. */
export interface Page<T> {
  readonly items: readonly T[];
  /** More items exist past this page. */
  readonly hasMore: boolean;
}

export type SortDirection = 'asc' | 'desc';

export interface EnvironmentRepository {
  list(orgId: string, page: PageRequest, order: { by: EnvironmentOrder; direction: SortDirection }, filter: EnvironmentFilter): Promise<Page<Environment>>;
  get(orgId: string, id: string): Promise<Environment | undefined>;
  /**
   * The version the database keeps of the environment: drawn anew at every write of it or of one of its scans,
   * whoever writes (a trigger, not the server). Undefined when the organization has no such environment. One read
   * of one column by key: cheap enough to read before every answer that shows the environment.
   */
  version(orgId: string, id: string): Promise<number | undefined>;
  /**
   * The version the database keeps of the organization's list of environments: drawn anew at every write of one of
   * its environments (created, changed, deleted, a scan starting or ending), whoever writes. 0 before the first.
   */
  listVersion(orgId: string): Promise<number>;
  /**
   * With `admit`, asked with how many environments the organization has while its other counted inserts wait
   * (see Admission): it throws to refuse, and nothing is written.
   */
  insert(env: Environment, admit?: Admission): Promise<void>;
  /**
   * Read-modify-write of the user's settings, atomic against concurrent changes (see locking.ts): `change` gets the
   * stored environment and returns the one to write. Undefined when there is no such environment. The scan state
   * (last scan, status) is left to recordScan, and the schedule anchor only ever moves forward, so an edit and a
   * finishing scan never overwrite each other.
   */
  modify(orgId: string, id: string, change: Change<Environment>): Promise<Environment | undefined>;
  /** Records a scan starting (status IN_PROGRESS) or ending; an ending scan moves the schedule anchor to its end. */
  recordScan(environmentId: string, scan: { scanId: string; startedAt: number; status: ScanStatus; finishedAt?: number }): Promise<void>;
  /** Environments whose scheduled scan is due at `now` and that have no scan in progress, across organizations. */
  dueForScan(now: number, limit: number): Promise<Environment[]>;
  /** Also removes the environment's scans and everything that hangs off them. */
  delete(orgId: string, id: string): Promise<boolean>;
}

export interface ScanFilter {
  statuses?: readonly string[];
  rangeFrom?: number;
  rangeTo?: number;
}

export interface ScanRepository {
  get(orgId: string, id: string): Promise<Scan | undefined>;
  /**
   * The version the database keeps of the scan's environment, which it draws anew at every write of the scan (its
   * status, its summary) as at every write of the environment and of its other scans, whoever writes. Undefined
   * when the organization has no such scan. One read by key, like EnvironmentRepository.version.
   */
  environmentVersion(orgId: string, id: string): Promise<number | undefined>;
  /**
   * In one transaction: inserts the scan, marks it as the environment's scan in progress and queues `job`, which
   * runs it, so a crash leaves all three or none. Refuses (returns false, having written nothing) when the
   * environment already has a scan in progress.
   */
  insert(scan: Scan, job: Job): Promise<boolean>;
  update(scan: Scan): Promise<void>;
  list(orgId: string, environmentId: string, filter: ScanFilter, page: PageRequest, direction: SortDirection): Promise<Page<Scan>>;
  /** The newest successful scan of the environment other than `except`, created no later than `notAfter`. */
  previousSuccess(orgId: string, environmentId: string, notAfter: number, except?: string): Promise<Scan | undefined>;
  inProgress(): Promise<Scan[]>;
}

/** Scan results, written in batches while a scan runs and read page by page. */
export interface ScanResultRepository {
  /** Removes whatever an interrupted attempt of the scan wrote. */
  clear(scanId: string): Promise<void>;
  addBatch(scanId: string, resources: readonly ScannedResource[], findings: readonly Finding[]): Promise<void>;
  saveAggregates(scanId: string, rules: readonly RuleResult[], types: readonly TypeResult[]): Promise<void>;
  ruleResults(scanId: string): Promise<RuleResult[]>;
  /** Up to `limitPerRule` findings of each rule, by resource id (the rule results hold how many there are). */
  findingsOfRules(scanId: string, ruleIds: readonly string[], limitPerRule: number): Promise<Map<string, Finding[]>>;
  typeResults(scanId: string, types: readonly string[] | null, page: PageRequest): Promise<Page<TypeResult>>;
  /**
   * Findings of the first `limit` failing resources of one type, limited to `ruleIds` when given, and, with
   * `count`, how many resources fail (a count costs a pass over all the type's findings, so it is asked only when
   * the stored aggregate cannot answer). Each finding as its rule and message: the resource and its type are the
   * key and the question, and a page of types reads thousands of them.
   */
  findingsOfType(
    scanId: string,
    type: string,
    ruleIds: readonly string[] | null,
    limit: number,
    count: boolean,
  ): Promise<{ resources: Map<string, Array<Pick<Finding, 'ruleId' | 'message'>>>; total: number | null }>;
  /** Scanned resources in resource id order, after `after`. */
  resourcesPage(scanId: string, after: string | null, limit: number, types?: readonly string[]): Promise<ScannedResource[]>;
  /** Findings in (resource id, rule id) order, after the given position. */
  findingsPage(scanId: string, after: { resourceId: string; ruleId: string } | null, limit: number): Promise<Finding[]>;
  resourcesByIds(scanId: string, resourceIds: readonly string[]): Promise<Map<string, ScannedResource>>;
  findingsOfResources(scanId: string, resourceIds: readonly string[]): Promise<Finding[]>;
}

export interface EventRepository {
  insertMany(events: readonly Event[]): Promise<void>;
  clearScan(scanId: string): Promise<void>;
  list(orgId: string, environmentId: string, filter: EventFilter, page: PageRequest): Promise<Page<Event>>;
  ofScan(scanId: string): Promise<Event[]>;
}

export interface NotificationRepository {
  /** Oldest first. */
  list(orgId: string, page: PageRequest): Promise<Page<Notification>>;
  get(orgId: string, id: string): Promise<Notification | undefined>;
  /** Notifications of the organization that watch the environment, by name or as one of all environments. */
  watching(orgId: string, environmentId: string): Promise<Notification[]>;
  /** With `admit`, asked with how many notifications the organization has, as EnvironmentRepository.insert does. */
  insert(notification: Notification, admit?: Admission): Promise<void>;
  /**
   * Read-modify-write of the user's settings and watched environments, atomic against concurrent changes (see
   * locking.ts); undefined when there is no such notification. The delivery outcome is left to recordAttempt.
   */
  modify(orgId: string, id: string, change: Change<Notification>): Promise<Notification | undefined>;
  /** Also removes its recorded attempts. */
  delete(orgId: string, id: string): Promise<boolean>;
  /**
   * Records one attempt and its outcome on the notification: last_delivery_at moves to the attempt, last_error
   * becomes `lastError` unless that is undefined (kept). False, and nothing recorded, when this attempt was
   * recorded already, when it is a success and the delivery has one already, or when the notification is gone.
   */
  recordAttempt(attempt: DeliveryAttempt, lastError: string | null | undefined): Promise<boolean>;
  /** Whether an attempt of the delivery was recorded as succeeded. */
  deliverySucceeded(deliveryId: string): Promise<boolean>;
  /** Newest first. */
  listAttempts(notificationId: string, page: PageRequest): Promise<Page<DeliveryAttempt>>;
}

export interface Organization {
  id: string;
  name: string;
  createdAt: number;
}

export interface OrganizationRepository {
  findByName(name: string): Promise<Organization | undefined>;
  get(id: string): Promise<Organization | undefined>;
  /** False when an organization of that name exists already (another process may have created it first). */
  insert(org: Organization): Promise<boolean>;
}

export type ApiClientStatus = 'Created' | 'Active' | 'Secret Revoked';

export interface ApiClient {
  clientId: string;
  orgId: string;
  name: string;
  status: ApiClientStatus;
  /** SHA-256 of the secret, hex; the secret itself is never stored. */
  secretHash: string | null;
  secretCreatedAt: number | null;
  lastActivityAt: number | null;
  createdAt: number;
}

export const API_CLIENT_ORDER = ['name', 'client_id', 'secret_age', 'last_activity'] as const;
export type ApiClientOrder = (typeof API_CLIENT_ORDER)[number];

export interface ApiClientRepository {
  get(clientId: string): Promise<ApiClient | undefined>;
  findByName(orgId: string, name: string): Promise<ApiClient | undefined>;
  list(orgId: string, order: { by: ApiClientOrder; direction: SortDirection }, page: PageRequest): Promise<Page<ApiClient> & { total: number }>;
  delete(clientId: string): Promise<void>;
  /** With `admit`, asked with how many API clients the organization has, as EnvironmentRepository.insert does. */
  insert(client: ApiClient, admit?: Admission): Promise<void>;
  /**
   * Read-modify-write of the client's name, status and secret, atomic against concurrent changes (see locking.ts);
   * undefined when there is no such client. Last activity is left to touch.
   */
  modify(clientId: string, change: Change<ApiClient>): Promise<ApiClient | undefined>;
  /** Records use in bulk: last activity is flushed periodically, not written on every request. */
  touch(activity: ReadonlyMap<string, number>): Promise<void>;
}

export interface ConductorUser {
  name: string;
  /** The secret's salted scrypt hash (`scrypt$…`), or from before those its SHA-256 (hex), rehashed on its next use. */
  secretHash: string | null;
  secretCreatedAt: number | null;
  createdAt: number;
}

export interface ConductorUserRepository {
  get(name: string): Promise<ConductorUser | undefined>;
  upsert(user: ConductorUser): Promise<void>;
  list(): Promise<ConductorUser[]>;
  /** Replaces an existing user's secret; false when there is no such user. */
  setSecret(name: string, secretHash: string, secretCreatedAt: number): Promise<boolean>;
  /** Stores another hash of the same secret, only while `expected` is still stored; false when it is not. */
  replaceSecretHash(name: string, expected: string, replacement: string): Promise<boolean>;
}

export type JobStatus = 'queued' | 'running' | 'succeeded' | 'failed';

export interface Job {
  id: string;
  kind: string;
  payload: unknown;
  status: JobStatus;
  /** Claims so far, including the current one. */
  attempts: number;
  maxAttempts: number;
  /** Milliseconds: not before this time. */
  runAt: number;
  leaseOwner: string | null;
  leaseExpiresAt: number | null;
  lastError: string | null;
  createdAt: number;
  updatedAt: number;
  finishedAt: number | null;
  /** The request whose work this is (X-Request-Id), when a request caused it. */
  requestId: string | null;
  /**
   * The party the job works for (see jobs/tenants.ts): the queue serves tenants in turn. Always set on a job read
   * back; one written without it shares the tenant `shared`.
   */
  tenant?: string;
}

/**
 * The most jobs of a kind that one tenant may have running at once, by kind, across every worker sharing the
 * database: a queued job of a kind at its limit waits, and other work goes first.
 */
export type RunningLimits = Readonly<Record<string, number>>;

/** How many jobs of one kind are waiting (queued, or waiting for a retry) or running. */
export interface JobCount {
  kind: string;
  status: 'queued' | 'running';
  count: number;
}

export interface JobRepository {
  /** Queues the job; with a dedupe key already queued once, returns false and queues nothing. */
  insert(job: Job, dedupeKey?: string): Promise<boolean>;
  get(id: string): Promise<Job | undefined>;
  /**
   * Atomically takes a job and leases it to `owner` until `leaseUntil`: first one whose lease ran out because its
   * worker stopped (the oldest), otherwise a due queued job of the tenant served longest ago that has one it may
   * run, its oldest such job. A queued job of a kind at its tenant's limit in `limits` is passed over. Concurrent
   * claims never return the same job, nor together exceed a limit. Jobs in `running` (those `owner` is running
   * itself) are never taken: a lease checked by owner could not tell two attempts of one owner apart.
   */
  claim(owner: string, nowMs: number, leaseUntil: number, running?: readonly string[], limits?: RunningLimits): Promise<Job | undefined>;
  /**
   * Leases to `owner` the running jobs whose lease ran out and that have no attempts left, for it to give them up
   * (settle what they stand for, then `fail` them), except those in `running`. Returns those it took; concurrent
   * calls never take the same job.
   */
  claimAbandoned(owner: string, nowMs: number, leaseUntil: number, running?: readonly string[]): Promise<Job[]>;
  /** The following only act while `owner` still holds the lease, so a worker that lost it cannot finish twice. */
  extendLease(id: string, owner: string, leaseUntil: number, nowMs: number): Promise<boolean>;
  complete(id: string, owner: string, nowMs: number): Promise<boolean>;
  retry(id: string, owner: string, error: string, runAt: number, nowMs: number): Promise<boolean>;
  fail(id: string, owner: string, error: string, nowMs: number): Promise<boolean>;
  /** Queues the job again, due now, with the attempt `owner` holds not counted (its worker is stopping). */
  handBack(id: string, owner: string, nowMs: number): Promise<boolean>;
  /** Jobs not finished yet, counted by kind and status (the queue's depth). */
  countUnfinished(): Promise<JobCount[]>;
}

export interface CloudAccountRecord {
  key: string;
  provider: string;
  nextSeq: number;
  driftSteps: number;
  collections: number;
  createdAt: number;
}

export interface CloudResourceRecord {
  accountKey: string;
  resourceId: string;
  seq: number;
  type: string;
  region: string | null;
  resourceGroup: string | null;
  name: string;
  tags: Record<string, string>;
  properties: Record<string, unknown>;
  /** False for resources another system manages: remediation cannot bring them back. */
  revertible: boolean;
  managedBy: string | null;
  updatedAt: number;
}

export interface InventoryFilter {
  types: readonly string[];
  /** null: every region. Global resources (region null) always match. */
  regions: readonly string[] | null;
  /** null: every resource group (or none, for providers without groups). */
  resourceGroups: readonly string[] | null;
}

/** The simulated cloud's persisted inventory. */
export interface CloudInventoryRepository {
  getAccount(key: string): Promise<CloudAccountRecord | undefined>;
  /**
   * Creates the account with its generated inventory (taken batch by batch; the seqs are the generator's) in one
   * transaction, so that a crash leaves the whole account or none of it. False, having written nothing, when
   * another process created it first.
   */
  createAccount(account: CloudAccountRecord, inventory: Iterable<readonly CloudResourceRecord[]>): Promise<boolean>;
  /** Counts one listing of the account, and one drift step when `drifted`; adds to the stored counts. */
  recordCollection(key: string, drifted: boolean): Promise<void>;
  /**
   * Adds resources to an existing account, giving them the account's next seqs: taking the seqs and inserting the
   * rows happen in one transaction with the account row locked, so concurrent additions (from any process) never
   * collide, and a crash leaves either both or neither. A seq already taken (a counter left behind by an older
   * crash) is skipped. A resource whose id the account already holds is left as it is; returns those inserted.
   */
  insertNewResources(key: string, resources: readonly Omit<CloudResourceRecord, 'seq'>[]): Promise<CloudResourceRecord[]>;
  /**
   * One page after the given position, type by type in the order of their names (`filter.types` sorted) and by
   * resource id within a type.
   */
  page(key: string, filter: InventoryFilter, after: { type: string; resourceId: string } | null, limit: number): Promise<CloudResourceRecord[]>;
  get(key: string, resourceId: string): Promise<CloudResourceRecord | undefined>;
  getBySeq(key: string, seq: number): Promise<CloudResourceRecord | undefined>;
  update(resource: CloudResourceRecord): Promise<void>;
  delete(key: string, resourceId: string): Promise<void>;
  count(key: string): Promise<number>;
}

export interface UserRepository {
  /** Emails are unique across organizations: an email signs in to exactly one organization. */
  findByEmail(email: string): Promise<OrgUser | undefined>;
  get(orgId: string, id: string): Promise<OrgUser | undefined>;
  /** False when a user has that email already (another process may have created it first). */
  insert(user: OrgUser): Promise<boolean>;
  update(user: OrgUser): Promise<void>;
  /** The organization's users by creation time, optionally only the one with `email`. */
  list(orgId: string, filter: { email?: string }, page: PageRequest, direction: SortDirection): Promise<Page<OrgUser>>;
  /** Those of `ids` that are users of the organization. */
  getMany(orgId: string, ids: readonly string[]): Promise<OrgUser[]>;
}

/** The two quotas a new custom rule counts against: how many rules, and how much rule text. */
export interface CustomRuleAdmission {
  rules: Admission;
  text: SizeAdmission;
}

export interface CustomRuleRepository {
  list(orgId: string, filter: CustomRuleFilter, page: PageRequest): Promise<Page<CustomRule>>;
  get(orgId: string, id: string): Promise<CustomRule | undefined>;
  /**
   * False when the organization has a rule of that name already (names compare case-insensitively). With `admit`,
   * its `rules` is asked with how many rules the organization has, as EnvironmentRepository.insert does, and its
   * `text` with the characters of rule text the organization's rules hold with the new one and without it.
   */
  insert(rule: CustomRule, admit?: CustomRuleAdmission): Promise<boolean>;
  /**
   * Read-modify-write of a rule, atomic against concurrent changes (see locking.ts): undefined when there is no such
   * rule, `name_taken` when another rule of the organization has the new name. With `admitText`, asked as `insert`
   * asks `admit.text`, with the rule as changed and as it was, while the organization's other writes of rules wait.
   */
  modify(orgId: string, id: string, change: Change<CustomRule>, admitText?: SizeAdmission): Promise<CustomRule | 'name_taken' | undefined>;
  delete(orgId: string, id: string): Promise<boolean>;
  /** The organization's ENABLED rules that apply to the provider, by name. */
  enabledFor(orgId: string, provider: CustomRuleProvider): Promise<CustomRule[]>;
  /** Marks a rule that can no longer run INVALID, unless it was changed or disabled meanwhile. */
  markInvalid(orgId: string, id: string, ruleText: string): Promise<void>;
}

/** Answers of rule tests kept for download. */
export interface RuleTestOutputRepository {
  /**
   * Keeps `output` and, in the same transaction, drops the organization's outputs created before `keepSince` and
   * all but its `keepNewest` newest.
   */
  keep(output: KeptRuleTestOutput, keepSince: number, keepNewest: number): Promise<void>;
  /** The organization's output `id`, unless created before `since`. */
  get(orgId: string, id: string, since: number): Promise<KeptRuleTestOutput | undefined>;
}

export interface GroupRepository {
  list(orgId: string, page: PageRequest, direction: SortDirection): Promise<Page<Group>>;
  /**
   * False when the organization has a group of that name already (names compare case-insensitively). With `admit`,
   * asked with how many groups the organization has, as EnvironmentRepository.insert does.
   */
  insert(group: Group, admit?: Admission): Promise<boolean>;
  /** Names of those of `ids` that are groups of the organization. */
  names(orgId: string, ids: readonly string[]): Promise<Map<string, string>>;
  /** Names of those of `ids` that are environments of the organization. */
  environmentNames(orgId: string, ids: readonly string[]): Promise<Map<string, string>>;
  /** Names of those of `ids` that are API clients of the organization. */
  apiClientNames(orgId: string, ids: readonly string[]): Promise<Map<string, string>>;
  /** The grants of the groups the API client belongs to (none: the client is unrestricted). */
  grantsOfApiClient(clientId: string): Promise<GroupGrant[]>;
  /** The grants of those of `ids` that are groups of the organization. */
  grantsOfGroups(orgId: string, ids: readonly string[]): Promise<GroupGrant[]>;
  /** Each of the users ends up a member of exactly `groupIds`, all in one transaction. */
  replaceMemberships(userIds: readonly string[], groupIds: readonly string[]): Promise<void>;
  groupsOfUsers(userIds: readonly string[]): Promise<Map<string, NamedRef[]>>;
  /** The groups of the organization among `ids`, each with its name and grant. */
  namedGrants(orgId: string, ids: readonly string[]): Promise<NamedGrant[]>;
  /** The groups the user belongs to, each with its name and grant. */
  namedGrantsOfUser(userId: string): Promise<NamedGrant[]>;
}

export interface InviteRepository {
  /**
   * False when the organization has an invite for the address that is still pending at `now`. `delivery`, the job
   * that emails the invite, is written with it or not at all.
   */
  insert(invite: Invite, now: number, delivery?: Job): Promise<boolean>;
  get(orgId: string, id: string): Promise<Invite | undefined>;
  /** By creation time, optionally only the invites of `email`. */
  list(orgId: string, filter: { email?: string }, page: PageRequest, direction: SortDirection): Promise<Page<Invite>>;
  /** Makes `tokenHash` the only token of the invite, while it is pending at `now`; false when it is not. */
  setTokenHash(orgId: string, id: string, tokenHash: string, now: number): Promise<boolean>;
  /**
   * The invite's email was given up with `reason`: while pending at `now`, it expires then (its link stops working,
   * its address may be invited again); false when it was not pending.
   */
  giveUpDelivery(orgId: string, id: string, reason: string, now: number): Promise<boolean>;
  /** The invite whose latest link carries the token of that hash, whatever its state. */
  findByTokenHash(tokenHash: string): Promise<StoredInvite | undefined>;
  /**
   * Accepts the invite in one transaction: the invite `ACCEPTED` (only while still pending under `tokenHash`), the
   * user created, and made a member of the invite's groups that still exist. Nothing changes unless all of it does:
   * `not_pending` (accepted already, expired, or its token replaced), `no_groups` (every group deleted),
   * `email_taken` (a user has the address).
   */
  accept(acceptance: InviteAcceptance): Promise<'accepted' | 'not_pending' | 'no_groups' | 'email_taken'>;
}

/** An invite as stored: with the hash of its latest link's token. */
export interface StoredInvite extends Invite {
  tokenHash: string | null;
}

export interface InviteAcceptance {
  invite: Invite;
  tokenHash: string;
  /** The new user, with the invite's organization, email and id. */
  user: OrgUser;
  now: number;
}

export interface StoredSession {
  tokenHash: string;
  userId: string;
  orgId: string;
  csrfToken: string;
  createdAt: number;
  expiresAt: number;
}

export interface SessionRepository {
  insert(session: StoredSession): Promise<void>;
  get(tokenHash: string): Promise<StoredSession | undefined>;
  delete(tokenHash: string): Promise<void>;
}

/** Per key, the failures counted and the time of the oldest of them; keys without failures are absent. */
export type AuthFailureCounts = ReadonlyMap<string, { count: number; oldest: number }>;

/** Failed authentications on every API, each recorded under the keys of the limits it counts against. */
export interface AuthFailureRepository {
  /** Records one attempt under each key; it counts as a failure until forgiven. */
  record(keys: readonly string[], at: number, attemptId: string): Promise<void>;
  /** Removes the attempt's rows: its credential was right, or it was refused before being checked. */
  forgive(attemptId: string): Promise<void>;
  /** The failures of each of `keys` (one to three) after `since`, in one read. */
  count(keys: readonly string[], since: number): Promise<AuthFailureCounts>;
  /** Deletes every failure at or before `before`. */
  prune(before: number): Promise<void>;
}

export interface ConductorAccountRepository {
  /** Ordered by name, with the number of live processes of each. */
  list(): Promise<AccountWithCount[]>;
  /** By name, or else by account id. */
  find(nameOrId: string): Promise<AccountWithCount | undefined>;
  /** `name` or `account_id` when another account already has it. */
  insert(account: Account): Promise<'ok' | 'name' | 'account_id'>;
  delete(name: string): Promise<void>;
}

/**
 * What a job learnt about one resource: its cloud id and status (and, for a resource it adopted, the desired state
 * it was adopted with: the resource becomes `adopted`), or that the resource is gone and can be forgotten.
 */
export type ResourceProgress =
  | { id: string; resourceId: string | null; status: ProcessResource['status']; adopted?: Pick<ProcessResource, 'properties' | 'tags'> }
  | { id: string; forget: true };

/** A change to a process, written at once or not at all. */
export interface ProcessChange {
  /** The process as the change leaves it; written only while the stored version is `expectedVersion`. */
  process: Process;
  expectedVersion: number;
  newResources?: ProcessResource[];
  /** New desired state of existing resources; their cloud side (resource id, status) is left to jobs. */
  desiredResources?: ProcessResource[];
  history?: HistoryEntry[];
  newJobs?: ProcessJob[];
  finishedJob?: ProcessJob;
}

export interface ProcessRepository {
  /**
   * False when the alias is taken. With `admit`, asked with how many processes neither killed nor released the
   * process's account has while the account's other counted inserts wait (see Admission): it throws to refuse, and
   * nothing is written.
   */
  insert(process: Process, resources: ProcessResource[], history: HistoryEntry[], job: ProcessJob, admit?: Admission): Promise<boolean>;
  /** `stale` when the process changed since `expectedVersion`, `alias_taken` when another process has the alias. */
  apply(change: ProcessChange): Promise<'ok' | 'stale' | 'alias_taken'>;
  get(fid: string): Promise<Process | undefined>;
  findByAlias(alias: string): Promise<Process | undefined>;
  /** Processes neither killed nor released, oldest first, optionally of one account, with their resource counts. */
  listLive(accountName: string | undefined): Promise<Array<{ process: Process; resourceCount: number }>>;
  /** Running processes with enforcement on, in fid order after `afterFid`. */
  listEnforced(afterFid: string | null, limit: number): Promise<Process[]>;
  /** Every resource row, retired ones too, in composition order. */
  resources(fid: string): Promise<ProcessResource[]>;
  /** A job's progress on one resource: the cloud operation it performed (if any) and the resource's new cloud side. */
  recordProgress(operation: CloudOperation | null, resource: ResourceProgress): Promise<void>;
  getJob(id: string): Promise<ProcessJob | undefined>;
  /** Writes the job's status, message and end. */
  updateJob(job: ProcessJob): Promise<void>;
  /** Notes the queue job that runs it; touches nothing else, since the job may be running already. */
  attachQueueJob(id: string, queueJobId: string): Promise<void>;
  /** A process's jobs by ordinal. */
  jobs(fid: string): Promise<ProcessJob[]>;
  /** Jobs not finished yet, of every process. */
  unfinishedJobs(limit: number): Promise<ProcessJob[]>;
  history(fid: string, window: TimeWindow): Promise<HistoryEntry[]>;
  historyEntry(fid: string, id: string): Promise<HistoryEntry | undefined>;
  latestHistoryEntry(fid: string): Promise<HistoryEntry | undefined>;
  /** Oldest first; only `jobIds` when given. */
  operations(fid: string, filter: { jobIds?: readonly string[]; window: TimeWindow }): Promise<CloudOperation[]>;
}

export interface DryRunRepository {
  /** Inserts the dry-run and queues `job`, which runs it, in one transaction: neither exists without the other. */
  insert(dryRun: DryRun, job: Job): Promise<void>;
  get(id: string): Promise<DryRun | undefined>;
  /** Writes the status, errors, plan and end. */
  update(dryRun: DryRun): Promise<void>;
  /** Those of `ids` that reached SUCCEEDED or FAILED. */
  finishedAmong(ids: readonly string[]): Promise<string[]>;
}
