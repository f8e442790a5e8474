import { timingSafeEqual } from 'node:crypto';
import type { Clock } from '../clock.js';
import { AppError } from '../errors.js';
import { randomToken } from '../ids.js';
import { DEFAULT_QUOTAS, upTo, type Admission } from '../quotas.js';
import { characterCount } from '../text.js';
import type { ApiClient, ApiClientOrder, ApiClientRepository, Page, PageRequest, SortDirection } from '../repositories.js';
import { RecentlyRead, type RecentlyReadOptions } from './recently-read.js';
import { digestMatches, hashSecret, secretDigest } from './secrets.js';
import type { AuthenticationThrottle } from './throttle.js';

/** Who is calling the compliance API. */
export interface ApiClientPrincipal {
  orgId: string;
  clientId: string;
}

/** 32 random bytes: product.md §7 asks for at least that much. */
const SECRET_BYTES = 32;

/** `cl_` and 22 URL-safe characters (16 random bytes): the Basic-auth user name. */
const newClientId = (): string => `cl_${randomToken(16)}`;

/** What a client id given to `createWithSecret` must look like: usable as a Basic-auth user name and in URLs. */
const CLIENT_ID = /^cl_[A-Za-z0-9_-]{1,64}$/;

/** A new client id and secret, not yet any client's: for credentials written down before the client exists. */
export const newApiClientCredentials = (): { clientId: string; secret: string } => ({ clientId: newClientId(), secret: randomToken(SECRET_BYTES) });

function checkName(name: string): string {
  const trimmed = name.trim();
  if (trimmed.length === 0 || characterCount(trimmed) > 100) throw AppError.invalid('name', 'must be 1 to 100 characters');
  return trimmed;
}

export interface IssuedCredentials {
  client: ApiClient;
  /** Shown once; only its hash is kept. */
  secret: string;
}

/** How long a verified credential, or a client's grants, are reused before the database is read again. */
export const API_CLIENT_CACHE_MAX_AGE_MS = 1000;

export interface ApiClientCacheOptions {
  /** Default API_CLIENT_CACHE_MAX_AGE_MS: the bound on how late another process's change takes effect here. */
  maxAgeMs?: number;
  /** Clients remembered at most (default 10 000). */
  maxEntries?: number;
  /** A monotonic clock in milliseconds (default `performance.now`). */
  now?: () => number;
}

/** The cache options with their defaults, for the credential cache here and the grants cache of AccessService. */
export const apiClientCacheOptions = (cache: ApiClientCacheOptions = {}): RecentlyReadOptions => ({
  maxAgeMs: cache.maxAgeMs ?? API_CLIENT_CACHE_MAX_AGE_MS,
  maxEntries: cache.maxEntries ?? 10_000,
  now: cache.now ?? (() => performance.now()),
});

/** A credential that passed the check: the digest of the secret that passed, never the secret. */
interface VerifiedCredential {
  digest: Buffer;
  principal: ApiClientPrincipal;
}

/**
 * API clients: the Basic-auth credential pairs of the compliance API. Last activity is collected in memory and
 * written in batches, so that authenticating a request never costs a database write.
 *
 * Verified credentials are reused for at most a second (`RecentlyRead`), so a request of a known caller does
 * not read the client from the database. Revoking, regenerating or deleting a secret through this process forgets
 * what was cached and takes effect on the next request; the same changes made by another process on the same
 * database (a second server) take effect here within API_CLIENT_CACHE_MAX_AGE_MS, without any message between the
 * processes. (A client's grants are cached the same way by AccessService.)
 */
export class ApiClientService {
  private readonly pendingActivity = new Map<string, number>();
  private readonly verified: RecentlyRead<VerifiedCredential>;

  constructor(
    private readonly clients: ApiClientRepository,
    private readonly clock: Clock,
    private readonly throttle: AuthenticationThrottle,
    cache: RecentlyReadOptions = apiClientCacheOptions(),
    /** API clients one organization may create in the console (MAX_API_CLIENTS_PER_ORG). */
    private readonly quota: number = DEFAULT_QUOTAS.apiClients,
  ) {
    this.verified = new RecentlyRead(cache);
  }

  /**
   * Creates a client without a secret (status Created), as the console does. Names are unique per organization, and
   * an organization that has its quota of clients (however they were made) is refused (see createActive).
   */
  async create(orgId: string, name: string): Promise<ApiClient> {
    const trimmed = checkName(name);
    if (await this.clients.findByName(orgId, trimmed)) throw new AppError('conflict', `an API client named '${trimmed}' exists`);
    const client: ApiClient = {
      clientId: newClientId(),
      orgId,
      name: trimmed,
      status: 'Created',
      secretHash: null,
      secretCreatedAt: null,
      lastActivityAt: null,
      createdAt: this.clock.nowSeconds(),
    };
    await this.clients.insert(client, upTo('apiClients', this.quota, 'this organization'));
    return client;
  }

  async get(orgId: string, clientId: string): Promise<ApiClient> {
    const client = await this.clients.get(clientId);
    if (!client || client.orgId !== orgId) throw AppError.notFound('API client', clientId);
    return client;
  }

  list(orgId: string, order: { by: ApiClientOrder; direction: SortDirection }, page: PageRequest): Promise<Page<ApiClient> & { total: number }> {
    return this.clients.list(orgId, order, page);
  }

