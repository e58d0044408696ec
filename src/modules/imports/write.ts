// Writing an import's planned lines in the import's transaction (issue 26): each line one
// write of its row — its cells at once and one version — through the row's lock and the
// same consequences as a cell edit (the version and its hash, the live events, the record
// change notice, the debit). New rows of a batch are written in a few statements for all.
import { sql } from 'drizzle-orm';
import { query, type Db } from '../../db/client.js';
import { newSid } from '../../core/ids.js';
import { isoTimestamp } from '../../core/sql.js';
import { cells, rows } from '../../db/schema.js';
import { appendVersion } from '../versions/append.js';
import { cellEvent, emitRowChange, emitRowsCreated, sendAfterCommit, type RowChange } from '../rows/live.js';
import { mentionsIn, notifyMentions } from '../notifications/mentions.js';
import { FILE_KIND, resolveFileCell } from '../files/cells.js';
import type { Plan } from './plan.js';
import { copyField, copyInto, type CopyConnection } from './copy.js';
import { versionHash } from '../versions/chain.js';

export interface WriteContext {
  tx: Db;
  organizationSid: string;
  tableSid: string;
  projectSid: string;
  userSid: string;
  /** PostgreSQL: the transaction's connection, through which new rows are written by COPY (imports/copy.ts); absent: INSERT … SELECT. */
  copy?: CopyConnection | null;
  /** The uids reserved for the caller's new rows (several batches); absent: each call reserves its own. */
  uids?: UidReservation;
}

const VIA = ' (import)';

/**
 * A table's uid numbers reserved for an import's new rows, in the file's order: the rows
 * the check counted (`expected`) at once, in one update of the table's counter. Not one
 * update a batch: each update is another version of the table's row, kept until the
 * transaction ends, and every later row's foreign key check on its table reads past all of
 * them (a cost growing with the batches done: quadratic over a million rows). When the
 * writes create more rows than counted (a row gone since the check), more are reserved.
 */
export class UidReservation {
  private code = '';
  private next = 0;
  private last = -1;

  constructor(private expected: number) {}

  /** The uid prefix and the first of `n` consecutive numbers for the next `n` rows. */
  async take(tx: Db, tableSid: string, n: number): Promise<{ code: string; first: number }> {
    if (this.next + n - 1 > this.last) {
      const want = Math.max(n, this.expected);
      const [reserved] = await query<{ code: string; last: number }>(tx, sql`
        UPDATE record_tables SET uid_counter = uid_counter + ${want} WHERE sid = ${tableSid}
        RETURNING coalesce(nullif(unique_code, ''), records_table_code(name)) AS code, uid_counter AS last`);
      this.code = reserved.code;
      this.last = Number(reserved.last);
      this.next = this.last - want + 1;
    }
    const first = this.next;
    this.next += n;
    this.expected = Math.max(0, this.expected - n);
    return { code: this.code, first };
  }
}

/**
 * Creates the batch's new rows: the rows, their cells, a version each (`message`), a live
 * event each; their sids. A row without file cells is born at version 1: its row, head and
 * version written at once — without appending to a row just written, which would write each
 * row twice (docs/decisions.md, "Imports: new rows born at version 1"). On PostgreSQL by
 * COPY (bornByCopy), on the embedded database by one INSERT … SELECT hashing each version in
 * SQL by records_version_text, as records_append_version hashes (the same text, the same
 * data). A row with file cells takes the usual way: its files are attached to it first
 * (files/cells.ts), then its version appended.
 */
