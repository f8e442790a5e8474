import type { Clock } from '../clock.js';
import { newId } from '../ids.js';
import type { Organization, OrganizationRepository } from '../repositories.js';

export const DEFAULT_ORGANIZATION = 'default';

export class OrganizationService {
  constructor(
    private readonly organizations: OrganizationRepository,
    private readonly clock: Clock,
  ) {}

  /** The organization with this name, created on first use. */
  async ensure(name: string): Promise<Organization> {
    const existing = await this.organizations.findByName(name);
    if (existing) return existing;
    const org: Organization = { id: newId(), name, createdAt: this.clock.nowSeconds() };
    if (await this.organizations.insert(org)) return org;
    // Another process created it first (several servers share one database).
    return (await this.organizations.findByName(name))!;
  }
}
