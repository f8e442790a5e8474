import type { Page, PageRequest } from '../repositories.js';

/** What a caller whose groups cover some environments may see of an organization-level record. */
export interface OverEnvironments {
  /** Over every environment of the organization, including those created later. */
  allEnvironments: boolean;
  environments: ReadonlyArray<{ id: string }>;
}

/** Records read at once while gathering those a caller's groups cover. */
const GATHER_PAGE = 500;

/**
 * A page of the records over environments `covered` covers: all of them with `'all'`; otherwise only those over
 * named environments that are all covered (a record over every environment is not). What the caller does not see is
 * neither listed nor counted, so offsets stay consistent. The records are organization-level ones bounded by a quota
 * (notifications, groups), so they are gathered page by page and paged here.
 */
export async function pageOfCovered<T extends OverEnvironments>(
  list: (page: PageRequest) => Promise<Page<T>>,
  page: PageRequest,
  covered: 'all' | readonly string[],
): Promise<Page<T>> {
  if (covered === 'all') return list(page);
  const within = new Set(covered);
  const visible: T[] = [];
  for (let offset = 0; visible.length <= page.offset + page.limit; offset += GATHER_PAGE) {
    const gathered = await list({ offset, limit: GATHER_PAGE });
    visible.push(...gathered.items.filter((record) => !record.allEnvironments && record.environments.every((env) => within.has(env.id))));
    if (!gathered.hasMore) break;
  }
  return { items: visible.slice(page.offset, page.offset + page.limit), hasMore: visible.length > page.offset + page.limit };
}
