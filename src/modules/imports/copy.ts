// COPY FROM STDIN on PostgreSQL (issue 26): how an import writes its new rows, their cells
// and their versions — the database's bulk path (rows written a page at a time, no
// statement to parse or JSON to unpack), in the import's own transaction, so all or
// nothing still holds and every constraint, foreign key and trigger still applies. The
// embedded database (PGlite) has no COPY from a client's stream: there the import keeps
// its set-based INSERT … SELECT (imports/write.ts).
import type pg from 'pg';
import type { Db } from '../../db/client.js';

/** A transaction's PostgreSQL connection. */
export type CopyConnection = pg.ClientBase;

/**
 * The connection of a transaction on PostgreSQL, through which it can COPY; null on the
 * embedded database. drizzle keeps a transaction's connection as its session's client:
 * on node-postgres the pool's client (a `connection` and a `release`), on PGlite the
 * PGlite instance (neither).
 */
export function copyConnectionOf(tx: Db): CopyConnection | null {
  const client = (tx as unknown as { session?: { client?: { connection?: unknown; release?: unknown } } }).session?.client;
  return client && client.connection && typeof client.release === 'function' ? (client as unknown as CopyConnection) : null;
}

const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/** A value as a field of COPY's text format: backslash, tab, line feed and carriage return escaped; null as \N. */
export function copyField(value: string | number | null): string {
  if (value === null) return '\\N';
  return typeof value === 'number' ? String(value) : value.replace(/[\\\t\n\r]/g, (c) => ESCAPES[c]);
}

let copyFrom: typeof import('pg-copy-streams').from | null = null;

/**
 * COPY `text` (lines of COPY's text format, fields escaped by copyField) into `table`'s
 * `columns` on the transaction's connection; resolves when the database has taken every
 * line, rejects with the database's error (the transaction is then aborted, as by a
 * failed INSERT). `table` and `columns` are this module's callers' constants, never input.
 */
export async function copyInto(connection: CopyConnection, table: string, columns: readonly string[], text: string): Promise<void> {
  if (!text) return;
  copyFrom ??= (await import('pg-copy-streams')).from;
  const stream = connection.query(copyFrom(`COPY ${table} (${columns.join(', ')}) FROM STDIN`));
  await new Promise<void>((resolve, reject) => {
    stream.on('error', reject);
    stream.on('finish', resolve);
    stream.end(text, 'utf8');
  });
}
