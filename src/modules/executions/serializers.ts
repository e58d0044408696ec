import type { Db } from '../../db/client.js';
import type { Serializer } from '../../core/resource.js';
import type { Membership } from '../../core/access.js';
import { permissions } from '../../core/permissions.js';
import { logsOf, type ExecutionRecord } from './repository.js';

const nameOf = (e: ExecutionRecord) => `${e.workflow.name} on ${e.row.name}`;

/** Executions in a shape for a viewer; the detail shape's logs of the whole batch come from one query. */
export async function serializeExecutions(db: Db, found: ExecutionRecord[], serializer: Serializer, viewer: Membership) {
  if (serializer === 'name') return found.map((e) => ({ sid: e.sid, name: nameOf(e) }));
  const change_permission = permissions.execution.continue(viewer);
  const records = found.map((e) => ({
    sid: e.sid, name: nameOf(e), workflow: e.workflow, row: e.row, status: e.status, current_step: e.current_step,
    waiting_for: e.waiting_for, error: e.error, started_by: e.started_by, date_created: e.date_created, date_updated: e.date_updated,
    change_permission,
  }));
  if (serializer === 'list') return records;
  const logs = await logsOf(db, found.map((e) => e.sid));
  return records.map((record, i) => ({ ...record, variables: found[i].variables, data: found[i].data, log: logs.get(record.sid)! }));
}

/** One execution in a shape. */
export async function serializeExecution(db: Db, found: ExecutionRecord, serializer: Serializer, viewer: Membership) {
  return (await serializeExecutions(db, [found], serializer, viewer))[0];
}
