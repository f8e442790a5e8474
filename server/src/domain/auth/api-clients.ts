import type { Clock } from '../clock.js';
import { AppError } from '../errors.js';
import { randomToken } from '../ids.js';
import type { ApiClient, ApiClientRepository } from '../../storage/repositories/types.js';
import { hashSecret, secretMatches } from './secrets.js';

/** Who is calling the compliance API. */
export interface ApiClientPrincipal {
  orgId: string;
  clientId: string;
}

/** 32 random bytes: product.md §7 asks for at least that much. */
const SECRET_BYTES = 32;

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

  /** Creates a client and issues its first secret at once (the operator command does this). */
  async createWithSecret(orgId: string, name: string): Promise<IssuedCredentials> {
    const trimmed = name.trim();
    if (trimmed.length === 0 || trimmed.length > 100) throw AppError.invalid('name', 'must be 1 to 100 characters');
    const now = this.clock.nowSeconds();
    const secret = randomToken(SECRET_BYTES);
    const client: ApiClient = {
      clientId: `cl_${randomToken(16)}`,
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
