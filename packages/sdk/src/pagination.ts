export interface Page<T> {
  items: T[];
  next_cursor: string | null;
  has_more: boolean;
}

/**
 * Every list: `for await (const item of list)` walks all items across pages; `.pages()` yields
 * whole pages; `.first()` fetches one page only.
 */
export class PageIterator<T> implements AsyncIterable<T> {
  constructor(private readonly fetchPage: (cursor: string | undefined) => Promise<Page<T>>) {}

  async *pages(): AsyncGenerator<Page<T>> {
    let cursor: string | undefined;
    for (;;) {
      const page = await this.fetchPage(cursor);
      yield page;
      if (!page.has_more || !page.next_cursor) return;
      cursor = page.next_cursor;
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T> {
    for await (const page of this.pages()) yield* page.items;
  }

  first(): Promise<Page<T>> {
    return this.fetchPage(undefined);
  }

  /** Collects up to `max` items (all by default). */
  async toArray(max = Infinity): Promise<T[]> {
    const out: T[] = [];
    for await (const item of this) {
      if (out.length >= max) break;
      out.push(item);
    }
    return out;
  }
}
