import type { Page } from '../domain/repositories.js';

/** The list wrapper of the compliance and console APIs: `count` is the size of this page (seed 000 §2.1). */
export function pageBody<T, B>(page: Page<T>, offset: number, present: (item: T) => B) {
  const items = page.items.map(present);
  return {
    count: items.length,
    is_truncated: page.hasMore,
    items,
    ...(page.hasMore ? { next_offset: offset + items.length } : {}),
  };
}
