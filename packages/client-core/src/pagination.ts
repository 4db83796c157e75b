// One paginator for every paged listing of both APIs: limit/offset pages and cursor pages alike.
// The caller says how to read a page from a cursor and which cursor comes next.

export interface Page<Item, Cursor> {
  items: Item[];
  /** The cursor of the next page; undefined when this page was the last. */
  next: Cursor | undefined;
}

/**
 * Yields every item of every page, reading the next page only when the consumer asks for more.
 * With `key`, an item already yielded is not yielded again (an item inserted while paging shifts
 * later offset pages by one, which would otherwise repeat an entry).
 */
export async function* paginate<Item, Cursor>(options: {
  start: Cursor;
  fetchPage: (cursor: Cursor) => Promise<Page<Item, Cursor>>;
  key?: (item: Item) => string;
}): AsyncGenerator<Item, void, undefined> {
  const seen = new Set<string>();
  for (let cursor: Cursor | undefined = options.start; cursor !== undefined; ) {
    const page: Page<Item, Cursor> = await options.fetchPage(cursor);
    for (const item of page.items) {
      if (options.key) {
        const key = options.key(item);
        if (seen.has(key)) continue;
        seen.add(key);
      }
      yield item;
    }
    cursor = page.next;
  }
}

/** Refuses a page size outside the bounds the spec gives the operation's `limit`, before any request. */
export function checkPageSize(pageSize: number, bounds: { readonly minimum: number; readonly maximum: number }): void {
  if (!Number.isInteger(pageSize) || pageSize < bounds.minimum || pageSize > bounds.maximum) {
    throw new RangeError(`pageSize must be an integer from ${bounds.minimum} to ${bounds.maximum}, got ${pageSize}`);
  }
}
