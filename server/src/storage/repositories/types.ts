import type { Environment, EnvironmentFilter, EnvironmentOrder, ScanStatus } from '../../domain/environments/types.js';
import type { Event, EventFilter } from '../../domain/events/types.js';
import type { Finding, RuleResult, Scan, ScannedResource, TypeResult } from '../../domain/scans/types.js';
import type { OrgUser } from '../../domain/users/types.js';

/**
 * Repository interfaces: what the domain asks of storage. Implementations live beside this file and speak Kysely;
 * the domain never sees a query.
 */
export interface PageRequest {
  offset: number;
  limit: number;
}

export interface Page<T> {
  items: T[];
  /** More items exist past this page. */
  hasMore: boolean;
}

export type SortDirection = 'asc' | 'desc';

export interface EnvironmentRepository {
  list(orgId: string, page: PageRequest, order: { by: EnvironmentOrder; direction: SortDirection }, filter: EnvironmentFilter): Promise<Page<Environment>>;
  get(orgId: string, id: string): Promise<Environment | undefined>;
  insert(env: Environment): Promise<void>;
  /**
   * Writes the user's settings. The scan state (last scan, status) is left to recordScan, and the schedule anchor
   * only ever moves forward, so an edit and a finishing scan never overwrite each other.
   */
  update(env: Environment): Promise<void>;
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
  /** Refuses (returns false) when the environment already has a scan in progress. */
  insert(scan: Scan): Promise<boolean>;
  update(scan: Scan): Promise<void>;
  list(orgId: string, environmentId: string, filter: ScanFilter, page: PageRequest, direction: SortDirection): Promise<Page<Scan>>;
  /** The newest successful scan of the environment other than `except`, created no later than `notAfter`. */
  previousSuccess(environmentId: string, notAfter: number, except?: string): Promise<Scan | undefined>;
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
   * the stored aggregate cannot answer).
   */
  findingsOfType(scanId: string, type: string, ruleIds: readonly string[] | null, limit: number, count: boolean): Promise<{ resources: Map<string, Finding[]>; total: number | null }>;
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
}

export interface Organization {
  id: string;
  name: string;
  createdAt: number;
}

export interface OrganizationRepository {
  findByName(name: string): Promise<Organization | undefined>;
  get(id: string): Promise<Organization | undefined>;
  insert(org: Organization): Promise<void>;
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

export interface ApiClientRepository {
  get(clientId: string): Promise<ApiClient | undefined>;
  insert(client: ApiClient): Promise<void>;
  update(client: ApiClient): Promise<void>;
  /** Records use in bulk: last activity is flushed periodically, not written on every request. */
  touch(activity: ReadonlyMap<string, number>): Promise<void>;
}

export interface ConductorUser {
  name: string;
  secretHash: string | null;
  secretCreatedAt: number | null;
  createdAt: number;
}

export interface ConductorUserRepository {
  get(name: string): Promise<ConductorUser | undefined>;
  upsert(user: ConductorUser): Promise<void>;
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
}

export interface JobRepository {
  insert(job: Job): Promise<void>;
  get(id: string): Promise<Job | undefined>;
  /**
   * Atomically takes the oldest due job, or one whose lease ran out because its worker stopped, and leases it to
   * `owner` until `leaseUntil`. Concurrent claims never return the same job.
   */
  claim(owner: string, nowMs: number, leaseUntil: number): Promise<Job | undefined>;
  /** Fails running jobs whose lease ran out and that have no attempts left, with `message`. Returns how many. */
  failAbandoned(nowMs: number, message: (attempts: number) => string): Promise<number>;
  /** The following only act while `owner` still holds the lease, so a worker that lost it cannot finish twice. */
  extendLease(id: string, owner: string, leaseUntil: number, nowMs: number): Promise<boolean>;
  complete(id: string, owner: string, nowMs: number): Promise<boolean>;
  retry(id: string, owner: string, error: string, runAt: number, nowMs: number): Promise<boolean>;
  fail(id: string, owner: string, error: string, nowMs: number): Promise<boolean>;
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
  /** Creates the account; false when another process created it first. */
  insertAccount(account: CloudAccountRecord): Promise<boolean>;
  updateAccount(account: CloudAccountRecord): Promise<void>;
  insertResources(resources: readonly CloudResourceRecord[]): Promise<void>;
  /** One page in (type, resource id) order, after the given position. */
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
  insert(user: OrgUser): Promise<void>;
  update(user: OrgUser): Promise<void>;
}
