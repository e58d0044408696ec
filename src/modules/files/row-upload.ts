// Files of a row (issue 25): the list level `row` of /files/file/ — GET lists every file ever
// attached to the row (its history's), POST uploads straight to one of its file cells
// (?column=, and ?replace= to put the upload in the place of a file the cell lists). An
// upload to a cell is one write: the row is locked, the descriptor written and attached,
// the cell set to its files' descriptors and the row's version appended — the version's
// data carries the new file's SHA-256 — and the widget's price debited, in one transaction
// (service.ts commitFile). Who may: exactly the row's and its cells' rules.
import type { AppContext } from '../../context.js';
import type { Actor } from '../../core/auth.js';
import type { Membership } from '../../core/access.js';
import type { LevelResolver, Scope } from '../../core/resource.js';
import type { Db } from '../../db/client.js';
import { errors } from '../../core/errors.js';
import { isSid } from '../../core/ids.js';
import { permissions } from '../../core/permissions.js';
import { loadRowAccess, type RowAccess } from '../rows/access.js';
import { readableRow } from '../rows/service.js';
import { cellData, checkRowState, findColumnOfTable, setLockedCell, type CellColumn } from '../cells/write.js';
import { FILE_KIND, filesOfCellData } from './cells.js';
import type { Attach, Attached } from './service.js';

/** A files list's scope: the organization's standing, and at level row the row. */
export interface FilesScope extends Scope {
  membership: Membership;
  access?: RowAccess;
}

/** level=row: a row the caller may read (406 for no such row; 404 for one they cannot read, 403 for a former member). */
export const rowLevel: LevelResolver<FilesScope> = async (ctx, actor, sid) => {
  if (!isSid(sid) || !(await loadRowAccess(ctx.db, actor, sid))) throw errors.wrongId();
  const access = await readableRow(ctx, actor, sid);
  return { level: 'row', sid, actor, membership: access.membership, access };
};

/** Where an upload to a row goes: checked before its bytes are read, and again under the row's lock. */
export interface RowTarget {
  rowSid: string;
  column: CellColumn;
  replace?: string;
}

function checkWrite(access: RowAccess, column: CellColumn) {
  const membership = access.membership!;
  if (!permissions.cell.write(membership, access.projectRole)) throw errors.writeRefused(membership, access.projectRole, access.row.project_sid);
  checkRowState(access.row, column.addable, true);
}

/**
 * Checks an upload to the row's file cell before any byte is read: the caller may write the
 * row's cells (the cell POST's rules), `column` is a file column of the row's table, the
 * row's state allows it. 400 naming `column` or `replace` for a bad one.
 */
export async function prepareRowUpload(ctx: AppContext, access: RowAccess, column: string | undefined, replace: string | undefined): Promise<RowTarget> {
  if (!column) throw errors.field('column', 'Name the file column to upload to: ?column=<column sid>.');
  const found = await findColumnOfTable(ctx.db, access.row.table_sid, column);
  if (!found) throw errors.field('column', "No column with this sid in the row's table.");
  if (found.kind !== FILE_KIND) throw errors.field('column', `The column ${found.name} does not hold files (its widget is not of kind file).`);
  if (replace !== undefined && !isSid(replace)) throw errors.field('replace', 'Not a file sid.');
  checkWrite(access, found);
  return { rowSid: access.row.sid, column: found, ...(replace !== undefined ? { replace } : {}) };
}

/** The commit step of an upload to a row's cell (service.ts commitFile): lock the row, check again, then set the cell. */
export function attachTo(ctx: AppContext, actor: Actor, target: RowTarget): Attach {
  return {
    rowSid: target.rowSid,
    lock: async (tx: Db) => {
      const access = await loadRowAccess(tx, actor, target.rowSid, { lock: true });
      if (!access?.membership) throw errors.notFound();
      checkWrite(access, target.column);
      return {
        rowSid: target.rowSid,
        attach: async (inner: Db, fileSid: string): Promise<Attached> => {
          const listed = filesOfCellData(await cellData(inner, target.rowSid, target.column.sid)).map((f) => f.sid);
          if (target.replace !== undefined) {
            const at = listed.indexOf(target.replace);
            if (at < 0) throw errors.field('replace', `The cell does not list the file ${target.replace}; nothing was stored.`);
            listed[at] = fileSid;
          } else {
            listed.push(fileSid);
          }
          const set = await setLockedCell(inner, {
            organizationSid: access.row.organization_sid, rowSid: target.rowSid, column: target.column, data: JSON.stringify(listed),
            userSid: actor.userSid, salesContact: ctx.config.salesContact, rowMaxBytes: ctx.config.rowMaxBytes, onPost: true,
          }, access.row);
          return { cell: set.cell, version: set.version };
        },
      };
    },
  };
}

/**
 * A resumable upload's target from its metadata (`row`, `column`, `replace`), or undefined
 * when it names no row: the row must be of the upload's organization and the caller may
 * write its cells (the same checks as the multipart upload to a row).
 */
export async function rowTargetOf(
  ctx: AppContext, actor: Actor, organizationSid: string, metadata: Record<string, string | null> | undefined,
): Promise<RowTarget | undefined> {
  const row = metadata?.row ?? undefined;
  if (row === undefined) {
    if (metadata?.column != null || metadata?.replace != null) throw errors.field('row', 'Name the row in Upload-Metadata (row <its sid, base64>) with a column.');
    return undefined;
  }
  if (!isSid(row)) throw errors.field('row', 'Not a row sid.');
  const access = await readableRow(ctx, actor, row);
  if (access.row.organization_sid !== organizationSid) throw errors.field('row', 'The row is not of the organization the upload is for.');
  return prepareRowUpload(ctx, access, metadata?.column ?? undefined, metadata?.replace ?? undefined);
}