export async function createRows(
  w: WriteContext, plans: Extract<Plan, { kind: 'create' }>[], message: (i: number) => string = () => `Created the row${VIA}`,
): Promise<string[]> {
  if (!plans.length) return [];
  const made = plans.map((plan, i) => ({ sid: newSid(), plan, i, files: plan.cells.some((c) => c.column.kind === FILE_KIND) }));
  // Their uids, the table's next numbers in the file's order.
  const { code, first } = await (w.uids ?? new UidReservation(made.length)).take(w.tx, w.tableSid, made.length);
  const born = made.filter((m) => !m.files);
  if (born.length && w.copy) await bornByCopy(w, w.copy, born, code, first, message);
  else if (born.length) {
    const input = JSON.stringify(born.map(({ sid, plan, i }) => ({
      sid, i, line: plan.line, name: plan.name, description: plan.description, version_sid: newSid(), message: message(i),
      cells: Object.fromEntries(plan.cells.map((c) => [c.column.sid, c.data])),
    })));
    // The rows of one transaction share now(): a microsecond a line keeps them in the file's order (oldest first).
    await query(w.tx, sql`
      WITH u AS (SELECT * FROM json_to_recordset(${input}::json)
                   AS u(sid text, i integer, line integer, name text, description text, version_sid text, message text, cells jsonb)),
           t AS (SELECT date_trunc('microseconds', clock_timestamp()) AS ts),
           d AS (SELECT u.*, t.ts, to_char(t.ts AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS ts_text,
                        jsonb_build_object('name', u.name, 'description', u.description, 'is_locked', false, 'is_archived', false, 'cells', u.cells) AS data
                   FROM u, t),
           h AS (SELECT d.*, encode(sha256(convert_to(records_version_text(d.sid, 1, '', d.data, ${w.userSid}, d.ts_text), 'UTF8')), 'hex') AS hash FROM d),
           r AS (INSERT INTO record_rows (sid, organization_sid, table_sid, project_sid, name, description, created_by, updated_by, uid,
                                          date_created, date_updated, version, last_hash)
                 SELECT h.sid, ${w.organizationSid}, ${w.tableSid}, ${w.projectSid}, h.name, h.description, ${w.userSid}, ${w.userSid},
                        records_row_uid(${code}, ${first}::integer + h.i), now() + make_interval(secs => h.line / 1000000.0), h.ts, 1, h.hash
                   FROM h ORDER BY h.i
                 RETURNING sid)
      INSERT INTO versions (sid, organization_sid, row_sid, version, hash, previous_hash, data, activity_message, updated_by, date_created, date_updated)
      SELECT h.version_sid, ${w.organizationSid}, h.sid, 1, h.hash, '', h.data, h.message, ${w.userSid}, h.ts, h.ts FROM h ORDER BY h.i`);
  }
  const later = made.filter((m) => m.files);
  if (later.length) {
    await w.tx.insert(rows).values(later.map(({ sid, plan, i }) => ({
      sid, organizationSid: w.organizationSid, tableSid: w.tableSid, projectSid: w.projectSid,
      name: plan.name, description: plan.description, createdBy: w.userSid, updatedBy: w.userSid,
      uid: sql`records_row_uid(${code}, ${first + i}::integer)`,
      dateCreated: sql`now() + make_interval(secs => ${plan.line}::int / 1000000.0)`,
      dateUpdated: sql`now() + make_interval(secs => ${plan.line}::int / 1000000.0)`,
    })));
  }
  // The cells of the rows COPY wrote are written (bornByCopy); the others' here.
  const cellValues = (w.copy ? later : made).flatMap(({ sid, plan }) => plan.cells.map((c) => ({
    sid: newSid(), row_sid: sid, column_sid: c.column.sid, widget_sid: c.column.widgetSid, data: c.data, kind: c.column.kind,
  })));
  // A file cell names its files by sid: they are attached to the new row and listed by their descriptors, as a cell write does (files/cells.ts).
  for (const c of cellValues) if (c.kind === FILE_KIND) c.data = await resolveFileCell(w.tx, w.organizationSid, c.row_sid, c.data);
  // The batch's cells in one statement of one parameter (a query builder's thousands of parameters cost more than the insert).
  if (cellValues.length) {
    await query(w.tx, sql`
      INSERT INTO cells (sid, organization_sid, row_sid, column_sid, widget_sid, data, created_by, updated_by)
      SELECT u.sid, ${w.organizationSid}, u.row_sid, u.column_sid, u.widget_sid, u.data, ${w.userSid}, ${w.userSid}
        FROM json_to_recordset(${JSON.stringify(cellValues.map(({ kind: _kind, ...value }) => value))}::json)
          AS u(sid text, row_sid text, column_sid text, widget_sid text, data text)`);
  }
  if (later.length) {
    // One statement appends the version 1 of every row with files (records_append_version hashes each).
    const appended = JSON.stringify(later.map((m) => ({ row_sid: m.sid, version_sid: newSid(), message: message(m.i) })));
    await query(w.tx, sql`
      SELECT v.version
        FROM json_to_recordset(${appended}::json) AS u(row_sid text, version_sid text, message text),
             LATERAL records_append_version(u.version_sid, u.row_sid, ${w.userSid}, u.message) v`);
  }
  await emitRowsCreated(w.tx, made.map((m) => m.sid), w.userSid);
  for (const { sid, plan } of made) {
    for (const c of plan.cells) await mentions(w, { sid, name: plan.name }, c.column.name, '', c.data);
  }
  return made.map((m) => m.sid);
}

