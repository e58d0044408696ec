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
