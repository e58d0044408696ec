import { sql, type SQL, type SQLWrapper, type AnyColumn } from 'drizzle-orm';

/**
 * A column always written with its table's name, for a subquery correlated to the outer
 * query: Drizzle writes the bare column name in the fields of a one-table select, which
 * inside a subquery would name the subquery's own column of that name (a nested SQL keeps
 * the table's name).
 */
export function qualified(column: AnyColumn): SQL {
  return sql`${column}`;
}

/**
 * The condition that keeps the records whose `column` (their key) a page's subquery found:
 * `column = ANY(ARRAY(page))` rather than `IN (page)`, so the page is found first, once, and
 * its records are then read by their key in any plan (a plan kept for any values may
 * otherwise join the page to a scan of the whole table).
 */
export function inPage(column: AnyColumn, page: SQLWrapper): SQL {
  return sql`${column} = ANY(ARRAY(${page}))`;
}

/**
 * How the API names a person (a user or a personnel record): "First Last", or the email
 * when both names are blank; '' when there is nobody (an outer join found no one).
 */
export function personName(person: { firstName: AnyColumn | SQL; lastName: AnyColumn | SQL; email: AnyColumn | SQL }): SQL<string> {
  return sql<string>`coalesce(nullif(trim(${person.firstName} || ' ' || ${person.lastName}), ''), ${person.email}, '')`;
}

/**
 * A timestamp column as the API shows it: ISO 8601 UTC with microseconds and "Z",
 * formatted by PostgreSQL so the microseconds survive (a JS Date keeps milliseconds).
 */
export function isoTimestamp(column: AnyColumn | SQL): SQL<string> {
  return sql<string>`to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
}

/** A date column as "YYYY-MM-DD" text. */
export function isoDate(column: AnyColumn | SQL): SQL<string> {
  return sql<string>`to_char(${column}, 'YYYY-MM-DD')`;
}

/** A money amount (numeric, as a decimal string) shown as "$12.50". */
export function formatMoney(amount: string | number): string {
  const [whole, frac = ''] = String(amount).split('.');
  const negative = whole.startsWith('-');
  const digits = negative ? whole.slice(1) : whole;
  return `${negative ? '-' : ''}$${digits || '0'}.${(frac + '00').slice(0, 2)}`;
}

/** `text` with LIKE's wildcards escaped, so a search for it matches it literally. */
export function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** An ILIKE pattern: the text anywhere, case-insensitive, its wildcards taken literally. */
export function containsPattern(text: string): string {
  return `%${likeLiteral(text)}%`;
}
