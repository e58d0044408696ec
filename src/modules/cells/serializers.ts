import type { Serializer } from '../../core/resource.js';
import type { Membership } from '../../core/access.js';
import { permissions } from '../../core/permissions.js';
import { formatMoney } from '../../core/sql.js';
import type { CellRecord } from './repository.js';

/** What a cell's detail shape takes from its row: the row's sid and name, its state, and the viewer's project role on it. */
export type CellRowStanding = Pick<CellRecord, 'row' | 'permission' | 'is_locked' | 'is_archived'>;

/** Whether the viewer may change the cell now: their project role and the row's state (spec: States, rules about cells). */
export function cellWritable(
  cell: Pick<CellRecord, 'addable_at_readonly'>, standing: Pick<CellRowStanding, 'permission' | 'is_locked' | 'is_archived'>, viewer: Membership,
): boolean {
  return permissions.cell.write(viewer, standing.permission) && !standing.is_archived && (!standing.is_locked || cell.addable_at_readonly);
}

/** A cell in the spec's name, list or detail shape. */
export function serializeCell(cell: CellRecord, serializer: Serializer, viewer: Membership) {
  if (serializer === 'name') return { sid: cell.sid, name: cell.column.name };
  const change_permission = cellWritable(cell, cell, viewer);
  if (serializer === 'list') return { sid: cell.sid, row: cell.row, widget: cell.widget, price: formatMoney(cell.price), change_permission };
  return serializeCellDetail(cell, cell, viewer);
}

/**
 * A cell in the detail shape, from the fields that shape needs and its row's standing
 * (the grid passes one standing for all the cells of a row, rather than a copy of each
 * cell with its row's fields: copying them was most of the grid's own time).
 */
export function serializeCellDetail(
  cell: Pick<CellRecord, 'sid' | 'data' | 'column' | 'widget' | 'date_created' | 'date_updated' | 'addable_at_readonly'>,
  standing: CellRowStanding, viewer: Membership,
) {
  return {
    sid: cell.sid, data: cell.data, row: standing.row, column: cell.column, widget: cell.widget,
    date_updated: cell.date_updated, date_created: cell.date_created, change_permission: cellWritable(cell, standing, viewer),
  };
}
