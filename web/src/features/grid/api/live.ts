// The live grid: the changes of the record stream (lib/api/record-stream.ts) put into the
// cached grid pages in place, so every open grid shows them without a reload.
import { useQueryClient, type QueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../../lib/api/client';
import type { Page } from '../../../lib/api/page';
import { useRecordStream, type CellChange, type LiveStatus, type RecordChange } from '../../../lib/api/record-stream';
import { GRID_PAGE_SIZE, type GridKey, type GridRow } from './grid';

/** Puts `change` on every cached page of the grid `key` (any search) that holds row `rowSid`. */
function patchGridRow(queryClient: QueryClient, key: GridKey, rowSid: string, change: (row: GridRow) => GridRow) {
  queryClient.setQueriesData<Page<GridRow>>({ queryKey: ['grid', key.tableSid, key.projectSid] }, (old) =>
    old && old.results.some((row) => row.sid === rowSid)
      ? { ...old, results: old.results.map((row) => (row.sid === rowSid ? change(row) : row)) }
      : old,
  );
}

/** The data of a cell too long for an event (read with its row). */
async function cellData(change: CellChange): Promise<string> {
  const row = await unwrap(api.GET('/tables/row/detail/{sid}/', { params: { path: { sid: change.row } } }));
  return row.cells.find((cell) => cell.sid === change.cell)?.data ?? '';
}

/**
 * Applies a change to the cached pages of the grid `key`, in place. The changes of writes
 * made through different server processes may arrive out of order: a change older than
 * what a cell (or the row's name, lock and archive) shows is left out.
 */
async function applyToGrid(queryClient: QueryClient, key: GridKey, change: RecordChange) {
  if (change.kind === 'cell') {
    const data = change.data_omitted ? await cellData(change) : (change.data ?? '');
    patchGridRow(queryClient, key, change.row, (row) =>
      change.version <= (row.cells[change.column]?.version ?? row.base)
        ? { ...row, version: Math.max(row.version, change.version) }
        : {
            ...row,
            version: Math.max(row.version, change.version),
            cells: { ...row.cells, [change.column]: { sid: change.cell, data, by: change.by?.name, version: change.version } },
          },
    );
    return;
  }
  if (change.changes.includes('created')) {
    // A new row comes last (the grid's order is oldest first): page 1 (which gives the
    // count) and the page that holds the new row are read again, if they are shown.
    const pages = queryClient.getQueriesData<Page<GridRow>>({ queryKey: ['grid', key.tableSid, key.projectSid, key.search ?? ''] });
    if (pages.some(([, page]) => page?.results.some((row) => row.sid === change.row))) return; // already read
    const count = pages.find(([, page]) => page)?.[1]?.count ?? 0;
    const base = ['grid', key.tableSid, key.projectSid, key.search ?? ''];
    await Promise.all(
      [...new Set([1, Math.floor(count / GRID_PAGE_SIZE) + 1])].map((page) => queryClient.invalidateQueries({ queryKey: [...base, page], exact: true })),
    );
    return;
  }
  patchGridRow(queryClient, key, change.row, (row) =>
    change.version <= row.fieldsVersion
      ? { ...row, version: Math.max(row.version, change.version) }
      : {
          ...row,
          name: change.name,
          is_locked: change.is_locked,
          is_archived: change.is_archived,
          version: Math.max(row.version, change.version),
          fieldsVersion: change.version,
        },
  );
}

/** Keeps the open grid `key` live: each change of its rows lands in the cached pages. */
export function useLiveGrid(key: GridKey): LiveStatus {
  const queryClient = useQueryClient();
  return useRecordStream(
    { tableSid: key.tableSid, projectSid: key.projectSid },
    (change) => void applyToGrid(queryClient, key, change),
    () => void queryClient.invalidateQueries({ queryKey: ['grid', key.tableSid, key.projectSid] }),
  );
}
