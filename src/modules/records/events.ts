// A row's and a cell's live events (GET /tables/row/stream/ hears them): their payloads are
// built by the write's statements and sent once its transaction has committed
// (db/after-commit.ts), so each is heard only then. The streams that hear them are
// rows/live.ts's.
import { sql, type SQL } from 'drizzle-orm';
import { query, type Db } from '../../db/client.js';
import { notifyAfterCommit } from '../../db/after-commit.js';
import { personnel } from '../../db/schema.js';
import { isoTimestamp, personName } from '../../core/sql.js';

/** The PostgreSQL channel of record changes. */
export const RECORD_CHANNEL = 'records_rows';
/** Cell data longer than this (bytes) is left out of an event (`data_omitted`): a pg_notify payload holds under 8000 bytes. */
export const EVENT_DATA_LIMIT = 6_000;

/** What a row change did (one change may do several). */
export type RowChange = 'created' | 'renamed' | 'description' | 'fields' | 'projects' | 'locked' | 'unlocked' | 'archived' | 'unarchived' | 'sections';

interface EventBase {
  organization: string;
  table: string;
  /** the row's first project */
  project: string;
  /** all the row's projects, its first first: a viewer reading any of them hears the change */
  projects: string[];
  /** the row itself is open to the organization (Labii's open_to_organization): every active member hears the change */
  open: boolean;
  /** the row's sid */
  row: string;
  /** the row's version number this change made */
  version: number;
  /** who made the change (personnel of the organization), null when they are not personnel */
  by: { sid: string; name: string } | null;
  date_updated: string;
}

/** A row created or changed: its state after the change. */
export interface RowEvent extends EventBase {
  kind: 'row';
  changes: RowChange[];
  name: string;
  is_locked: boolean;
  is_archived: boolean;
}

/** A cell created or changed: its new data (left out, with data_omitted, when long). */
export interface CellEvent extends EventBase {
  kind: 'cell';
  cell: string;
  column: string;
  data: string | null;
  data_omitted: boolean;
  created: boolean;
}

export type RecordEvent = RowEvent | CellEvent;

/** The SQL of a row's projects, its first first, as a JSON array (the row `rowSid`, whose first project is `projectSid`). */
const projectsJson = (rowSid: SQL | string, projectSid: SQL | string) => sql`(SELECT json_agg(x.p ORDER BY x.o, x.added, x.p) FROM (
    SELECT ${projectSid}::text AS p, 0 AS o, NULL::timestamptz AS added
    UNION ALL SELECT rp.project_sid, 1, rp.date_created FROM record_row_projects rp WHERE rp.row_sid = ${rowSid}::text) x)`;

const by = sql`CASE WHEN ${personnel.sid} IS NULL THEN NULL ELSE json_build_object('sid', ${personnel.sid}, 'name', ${personName(personnel)}) END`;
const author = (userSid: string) => sql`LEFT JOIN ${personnel} ON ${personnel.organizationSid} = r.organization_sid AND ${personnel.userSid} = ${userSid}`;

/** Sends the record events `payloads` (built by a write's statement) once `tx` has committed. */
export function sendAfterCommit(tx: Db, payloads: readonly (string | null)[]): void {
  notifyAfterCommit(tx, RECORD_CHANNEL, payloads);
}

/** Reads the event of row `rowSid`'s change (its state now, version `version`, by `userSid`) and sends it when the caller's transaction commits. */
export async function emitRowChange(tx: Db, change: { rowSid: string; userSid: string; version: number; changes: RowChange[] }): Promise<void> {
  const events = await query<{ event: string }>(tx, sql`SELECT json_build_object(
      'kind', 'row', 'organization', r.organization_sid, 'table', r.table_sid, 'project', r.project_sid,
      'projects', ${projectsJson(sql`r.sid`, sql`r.project_sid`)}, 'row', r.sid, 'open', r.open_to_organization,
      'version', ${change.version}::int, 'by', ${by}, 'date_updated', ${isoTimestamp(sql`r.date_updated`)},
      'changes', ${JSON.stringify(change.changes)}::json, 'name', r.name, 'is_locked', r.is_locked, 'is_archived', r.is_archived)::text AS event
    FROM record_rows r ${author(change.userSid)}
   WHERE r.sid = ${change.rowSid}`);
  sendAfterCommit(tx, events.map((e) => e.event));
}

/** The events of many rows created (version 1, by `userSid`), read in one statement and sent at commit: an import's batch. */
export async function emitRowsCreated(tx: Db, rowSids: string[], userSid: string): Promise<void> {
  if (!rowSids.length) return;
  const events = await query<{ event: string }>(tx, sql`SELECT json_build_object(
      'kind', 'row', 'organization', r.organization_sid, 'table', r.table_sid, 'project', r.project_sid, 'row', r.sid,
      'open', r.open_to_organization, 'version', r.version, 'by', ${by}, 'date_updated', ${isoTimestamp(sql`r.date_updated`)},
      'changes', '["created"]'::json, 'name', r.name, 'is_locked', r.is_locked, 'is_archived', r.is_archived)::text AS event
    FROM record_rows r ${author(userSid)}
   WHERE r.sid = ANY(string_to_array(${rowSids.join(',')}, ','))`);
  sendAfterCommit(tx, events.map((e) => e.event));
}

/** What a cell's event is built from: values, or SQL over the statement's tables. */
export interface CellEventValues {
  organization: string | SQL;
  table: string | SQL;
  project: string | SQL;
  row: string | SQL;
  /** the row's open_to_organization (the writer has it at hand: lockRow reads it) */
  open: boolean | SQL;
  version: number | SQL;
  userSid: string | SQL;
  dateUpdated: SQL;
  cell: string | SQL;
  column: string | SQL;
  created: boolean | SQL;
  data: string | SQL;
}

/**
 * The payload of a cell's event, as an expression: the cell writes put it in the statement
 * that appends the row's version (no round trip of its own) and send what it returns with
 * sendAfterCommit.
 */
export function cellEvent(e: CellEventValues): SQL {
  const data = sql`${e.data}::text`;
  return sql`(json_build_object(
      'kind', 'cell', 'organization', ${e.organization}::text, 'table', ${e.table}::text, 'project', ${e.project}::text,
      'projects', ${projectsJson(e.row, e.project)}, 'row', ${e.row}::text, 'open', ${e.open}::boolean,
      'version', ${e.version}::int,
      'by', (SELECT ${by} FROM ${personnel} WHERE ${personnel.organizationSid} = ${e.organization}::text AND ${personnel.userSid} = ${e.userSid}),
      'date_updated', ${e.dateUpdated}, 'cell', ${e.cell}::text, 'column', ${e.column}::text, 'created', ${e.created}::boolean,
      'data', CASE WHEN octet_length(${data}) <= ${EVENT_DATA_LIMIT} THEN ${data} END,
      'data_omitted', octet_length(${data}) > ${EVENT_DATA_LIMIT})::text)`;
}