const ROW_COLUMNS = ['sid', 'organization_sid', 'table_sid', 'project_sid', 'name', 'description', 'created_by', 'updated_by', 'uid',
  'date_created', 'date_updated', 'version', 'last_hash'] as const;
const VERSION_COLUMNS = ['sid', 'organization_sid', 'row_sid', 'version', 'hash', 'previous_hash', 'data', 'activity_message', 'updated_by',
  'date_created', 'date_updated'] as const;
const CELL_COLUMNS = ['sid', 'organization_sid', 'row_sid', 'column_sid', 'widget_sid', 'data', 'created_by', 'updated_by',
  'date_created', 'date_updated'] as const;

/** An instant in microseconds since the epoch as ISO 8601 with six decimals (UTC): how a version's date is hashed. */
function isoMicros(us: bigint): string {
  const ms = us / 1000n;
  return `${new Date(Number(ms)).toISOString().slice(0, -1)}${String(us - ms * 1000n).padStart(3, '0')}Z`;
}

/**
 * Writes new rows born at version 1 by three COPYs on PostgreSQL (imports/copy.ts): the rows
 * with their heads, their versions, their cells — what the INSERT … SELECT of createRows
 * writes: the same uids (records_row_uid, in SQL), the same dates (the rows' now() and a
 * microsecond a line, the versions' clock_timestamp(); the cells dated as their row rather
 * than at now()), the same hash, computed here by versions/chain.ts's versionHash over the
 * same data (the one TypeScript definition of the hashed text;
 * test/modules/db-functions.test.ts proves it records_version_text's).
 */
async function bornByCopy(
  w: WriteContext, connection: CopyConnection, born: { sid: string; plan: Extract<Plan, { kind: 'create' }>; i: number }[],
  code: string, first: number, message: (i: number) => string,
): Promise<void> {
  const last = Math.max(...born.map((b) => b.i));
  const [clock] = await query<{ ts: string; now_us: string; uids: string[] }>(w.tx, sql`
    SELECT to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS ts,
           (extract(epoch FROM now()) * 1000000)::bigint::text AS now_us,
           ARRAY(SELECT records_row_uid(${code}, n) FROM generate_series(${first}::integer, ${first + last}::integer) n ORDER BY n) AS uids`);
  const now = BigInt(clock.now_us);
  const f = copyField;
  const [org, user] = [f(w.organizationSid), f(w.userSid)];
  let rowLines = '';
  let versionLines = '';
  let cellLines = '';
  for (const { sid, plan, i } of born) {
    // A row's cells are dated as their row (not all at the transaction's now()): the cells' indexes
    // by column or organization and date then grow at their end, line after line, as the rows' do.
    const created = isoMicros(now + BigInt(plan.line));
    const cellData = Object.fromEntries(plan.cells.map((c) => [c.column.sid, c.data]));
    const data = { name: plan.name, description: plan.description, is_locked: false, is_archived: false, cells: cellData };
    const hash = versionHash({ row: sid, version: 1, previousHash: '', data, updated_by: w.userSid, date_created: clock.ts });
    rowLines += `${f(sid)}\t${org}\t${f(w.tableSid)}\t${f(w.projectSid)}\t${f(plan.name)}\t${f(plan.description)}\t${user}\t${user}\t`
      + `${f(clock.uids[i])}\t${created}\t${clock.ts}\t1\t${hash}\n`;
    versionLines += `${newSid()}\t${org}\t${f(sid)}\t1\t${hash}\t\t${f(JSON.stringify(data))}\t${f(message(i))}\t${user}\t${clock.ts}\t${clock.ts}\n`;
    for (const c of plan.cells) {
      cellLines += `${newSid()}\t${org}\t${f(sid)}\t${f(c.column.sid)}\t${f(c.column.widgetSid)}\t${f(c.data)}\t${user}\t${user}\t${created}\t${created}\n`;
    }
  }
  // Every row a COPY writes fires its foreign keys' checks (a cell six, a version and a row
  // two to four): each a lookup by primary key that PostgreSQL would plan again for every row
  // under the session's force_custom_plan — most of the cells' COPY time. Their one generic
  // plan is the same plan: the COPYs run under force_generic_plan, and the statements after
  // them under the transaction's own mode again (auto: db/postgres.ts opens every
  // transaction so; on an error the transaction ends, and SET LOCAL with it).
  await w.tx.execute(sql`SET LOCAL plan_cache_mode = force_generic_plan`);
  await copyInto(connection, 'record_rows', ROW_COLUMNS, rowLines);
  await copyInto(connection, 'versions', VERSION_COLUMNS, versionLines);
  await copyInto(connection, 'cells', CELL_COLUMNS, cellLines);
  await w.tx.execute(sql`SET LOCAL plan_cache_mode = auto`);
}

