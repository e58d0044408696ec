// The records grid's server state: a table's rows with their cells, a page of 100 at a
// time (only the pages the grid shows are fetched), and the writes made from the grid:
// cells (optimistic, rolled back on refusal), new rows, renames, locks and archives.
import { queryOptions, useMutation, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../../lib/api/client';
import type { Page } from '../../../lib/api/page';

/** Rows a grid page holds: the API's largest page. */
export const GRID_PAGE_SIZE = 100;

/** A cell as the grid holds it. */
export interface GridCell {
  /** Empty until the cell exists on the server. */
  sid: string;
  data: string;
  /** Who last changed it, when a live change said so (the name of a member). */
  by?: string;
  /** The row's version this value is of, when a change set it (else the page's `base`). */
  version?: number;
}

/** A row as the grid shows it: the row's fields and its cells keyed by column sid. */
export interface GridRow {
  sid: string;
  name: string;
  is_locked: boolean;
  is_archived: boolean;
  version: number;
  /** The row's version when its page was read: what it shows is of that version until a change says otherwise. */
  base: number;
  /** The version the name, lock and archive shown are of. */
  fieldsVersion: number;
  change_permission: boolean;
  cells: Record<string, GridCell>;
}

type GridRowAnswer = Awaited<ReturnType<typeof fetchRowPage>>['results'][number];

/** One page of the table's rows in the project with their cells (the grid endpoint: one request a page). */
function fetchRowPage(key: GridKey, page: number) {
  return unwrap(
    api.GET('/tables/row/list/table/{sid}/grid/', {
      params: {
        path: { sid: key.tableSid },
        query: { project__sid: key.projectSid, page, page_size: GRID_PAGE_SIZE, ...(key.search ? { search: key.search } : {}) },
      },
    }),
  );
}

function toGridRow(row: GridRowAnswer): GridRow {
  const cells: Record<string, GridCell> = {};
  for (const [columnSid, cell] of Object.entries(row.cells)) cells[columnSid] = { sid: cell.sid, data: cell.data };
  return {
    sid: row.sid,
    name: row.name,
    is_locked: row.is_locked,
    is_archived: row.is_archived,
    version: row.version,
    base: row.version,
    fieldsVersion: row.version,
    change_permission: row.change_permission,
    cells,
  };
}

export interface GridKey {
  orgSid: string;
  tableSid: string;
  projectSid: string;
  /** Only rows whose name contains this. */
  search?: string;
}

const gridKey = ({ tableSid, projectSid, search }: GridKey) => ['grid', tableSid, projectSid, search ?? ''] as const;

/** One page of the grid's rows (pages from 1). */
export const gridPageQuery = (key: GridKey, page: number) =>
  queryOptions({
    queryKey: [...gridKey(key), page],
    queryFn: async (): Promise<Page<GridRow>> => {
      const found = await fetchRowPage(key, page);
      return { ...found, results: found.results.map(toGridRow) };
    },
    staleTime: 30_000,
  });

/** Puts `change` on the cached row `rowSid` of grid page `page`. */
function patchRow(queryClient: QueryClient, key: GridKey, page: number, rowSid: string, change: (row: GridRow) => GridRow) {
  queryClient.setQueryData<Page<GridRow>>([...gridKey(key), page], (old) =>
    old ? { ...old, results: old.results.map((row) => (row.sid === rowSid ? change(row) : row)) } : old,
  );
}

export interface CellWrite {
  page: number;
  row: GridRow;
  columnSid: string;
  data: string;
}

/**
 * Writes a cell (creates it when the row has none for the column): the grid shows the new
 * value at once and puts the old one back when the API refuses; the credits and the
 * row's history are refreshed either way.
 */
export function useSaveCell(key: GridKey) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ row, columnSid, data }: CellWrite) => {
      const existing = row.cells[columnSid];
      return existing?.sid
        ? unwrap(api.PATCH('/tables/cell/detail/{sid}/', { params: { path: { sid: existing.sid } }, body: { data } }))
        : unwrap(
            api.POST('/tables/cell/list/{level}/{sid}/detail/', {
              params: { path: { level: 'organization', sid: key.orgSid }, query: { row__sid: row.sid } },
              body: { column: columnSid, data },
            }),
          );
    },
    onMutate: async ({ page, row, columnSid, data }) => {
      await queryClient.cancelQueries({ queryKey: [...gridKey(key), page] });
      const before = row.cells[columnSid];
      patchRow(queryClient, key, page, row.sid, (r) => ({ ...r, cells: { ...r.cells, [columnSid]: { sid: before?.sid ?? '', data } } }));
      return { before, version: row.version };
    },
    onError: (_error, { page, row, columnSid }, context) => {
      patchRow(queryClient, key, page, row.sid, (r) => {
        const cells = { ...r.cells };
        if (context?.before) cells[columnSid] = context.before;
        else delete cells[columnSid];
        return { ...r, cells };
      });
    },
    onSuccess: (cell, { page, row, columnSid }, context) => {
      patchRow(queryClient, key, page, row.sid, (r) => {
        // The write made the next version; the live stream may have said so already.
        const version = Math.max(r.version, (context?.version ?? r.version) + 1);
        return { ...r, version, cells: { ...r.cells, [columnSid]: { sid: cell.sid, data: cell.data, version } } };
      });
    },
    onSettled: (_data, _error, { row }) =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: ['organization', key.orgSid] }),
        queryClient.invalidateQueries({ queryKey: ['versions', row.sid] }),
      ]),
  });
}

/** Adds a row to the table in the project. */
export function useCreateRow(key: GridKey) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (name: string) =>
      unwrap(
        api.POST('/tables/row/list/{level}/{sid}/detail/', {
          params: { path: { level: 'organization', sid: key.orgSid }, query: { table__sid: key.tableSid, project__sid: key.projectSid } },
          body: { name },
        }),
      ),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ['grid', key.tableSid, key.projectSid] }),
  });
}

export type RowChanges = { name?: string; is_locked?: boolean; is_archived?: boolean };

/** Renames, locks or archives a row (and the reverse). */
export function useUpdateRow(key: GridKey) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ row, changes }: { page: number; row: GridRow; changes: RowChanges }) =>
      unwrap(api.PATCH('/tables/row/detail/{sid}/', { params: { path: { sid: row.sid } }, body: changes })),
    onSuccess: (updated, { page, row }) => {
      patchRow(queryClient, key, page, row.sid, (r) => ({
        ...r,
        name: updated.name,
        is_locked: updated.is_locked,
        is_archived: updated.is_archived,
        version: Math.max(r.version, updated.version),
        fieldsVersion: updated.version,
        change_permission: updated.change_permission,
      }));
      void queryClient.invalidateQueries({ queryKey: ['versions', row.sid] });
    },
  });
}
