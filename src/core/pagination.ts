import type { FastifyRequest } from 'fastify';
import { sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import { errors } from './errors.js';
import { baseUrlOf } from './urls.js';

export const DEFAULT_PAGE_SIZE = 10;
export const MAX_PAGE_SIZE = 100;

/** Which slice of a list a request asks for. */
export interface PageRequest {
  number: number;
  size: number;
  limit: number;
  offset: number;
  /**
   * A later read of a page written read by read (core/answer-stream.ts): the `cursor` the
   * previous read gave, for a list whose offsets are keys (a row's versions: `version >
   * offset`, which a gap behind the API would repeat).
   */
  after?: number;
  /**
   * A read bounded by its records' real sizes (a `sized` list, core/answer-stream.ts): as
   * many of its `limit` records as fit in these bytes as JSON, and always the first.
   */
  maxBytes?: number;
}

/**
 * The page asked for by ?page= and ?page_size= (already validated as positive integers);
 * sizes above 100 (or the list's own `max`) are clamped.
 */
export function pageRequest(query: { page?: number; page_size?: number }, max = MAX_PAGE_SIZE): PageRequest {
  const number = query.page ?? 1;
  const size = Math.min(query.page_size ?? DEFAULT_PAGE_SIZE, max, MAX_PAGE_SIZE);
  return { number, size, limit: size, offset: (number - 1) * size };
}

/**
 * The most one record of row data (a version, a cell, a row with its cells, a grid row)
 * can be as JSON: ROW_MAX_BYTES, and a little for the fields around the data (sids,
 * hashes, dates). Lists of row data are read and written by this bound
 * (core/answer-stream.ts; docs/decisions.md, "Answers are written as they are read").
 */
export function rowRecordBytes(config: { rowMaxBytes: number }): number {
  return config.rowMaxBytes + 4096;
}

/**
 * The most one record of a list whose fields are free JSON or text (personnel's metadata
 * and dashboard, a notification's message, a step's settings) can be: what two request
 * bodies can write (BODY_LIMIT_BYTES each; a record's large fields come from at most two
 * writes' worth), and a little for the fields around them.
 */
export function bodyRecordBytes(config: { bodyLimit: number }): number {
  return 2 * config.bodyLimit + 4096;
}

/** The link to page `number` of the list the request is on, keeping its other query parameters. */
function pageLink(request: FastifyRequest, publicUrl: string | null, number: number): string {
  const url = new URL(baseUrlOf(request, publicUrl) + request.url);
  url.searchParams.set('page', String(number));
  return url.toString();
}

/** The page envelope of the spec; a page past the last one is a 404 "Invalid page.". */
export function pageEnvelope<T>(
  request: FastifyRequest,
  publicUrl: string | null,
  page: PageRequest,
  count: number,
  results: T[],
  addPermission: boolean,
) {
  const pageCount = Math.max(1, Math.ceil(count / page.size));
  if (page.number > pageCount) throw errors.invalidPage();
  return {
    page_size: page.size,
    page_number: page.number,
    page_count: pageCount,
    count,
    next: page.number < pageCount ? pageLink(request, publicUrl, page.number + 1) : null,
    previous: page.number > 1 ? pageLink(request, publicUrl, page.number - 1) : null,
    add_permission: addPermission,
    results,
  };
}

/**
 * A page of results that carries the size of the whole list, read in the page's own
 * query (an uncorrelated count subquery, computed once), so a list costs one round
 * trip. `total` is unknown when the page is empty.
 */
export type Counted<T> = T[] & { total?: number; addPermission?: boolean; cursor?: number };

/** A list's count query as the `total` column of its page query (a subquery PostgreSQL runs once). */
export function totalOf(countQuery: SQLWrapper): SQL<number> {
  return sql<number>`(${countQuery})`;
}

/** The rows of a page query with a `total` column, as a Counted page without that column. */
export function counted<T extends { total: number | string }>(rows: T[]): Counted<Omit<T, 'total'>> {
  const total = rows.length ? Number(rows[0].total) : undefined;
  for (const row of rows) delete (row as Partial<T>).total;
  return Object.assign(rows as Omit<T, 'total'>[], { total });
}

/**
 * `results` with the total of `page` (for a page that was mapped, e.g. serialized), and
 * add_permission when the page's rows already tell it.
 */
export function withTotal<T>(results: T[], page: { total?: number }, addPermission?: boolean): Counted<T> {
  return Object.assign(results, { total: page.total, addPermission });
}
