// Live record changes: the API's stream of a table's row and cell changes
// (GET /tables/row/stream/, Server-Sent Events, the session cookie). The stream is opened
// by the screen that shows the rows (the grid, a row's history) and closed when it goes;
// each screen puts the changes into its own cached answers.
import { useEffect, useRef, useState } from 'react';

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
  changes: Array<'created' | 'renamed' | 'description' | 'locked' | 'unlocked' | 'archived' | 'unarchived'>;
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