/** Changes one existing row (locked by the caller): its name, description and cells, one version. */
export async function updateRow(w: WriteContext, plan: Extract<Plan, { kind: 'update' }>): Promise<void> {
  const messages: string[] = [];
  const changes: RowChange[] = [];
  if (plan.name !== undefined || plan.description !== undefined) {
    await w.tx.update(rows).set({
      ...(plan.name !== undefined ? { name: plan.name } : {}), ...(plan.description !== undefined ? { description: plan.description } : {}),
      dateUpdated: sql`now()`,
    }).where(sql`${rows.sid} = ${plan.row.sid}`);
    if (plan.name !== undefined) { messages.push('Renamed the row'); changes.push('renamed'); }
    if (plan.description !== undefined) { messages.push('Changed the description'); changes.push('description'); }
  }
  const written: { cell: string; column: string; data: string; created: boolean }[] = [];
  for (const c of plan.cells) {
    if (c.cellSid) {
      await w.tx.execute(sql`UPDATE cells SET data = ${c.data}, updated_by = ${w.userSid}, date_updated = now() WHERE sid = ${c.cellSid}`);
      written.push({ cell: c.cellSid, column: c.column.sid, data: c.data, created: false });
    } else {
      const sid = newSid();
      await w.tx.insert(cells).values({
        sid, organizationSid: w.organizationSid, rowSid: plan.row.sid, columnSid: c.column.sid, widgetSid: c.column.widgetSid, data: c.data,
        createdBy: w.userSid, updatedBy: w.userSid,
      });
      written.push({ cell: sid, column: c.column.sid, data: c.data, created: true });
    }
  }
  if (written.length) messages.push(`Changed the cells of ${plan.cells.map((c) => c.column.name).join(', ')}`);
  const version = await appendVersion(w.tx, plan.row.sid, w.userSid, `${messages.join('; ')}${VIA}`);
  if (changes.length) await emitRowChange(w.tx, { rowSid: plan.row.sid, userSid: w.userSid, version, changes });
  for (const c of plan.cells) await mentions(w, { sid: plan.row.sid, name: plan.name ?? plan.row.name }, c.column.name, plan.row.cells[c.column.sid]?.data ?? '', c.data);
  for (const c of written) {
    const [made] = await query<{ event: string }>(w.tx, sql`SELECT ${cellEvent({
      organization: w.organizationSid, table: w.tableSid, project: w.projectSid, row: plan.row.sid, open: plan.row.open_to_organization, version, userSid: w.userSid,
      dateUpdated: isoTimestamp(sql`now()`), cell: c.cell, column: c.column, created: c.created, data: c.data,
    })} AS event`);
    sendAfterCommit(w.tx, [made.event]);
  }
}

/**
 * Notifies the members an imported value mentions and the cell's data before did not, as a
 * cell edit does (notifications/mentions.ts); a value without "@" costs no query.
 */
async function mentions(w: WriteContext, row: { sid: string; name: string }, columnName: string, before: string, after: string): Promise<void> {
  const found = mentionsIn(after);
  if (!found.sids.size && !found.emails.size) return;
  await notifyMentions(w.tx, {
    organizationSid: w.organizationSid, row: { ...row, project_sid: w.projectSid }, columnName, authorUserSid: w.userSid, before, after,
  });
}
