import type { CommandContext, FlagSpec } from './command.js';

/** The shape of every paged list of the compliance API. */
export interface Page<Item> {
  count: number;
  is_truncated: boolean;
  next_offset?: number;
  items: Item[];
}

export const LIST_FLAGS: Record<string, FlagSpec> = {
  offset: { type: 'string', value: '<n>', description: 'skip the first n items (a truncated list prints the offset to go on from)' },
  'max-items': { type: 'string', value: '<n>', description: 'list at most n items (default: every page)' },
  'page-size': { type: 'string', value: '<n>', description: 'items per request, 1 to 1000 (default 100)' },
};

const DEFAULT_PAGE_SIZE = 100;
const MAX_PAGE_SIZE = 1000;

/**
 * Reads pages from `--offset` on, following `next_offset`, until the list ends or `--max-items` items are read.
 * The answer has the API's list shape (`count` is the number of items in it): with `--max-items`, `is_truncated`
 * and `next_offset` say where to go on.
 * (The library's `pages` yields items only; a CLI that stops early must also tell where the list goes on.)
 */
export async function readList<Item>(ctx: CommandContext, fetchPage: (offset: number, maxItems: number) => Promise<Page<Item>>): Promise<Page<Item>> {
  let offset = ctx.int('offset') ?? 0;
  const limit = ctx.int('max-items', { min: 1 });
  const pageSize = ctx.int('page-size', { min: 1, max: MAX_PAGE_SIZE }) ?? DEFAULT_PAGE_SIZE;
  const items: Item[] = [];
  for (;;) {
    const want = limit === undefined ? pageSize : Math.min(pageSize, limit - items.length);
    const page = await fetchPage(offset, want);
    items.push(...page.items);
    const goesOn = page.is_truncated && page.next_offset !== undefined && page.items.length > 0;
    if (!goesOn) return { count: items.length, is_truncated: false, items };
    if (limit !== undefined && items.length >= limit) return { count: items.length, is_truncated: true, next_offset: page.next_offset!, items };
    offset = page.next_offset!;
  }
}

/** Prints the list as JSON, or as a table followed (on stderr) by where a truncated list goes on. */
export function showList<Item>(ctx: CommandContext, list: Page<Item>, table: (items: Item[]) => void): void {
  ctx.out.show(list, () => {
    table(list.items);
    if (list.is_truncated) ctx.out.note(`${list.count} shown; more from --offset ${list.next_offset}`);
  });
}