  /** Issues a new secret; a previous one stops working at once (the seed allows five minutes). */
  async generateSecret(orgId: string, clientId: string): Promise<IssuedCredentials> {
    const secret = randomToken(SECRET_BYTES);
    const now = this.clock.nowSeconds();
    const updated = await this.clients.modify(clientId, (client) => {
      if (client.orgId !== orgId) throw AppError.notFound('API client', clientId);
      return { ...client, status: 'Active', secretHash: hashSecret(secret), secretCreatedAt: now };
    });
    if (!updated) throw AppError.notFound('API client', clientId);
    this.verified.forget(clientId);
    return { client: updated, secret };
  }

  /** Revokes the active secret at once; the client stays, with status Secret Revoked. */
  async revokeSecret(orgId: string, clientId: string): Promise<ApiClient> {
    const updated = await this.clients.modify(clientId, (client) => {
      if (client.orgId !== orgId) throw AppError.notFound('API client', clientId);
      if (client.status !== 'Active') throw new AppError('conflict', `API client ${clientId} has no active secret to revoke`);
      return { ...client, status: 'Secret Revoked', secretHash: null, secretCreatedAt: null };
    });
    if (!updated) throw AppError.notFound('API client', clientId);
    this.verified.forget(clientId);
    return updated;
  }

  async delete(orgId: string, clientId: string): Promise<void> {
    await this.get(orgId, clientId);
    await this.clients.delete(clientId);
    this.verified.forget(clientId);
  }

  /**
   * Creates a client and issues its first secret at once, as the console does when asked to: within the
   * organization's quota of clients, like `create`.
   */
  createActive(orgId: string, name: string): Promise<IssuedCredentials> {
    return this.issue(orgId, name, undefined, upTo('apiClients', this.quota, 'this organization'));
  }

  /**
   * Creates a client and issues its first secret at once (the operator command does this). `given` names the id and
   * secret instead of new random ones: the demo data gives every database it seeds the same demo client. The
   * operator is not held to the console's quota: it is the one who sets it.
   */
  createWithSecret(orgId: string, name: string, given?: { clientId: string; secret: string }): Promise<IssuedCredentials> {
    return this.issue(orgId, name, given);
  }

  private async issue(orgId: string, name: string, given: { clientId: string; secret: string } | undefined, admit?: Admission): Promise<IssuedCredentials> {
    const trimmed = checkName(name);
    if (await this.clients.findByName(orgId, trimmed)) throw new AppError('conflict', `an API client named '${trimmed}' exists`);
    if (given && !CLIENT_ID.test(given.clientId)) throw AppError.invalid('client_id', "must be 'cl_' and 1 to 64 letters, digits, '-' or '_'");
    if (given && given.secret.length === 0) throw AppError.invalid('client_secret', 'must not be empty');
    if (given && (await this.clients.get(given.clientId))) throw new AppError('conflict', `an API client ${given.clientId} exists`);
    const now = this.clock.nowSeconds();
    const secret = given?.secret ?? randomToken(SECRET_BYTES);
    const client: ApiClient = {
      clientId: given?.clientId ?? newClientId(),
      orgId,
      name: trimmed,
      status: 'Active',
      secretHash: hashSecret(secret),
      secretCreatedAt: now,
      lastActivityAt: null,
      createdAt: now,
    };
    await this.clients.insert(client, admit);
    return { client, secret };
  }

  /**
   * The principal for a valid, active id/secret pair sent from `address`; undefined otherwise, and `rate_limited`
   * when failed attempts reached a limit (AuthenticationThrottle: then the secret is not compared at all). A pair
   * verified less than a second ago is accepted from memory; anything else (a wrong secret included) is checked
   * against the database, so a secret issued by another process works at once. Both paths compare digests in
   * constant time.
   */
  authenticate(clientId: string, secret: string, address: string): Promise<ApiClientPrincipal | undefined> {
    const presented = secretDigest(secret);
    return this.throttle.authenticate(
      { realm: 'compliance', identity: clientId, address, credential: presented.toString('base64') },
      {
        remembered: () => {
          const cached = this.verified.get(clientId);
          if (!cached || !timingSafeEqual(presented, cached.digest)) return undefined;
          this.pendingActivity.set(clientId, this.clock.nowSeconds());
          return cached.principal;
        },
        verify: async () => {
          const ticket = this.verified.begin();
          const client = await this.clients.get(clientId);
          const active = client?.status === 'Active' ? client.secretHash : null;
          if (!digestMatches(presented, active) || !client) return undefined;
          const principal: ApiClientPrincipal = Object.freeze({ orgId: client.orgId, clientId: client.clientId });
          this.verified.store(ticket, client.clientId, { digest: presented, principal });
          this.pendingActivity.set(client.clientId, this.clock.nowSeconds());
          return principal;
        },
      },
    );
  }

  /** After the data changed underneath this service (a database restore): every credential is checked again. */
  forgetAll(): void {
    this.verified.forgetAll();
  }

  /** Writes the collected last-activity times; called on a timer and at shutdown. */
  async flushActivity(): Promise<void> {
    if (this.pendingActivity.size === 0) return;
    const batch = new Map(this.pendingActivity);
    this.pendingActivity.clear();
    await this.clients.touch(batch);
  }
}
