import { AppError } from '../errors.js';
import type { EnvironmentRepository, EventRepository, Page, PageRequest } from '../repositories.js';
import type { Event, EventFilter } from './types.js';

/** Compliance, drift and remediation events of an environment, newest first. */
export class EventService {
  constructor(
    private readonly environments: EnvironmentRepository,
    private readonly events: EventRepository,
  ) {}

  async list(orgId: string, environmentId: string, filter: EventFilter, page: PageRequest): Promise<Page<Event>> {
    if (!(await this.environments.get(orgId, environmentId))) throw AppError.notFound('environment', environmentId);
    if (filter.rangeFrom !== undefined && filter.rangeTo !== undefined && filter.rangeFrom > filter.rangeTo) {
      throw AppError.invalid('range_from', 'must not be later than range_to');
    }
    return this.events.list(orgId, environmentId, filter, page);
  }
}
