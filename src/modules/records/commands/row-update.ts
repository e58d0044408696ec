// Command: change a row (PATCH /tables/row/detail/{sid}/; spec: Row endpoints, States).
import type { AppContext } from '../../../context.js';
import type { Actor } from '../../../core/auth.js';
import { permissions } from '../../../core/permissions.js';
import { errors } from '../../../core/errors.js';
import { cellValuesOf, projectsToJoin, readableRow } from '../../rows/service.js';
import { findRow } from '../../rows/repository.js';
import { putCell } from '../../cells/write.js';
import { findColumnsOfTable } from '../columns.js';
import { applyRowChanges, FIELD_KEYS, setRowProjects, type RowChanges } from '../row-fields.js';

/**
 * Changes a row: name and description by Project Admin or Edit, is_locked and
 * is_archived by Project Admin. An archived row only takes being unarchived; a locked
 * row keeps its name and description until unlocked. A change appends a version;
 * a PATCH that changes nothing appends none.
 */
export async function rowUpdate(ctx: AppContext, actor: Actor, sid: string, changes: RowChanges) {
  const { membership, projectRole, row: current } = await readableRow(ctx, actor, sid);
  const wantsState = changes.is_locked !== undefined || changes.is_archived !== undefined;
  const wantsFields = FIELD_KEYS.some((key) => changes[key] !== undefined);
  const cellValues = cellValuesOf(changes);
  if (wantsState && !permissions.row.changeState(membership, projectRole)) throw errors.forbidden();
  if ((wantsFields || cellValues.length) && !permissions.row.change(membership, projectRole)) {
    throw errors.writeRefused(membership, projectRole, current.project_sid);
  }
  // Moving a row between projects: Project Admin of the row, and one who may create rows in each project it joins.
  if (changes.projects !== undefined && !permissions.row.changeState(membership, projectRole)) throw errors.forbidden();
  const columnsFound = cellValues.length ? await findColumnsOfTable(ctx.db, current.table_sid, cellValues.map(([key]) => key)) : new Map();
  const unknown = cellValues.filter(([key]) => !columnsFound.has(key));
  if (unknown.length) throw errors.fields(Object.fromEntries(unknown.map(([key]) => [key, "No column with this sid in the row's table."])));
  const projectSids = changes.projects !== undefined
    ? await projectsToJoin(ctx, membership, changes.projects.map((p) => p.sid), 'projects')
    : undefined;

  // The answer is read in the change's transaction: it shows this change, not a later one.
  const row = await ctx.db.transaction(async (tx) => {
    await applyRowChanges(tx, actor.userSid, sid, changes, undefined, ctx.config.rowMaxBytes);
    if (projectSids) await setRowProjects(tx, actor.userSid, sid, membership.organizationSid, projectSids);
    for (const [column, data] of cellValues) {
      if (data === null) continue;
      await putCell(tx, {
        organizationSid: membership.organizationSid, rowSid: sid, column: columnsFound.get(column)!, data, userSid: actor.userSid,
        salesContact: ctx.config.salesContact, onPost: false, rowMaxBytes: ctx.config.rowMaxBytes,
      });
    }
    return (await findRow(tx, sid, membership.personnelSid))!;
  });
  return { row, membership };
}

