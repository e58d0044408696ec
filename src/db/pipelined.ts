// Fewer round trips for a transaction (issue 23: a cell PATCH in at most 3): a transaction's
// BEGIN is not sent alone but written in front of its first statement, and a statement
// marked COMMIT_WITH is followed by COMMIT, each in one write and one wait
// (PostgreSQL's extended protocol lets a client send several statements before one Sync;
// they run in order and the first error skips the rest, which leaves the transaction
// failed, never half-committed). Used by db/postgres.ts's client; the embedded engine runs
// in the process and has no round trips to save.
import { createRequire } from 'node:module';
import pg from 'pg';

const require = createRequire(import.meta.url);
// pg's own value mapping for Bind (Dates, arrays, Buffers, JSON), as its Query uses it.
const { prepareValue } = require('pg/lib/utils') as { prepareValue: (value: unknown) => unknown };

/**
 * A statement whose text ends with this is committed in the same round trip: its writer has
 * nothing left to do in the transaction (records/cells.ts changeLocked says when), and any
 * refusal it may meet is raised by the statement itself, so COMMIT runs only after it
 * succeeded. A SQL comment: the embedded engine runs it as any other statement.
 */
export const COMMIT_WITH = '\n-- records: committed with this statement';

/** The statements of a transaction's opening (db/postgres.ts TX_BEGIN, one per message). */
export const OPENING = ['begin', 'set local plan_cache_mode = auto'];

/** What pg's Connection offers a query to write the extended protocol's messages. */
interface Connection {
  parse(message: { text: string; name?: string; types?: unknown[] }): void;
  bind(message: { portal?: string; statement?: string; values?: unknown[]; binary?: boolean; valueMapper?: (value: unknown) => unknown }): void;
  describe(message: { type: 'P' | 'S'; name: string }): void;
  execute(message: { portal?: string; rows?: number }): void;
  close(message: { type: 'P' | 'S'; name?: string }): void;
  sync(): void;
  submittedNamedStatements: Record<string, string>;
}

/** pg's Query, as far as this file reaches into it (pg 8: lib/query.js). */
interface PgQuery {
  text: string;
  name?: string;
  types?: unknown[];
  values?: unknown[];
  portal: string;
  binary?: boolean;
  hasBeenParsed(connection: Connection): boolean;
  handleError(error: Error, connection: Connection): void;
  handleCommandComplete(message: unknown, connection: Connection): void;
}

const BaseQuery = (pg as unknown as { Query: new (config: unknown, values?: unknown, callback?: unknown) => PgQuery }).Query;

/** Parse, Bind and Execute of a statement without parameters, unnamed (its CommandComplete is not the query's). */
function runUnnamed(connection: Connection, text: string) {
  connection.parse({ text, name: '', types: [] });
  connection.bind({ portal: '', statement: '', values: [] });
  connection.execute({ portal: '', rows: undefined });
}

/**
 * A parameterized query with statements before it (`before`) and after it (`after`), sent
 * as one pipeline with one Sync: its answer is its own statement's, the others' are read
 * and dropped. An error anywhere is the query's error.
 */
export class PipelinedQuery extends BaseQuery {
  private completes = 0;

  constructor(config: unknown, values: unknown, private readonly before: readonly string[], private readonly after: readonly string[]) {
    super(config, values);
  }

  /** pg's prepare (lib/query.js), with the statements before and after; written in one corked write by pg's submit. */
  prepare(connection: Connection): void {
    const self = this as unknown as PgQuery;
    for (const text of this.before) runUnnamed(connection, text);
    if (!self.hasBeenParsed(connection)) {
      connection.parse({ text: self.text, name: self.name, types: self.types });
      if (self.name) connection.submittedNamedStatements[self.name] = self.text;
    }
    try {
      connection.bind({ portal: self.portal, statement: self.name, values: self.values, binary: self.binary, valueMapper: prepareValue });
    } catch (err) {
      // As pg does: a value that cannot be sent fails the query, and nothing of it runs.
      connection.close({ type: 'S', name: self.name });
      connection.sync();
      self.handleError(err as Error, connection);
      return;
    }
    connection.describe({ type: 'P', name: self.portal || '' });
    connection.execute({ portal: self.portal, rows: undefined });
    for (const text of this.after) runUnnamed(connection, text);
    connection.sync();
  }

  /** Only the query's own statement's completion is its result. */
  handleCommandComplete(message: unknown, connection: Connection): void {
    const index = this.completes++;
    if (index === this.before.length) (BaseQuery.prototype as PgQuery).handleCommandComplete.call(this, message, connection);
  }
}

/** pg's answer to a statement that was not sent (a BEGIN held for the first statement, a COMMIT already made). */
export function noAnswer(command: string): pg.QueryResult {
  return { command, rowCount: null, oid: 0, rows: [], fields: [] };
}
