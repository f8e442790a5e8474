import type { Environment, EnvironmentFilter, EnvironmentOrder, ScanStatus } from '../../domain/environments/types.js';

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
  update(env: Environment): Promise<void>;
  /** Also removes the environment's scans and everything that hangs off them. */
  delete(orgId: string, id: string): Promise<boolean>;
}

export interface ScanRecord {
  id: string;
  orgId: string;
  environmentId: string;
  status: ScanStatus;
  message: string | null;
  remediationError: boolean;
  createdAt: number;
  updatedAt: number;
  finishedAt: number | null;
}

export interface ScanRepository {
  get(orgId: string, id: string): Promise<ScanRecord | undefined>;
  insert(scan: ScanRecord): Promise<void>;
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
