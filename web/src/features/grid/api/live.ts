// Live record changes: the API's stream of a table's row and cell changes
// (GET /tables/row/stream/, Server-Sent Events, the session cookie) put into the query
// cache in place, so every open grid and history shows them without a reload. The stream
// is opened by the screen that shows the rows and closed when it goes.
import { useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { api, unwrap } from '../../../lib/api/client';
import type { Page } from '../../../lib/api/page';
import { GRID_PAGE_SIZE, type GridKey, type GridRow } from './grid';

/** Who made a change: personnel of the organization (null when they are not). */
export type Author = { sid: string; name: string } | null;

interface ChangeBase {
  table: string;
  project: string;
  row: string;
  /** The row's version the change made. */
  version: number;
  by: Author;
  date_updated: string;
}

/** A row created or changed (`event: row`): its state after the change. */
export interface RowChange extends ChangeBase {
  kind: 'row';
  changes: Array<'created' | 'renamed' | 'description' | 'fields' | 'projects' | 'sections' | 'locked' | 'unlocked' | 'archived' | 'unarchived'>;
  name: string;
  is_locked: boolean;
  is_archived: boolean;
}

/** A cell created or changed (`event: cell`); `data` is null with `data_omitted` when it is long. */
export interface CellChange extends ChangeBase {
  kind: 'cell';
  cell: string;
  column: string;
  data: string | null;
  data_omitted: boolean;
  created: boolean;
}

export type RecordChange = RowChange | CellChange;

/** What the person is told about the stream. */
export type LiveStatus = { state: 'connecting' | 'live' | 'reconnecting' } | { state: 'ended'; detail: string };

export interface StreamFilter {
  tableSid: string;
  projectSid?: string;
  rowSid?: string;
}

/**
 * Opens the stream of `filter` while the component is mounted (not while `tableSid` is
 * empty). `onChange` gets each change; `onResync` when changes may have been missed (a
 * reconnect, or the server says so): re-read what is shown. Events carry no id, so a
 * reconnect re-reads instead of replaying (docs/decisions.md, "The live grid").
 */
export function useRecordStream(filter: StreamFilter, onChange: (change: RecordChange) => void, onResync: () => void): LiveStatus {
  const [status, setStatus] = useState<LiveStatus>({ state: 'connecting' });
  const handlers = useRef({ onChange, onResync });
  handlers.current = { onChange, onResync };
  const { tableSid, projectSid, rowSid } = filter;
  useEffect(() => {
    if (!tableSid) return;
    const query = new URLSearchParams({ table__sid: tableSid, ...(projectSid ? { project__sid: projectSid } : {}), ...(rowSid ? { row__sid: rowSid } : {}) });
    const source = new EventSource(`/tables/row/stream/?${query}`, { withCredentials: true });
    let opened = false;
    setStatus({ state: 'connecting' });
    source.onopen = () => {
      if (opened) handlers.current.onResync();
      opened = true;
      setStatus({ state: 'live' });
    };
    source.onerror = () => {
      if (source.readyState === EventSource.CLOSED) setStatus({ state: 'ended', detail: 'The live updates stopped: reload the page to resume them.' });
      else setStatus({ state: 'reconnecting' });
    };
    const receive = (event: MessageEvent<string>) => handlers.current.onChange(JSON.parse(event.data) as RecordChange);
    source.addEventListener('row', receive);
    source.addEventListener('cell', receive);
    source.addEventListener('resync', () => handlers.current.onResync());
    source.addEventListener('end', (event: MessageEvent<string>) => {
      source.close();
      setStatus({ state: 'ended', detail: (JSON.parse(event.data) as { detail: string }).detail });
    });
    return () => source.close();
  }, [tableSid, projectSid, rowSid]);
  return status;
}

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

/** Applies a change to the cached pages of the grid `key`, in place. */
async function applyToGrid(queryClient: QueryClient, key: GridKey, change: RecordChange) {
  if (change.kind === 'cell') {
    const data = change.data_omitted ? await cellData(change) : (change.data ?? '');
    patchGridRow(queryClient, key, change.row, (row) => ({
      ...row,
      version: Math.max(row.version, change.version),
      cells: { ...row.cells, [change.column]: { sid: change.cell, data, by: change.by?.name } },
    }));
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
  patchGridRow(queryClient, key, change.row, (row) => ({
    ...row,
    name: change.name,
    is_locked: change.is_locked,
    is_archived: change.is_archived,
    version: Math.max(row.version, change.version),
  }));
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

/** The status as a sentence for the screen's live region. */
export function liveStatusText(status: LiveStatus): string {
  switch (status.state) {
    case 'connecting':
      return 'Connecting to live updates…';
    case 'live':
      return 'Live: changes by others show here as they happen.';
    case 'reconnecting':
      return 'Live updates interrupted: reconnecting…';
    case 'ended':
      return status.detail;
  }
}
