import type { Clock } from '../clock.js';
import { AppError } from '../errors.js';
import { randomToken } from '../ids.js';
import type { ApiClient, ApiClientOrder, ApiClientRepository, Page, PageRequest, SortDirection } from '../../storage/repositories/types.js';
import { hashSecret, secretMatches } from './secrets.js';

/** Who is calling the compliance API. */
export interface ApiClientPrincipal {
  orgId: string;
  clientId: string;
}

/** 32 random bytes: product.md §7 asks for at least that much. */
const SECRET_BYTES = 32;

/** `cl_` and 22 URL-safe characters (16 random bytes): the Basic-auth user name. */
const newClientId = (): string => `cl_${randomToken(16)}`;

function checkName(name: string): string {
  const trimmed = name.trim();
  if (trimmed.length === 0 || trimmed.length > 100) throw AppError.invalid('name', 'must be 1 to 100 characters');
  return trimmed;
}

export interface IssuedCredentials {
  client: ApiClient;
  /** Shown once; only its hash is kept. */
  secret: string;
}

/**
 * API clients: the Basic-auth credential pairs of the compliance API. Last activity is collected in memory and
 * written in batches, so that authenticating a request never costs a database write.
 */
export class ApiClientService {
  private readonly pendingActivity = new Map<string, number>();

  constructor(
    private readonly clients: ApiClientRepository,
    private readonly clock: Clock,
  ) {}

  /** Creates a client without a secret (status Created), as the console does. Names are unique per organization. */
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
    await this.clients.insert(client);
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
    const client = await this.get(orgId, clientId);
    const secret = randomToken(SECRET_BYTES);
    const updated: ApiClient = { ...client, status: 'Active', secretHash: hashSecret(secret), secretCreatedAt: this.clock.nowSeconds() };
    await this.clients.update(updated);
    return { client: updated, secret };
  }

  /** Revokes the active secret at once; the client stays, with status Secret Revoked. */
  async revokeSecret(orgId: string, clientId: string): Promise<ApiClient> {
    const client = await this.get(orgId, clientId);
    if (client.status !== 'Active') throw new AppError('conflict', `API client ${clientId} has no active secret to revoke`);
    const updated: ApiClient = { ...client, status: 'Secret Revoked', secretHash: null, secretCreatedAt: null };
    await this.clients.update(updated);
    return updated;
  }

  async delete(orgId: string, clientId: string): Promise<void> {
    await this.get(orgId, clientId);
    await this.clients.delete(clientId);
  }

  /** Creates a client and issues its first secret at once (the operator command does this). */
  async createWithSecret(orgId: string, name: string): Promise<IssuedCredentials> {
    const trimmed = checkName(name);
    if (await this.clients.findByName(orgId, trimmed)) throw new AppError('conflict', `an API client named '${trimmed}' exists`);
    const now = this.clock.nowSeconds();
    const secret = randomToken(SECRET_BYTES);
    const client: ApiClient = {
      clientId: newClientId(),
      orgId,
      name: trimmed,
      status: 'Active',
      secretHash: hashSecret(secret),
      secretCreatedAt: now,
      lastActivityAt: null,
      createdAt: now,
    };
    await this.clients.insert(client);
    return { client, secret };
  }

  /** The principal for a valid, active id/secret pair; undefined otherwise. */
  async authenticate(clientId: string, secret: string): Promise<ApiClientPrincipal | undefined> {
    const client = await this.clients.get(clientId);
    const active = client?.status === 'Active' ? client.secretHash : null;
    if (!secretMatches(secret, active) || !client) return undefined;
    this.pendingActivity.set(client.clientId, this.clock.nowSeconds());
    return { orgId: client.orgId, clientId: client.clientId };
  }

  /** Writes the collected last-activity times; called on a timer and at shutdown. */
  async flushActivity(): Promise<void> {
    if (this.pendingActivity.size === 0) return;
    const batch = new Map(this.pendingActivity);
    this.pendingActivity.clear();
    await this.clients.touch(batch);
  }
}
