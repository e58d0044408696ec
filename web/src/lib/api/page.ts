// The page envelope every list of the API answers with.

/** One page of a list. */
export interface Page<T> {
  page_size: number;
  page_number: number;
  page_count: number;
  count: number;
  next: string | null;
  previous: string | null;
  add_permission: boolean;
  results: T[];
}

/** The largest page the API gives. */
export const MAX_PAGE_SIZE = 100;

/** How many pages `allPages` asks for at once. */
const PAGES_AT_ONCE = 4;

/**
 * Every record of a list, as one page: for the pickers and menus that must offer all of
 * them (an organization's workflows, its widgets, the person's organizations), not only
 * the first MAX_PAGE_SIZE. `fetchPage(n)` asks for page n at MAX_PAGE_SIZE; page 1 says
 * how many there are, the rest follow a few at a time.
 */
export async function allPages<T>(fetchPage: (page: number) => Promise<Page<T>>): Promise<Page<T>> {
  const first = await fetchPage(1);
  const results = [...first.results];
  for (let page = 2; page <= first.page_count; page += PAGES_AT_ONCE) {
    const numbers = Array.from({ length: Math.min(PAGES_AT_ONCE, first.page_count - page + 1) }, (_, i) => page + i);
    for (const next of await Promise.all(numbers.map(fetchPage))) results.push(...next.results);
  }
  return { ...first, page_size: results.length, page_count: 1, next: null, previous: null, results };
}
