/** One page of a paged list of the compliance API (`{ count, is_truncated, next_offset, items }`). */
export interface Page<Item> {
  items: Item[];
  is_truncated?: boolean;
  /** Present when `is_truncated` is true: the `offset` of the next page. */
  next_offset?: number;
}

/**
 * Every item of a paged list, page after page: `fetchPage` is called with offset 0, then with each page's
 * `next_offset` while `is_truncated` is true. Pages are fetched only as the items are consumed.
 *
 * ```ts
 * for await (const environment of pages((offset) => unwrap(client.GET('/environments', { params: { query: { offset } } })))) { ... }
 * ```
 */
export async function* pages<Item>(fetchPage: (offset: number) => Promise<Page<Item>>): AsyncGenerator<Item, void, undefined> {
  let offset = 0;
  for (;;) {
    const page = await fetchPage(offset);
    yield* page.items;
    if (!page.is_truncated) return;
    const next = page.next_offset;
    // A page that says more follow but gives no offset past this one would loop for ever.
    if (typeof next !== 'number' || !Number.isInteger(next) || next <= offset) {
      throw new Error(`a truncated page at offset ${offset} gave next_offset ${String(next)}, which does not move past it`);
    }
    offset = next;
  }
}

/** Every item of a paged list in one array (see `pages`). */
export async function listAll<Item>(fetchPage: (offset: number) => Promise<Page<Item>>): Promise<Item[]> {
  const items: Item[] = [];
  for await (const item of pages(fetchPage)) items.push(item);
  return items;
}
