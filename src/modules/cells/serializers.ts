import type { Serializer } from '../../core/resource.js';
import type { Membership } from '../../core/access.js';
import { permissions } from '../../core/permissions.js';
import { formatMoney } from '../../core/sql.js';
import type { CellRecord } from './repository.js';

/** Whether the viewer may change the cell now: their project role and the row's state (spec: States, rules about cells). */
export function cellWritable(cell: Pick<CellRecord, 'permission' | 'is_locked' | 'is_archived' | 'addable_at_readonly'>, viewer: Membership): boolean {
  return permissions.cell.write(viewer, cell.permission) && !cell.is_archived && (!cell.is_locked || cell.addable_at_readonly);
}

/** A cell in the spec's name, list or detail shape. */
export function serializeCell(cell: CellRecord, serializer: Serializer, viewer: Membership) {
  if (serializer === 'name') return { sid: cell.sid, name: cell.column.name };
  const change_permission = cellWritable(cell, viewer);
  if (serializer === 'list') return { sid: cell.sid, row: cell.row, widget: cell.widget, price: formatMoney(cell.price), change_permission };
  return serializeCellDetail(cell, viewer);
}

/** A cell in the detail shape, from the fields that shape needs (the grid reads no more). */
export function serializeCellDetail(cell: Omit<CellRecord, 'organization_sid' | 'price'>, viewer: Membership) {
  return {
    sid: cell.sid, data: cell.data, row: cell.row, column: cell.column, widget: cell.widget,
    date_updated: cell.date_updated, date_created: cell.date_created, change_permission: cellWritable(cell, viewer),
  };
}
