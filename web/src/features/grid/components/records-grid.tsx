// The records grid: rows × columns in a virtualized ARIA grid (only the rows in view are
// in the DOM). The table owns the focus (which cell, and whether the DOM focus is inside)
// and which cell is in edit mode; each cell is a GridCell (grid-cell.tsx) in display or
// edit mode, whose editor raises Enter, Tab, Escape and a click outside for the table to
// act on. Every navigation key is handled in one place (handleKey). It knows nothing of the
// API: rows come from rowAt(), writes go out through onSave(), refusals come back through
// errorAt(), and the page hears where the focus is through onFocusedChange(). A cell changed
// by someone else while the person edits it keeps their draft and says so: Enter keeps
// theirs and saves, Escape takes the new value.
import { useVirtualizer } from '@tanstack/react-virtual';
import { useCallback, useEffect, useLayoutEffect, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import type { GridRow } from '../api/grid';
import { GridCell, type CellEdit, type CellEditEvents, type GridColumn } from './grid-cell';

export type { GridColumn } from './grid-cell';

/** A cell's place: row index (from 0) and column index (0 is the row's name). */
export interface CellPosition {
  row: number;
  col: number;
}

/** Where the focus is when a grid opens: the first row's first column. */
export const FIRST_CELL: CellPosition = { row: 0, col: 1 };

interface RecordsGridProps {
  label: string;
  rowCount: number;
  columns: GridColumn[];
  rowAt: (index: number) => GridRow | undefined;
  /** Why the person may not change this cell; null when they may. */
  editBlock: (row: GridRow, column: GridColumn) => string | null;
  /** Sends a write; the promise fails when it is refused (the focus then goes back to the cell). */
  onSave: (index: number, row: GridRow, column: GridColumn, data: string) => Promise<void>;
  errorAt: (rowSid: string, columnSid: string) => string | undefined;
  onDismissError: (rowSid: string, columnSid: string) => void;
  onVisibleRange: (first: number, last: number) => void;
  /** Told each time the focus moves to another cell (the page's toolbar acts on its row). */
  onFocusedChange?: (position: CellPosition) => void;
  /** The content of a `custom` column's cell (a file cell). */
  renderCell?: (row: GridRow, column: GridColumn) => ReactNode;
}

const ROW_HEIGHT = 36;

/** The cell in edit mode: where, the value it had when editing began, and the first draft. */
interface Editing extends CellEdit {
  position: CellPosition;
}

export function RecordsGrid(props: RecordsGridProps) {
  const { label, rowCount, columns, rowAt, editBlock, onSave, errorAt, onDismissError, onVisibleRange, onFocusedChange, renderCell } = props;
  const scrollRef = useRef<HTMLDivElement>(null);
  // The focus: the table's own. The page hears of each move (onFocusedChange).
  const [focused, setFocusedState] = useState<CellPosition>(FIRST_CELL);
  const reportFocus = useRef(onFocusedChange);
  reportFocus.current = onFocusedChange;
  const setFocused = useCallback((position: CellPosition) => {
    setFocusedState((old) => (old.row === position.row && old.col === position.col ? old : position));
  }, []);
  useEffect(() => reportFocus.current?.(focused), [focused]);
  const [editing, setEditingState] = useState<Editing | null>(null);
  // The editing cell as of now (a blur after Enter or Escape must not save again).
  const editingRef = useRef(editing);
  const setEditing = (next: Editing | null, keepFocus = true) => {
    // Leaving the editor with a key keeps the focus in the grid; leaving it by a click elsewhere does not.
    if (editingRef.current && !next) focusInside.current = keepFocus;
    editingRef.current = next;
    setEditingState(next);
  };
  const [notice, setNotice] = useState('');
  const focusInside = useRef(false);
  const colCount = columns.length + 1;

  const virtualizer = useVirtualizer({
    count: rowCount,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 8,
  });
  const items = virtualizer.getVirtualItems();
  const first = items[0]?.index ?? 0;
  const last = items[items.length - 1]?.index ?? -1;

  useEffect(() => {
    if (last >= 0) onVisibleRange(first, last);
  }, [first, last, onVisibleRange]);

  // Keep the focused cell in view and, while the grid has the focus, give it the focus
  // (at once when the cell is rendered, else once the virtualizer has scrolled to it).
  useLayoutEffect(() => {
    if (!focusInside.current || rowCount === 0 || editing) return;
    const cellAt = () => scrollRef.current?.querySelector<HTMLElement>(`[data-row="${focused.row}"][data-col="${focused.col}"]`);
    const now = cellAt();
    if (now) {
      now.focus({ preventScroll: true });
      now.scrollIntoView({ block: 'nearest', inline: 'nearest' });
      return;
    }
    virtualizer.scrollToIndex(focused.row, { align: 'auto' });
    const frame = requestAnimationFrame(() => cellAt()?.focus({ preventScroll: true }));
    return () => cancelAnimationFrame(frame);
  }, [focused.row, focused.col, editing, rowCount, virtualizer]);

  const move = useCallback(
    (row: number, col: number) => {
      setFocused({ row: Math.max(0, Math.min(rowCount - 1, row)), col: Math.max(0, Math.min(colCount - 1, col)) });
    },
    [setFocused, rowCount, colCount],
  );

  const startEditing = (position: CellPosition, draft?: string) => {
    const row = rowAt(position.row);
    const column = columns[position.col - 1];
    if (!row || !column || column.custom) return;
    const block = editBlock(row, column);
    if (block) {
      setNotice(block);
      return;
    }
    setNotice('');
    onDismissError(row.sid, column.sid);
    const base = row.cells[column.sid]?.data ?? '';
    setEditing({ position, draft: draft ?? base, base });
  };

  /** Leaves edit mode, saving `draft` if it differs from the cell's value; a refusal brings the focus back. */
  const commit = (draft: string, byBlur = false) => {
    const current = editingRef.current;
    if (!current) return;
    const { position } = current;
    const row = rowAt(position.row);
    const column = columns[position.col - 1];
    setEditing(null, !byBlur);
    if (row && column && draft !== (row.cells[column.sid]?.data ?? '')) {
      onSave(position.row, row, column, draft).catch(() => setFocused(position));
    }
  };

  /** What the table does on each event of the cell in edit mode. */
  const editEvents: CellEditEvents = {
    onEnter: (draft) => {
      const at = editingRef.current?.position;
      commit(draft);
      if (at) move(at.row + 1, at.col);
    },
    onTab: (draft, backwards) => {
      const at = editingRef.current?.position;
      commit(draft);
      if (at) move(at.row, at.col + (backwards ? -1 : 1));
    },
    onEscape: () => setEditing(null),
    onClickOutside: (draft) => commit(draft, true),
    onSave: (draft) => commit(draft),
  };

  /** The navigation keys (the editor handles its own: see editEvents). */
  const handleKey = (event: KeyboardEvent<HTMLDivElement>) => {
    const { row, col } = focused;
    if (editing) return;
    const page = Math.max(1, Math.floor((scrollRef.current?.clientHeight ?? ROW_HEIGHT * 10) / ROW_HEIGHT) - 1);
    const moves: Record<string, () => void> = {
      ArrowDown: () => move(row + 1, col),
      ArrowUp: () => move(row - 1, col),
      ArrowRight: () => move(row, col + 1),
      ArrowLeft: () => move(row, col - 1),
      PageDown: () => move(row + page, col),
      PageUp: () => move(row - page, col),
      Home: () => (event.ctrlKey ? move(0, 0) : move(row, 0)),
      End: () => (event.ctrlKey ? move(rowCount - 1, colCount - 1) : move(row, colCount - 1)),
      Enter: () => startEditing(focused),
      F2: () => startEditing(focused),
      Escape: () => {
        const r = rowAt(row);
        const column = columns[col - 1];
        if (r && column) onDismissError(r.sid, column.sid);
        setNotice('');
      },
    };
    const action = moves[event.key];
    if (action) {
      event.preventDefault();
      action();
    } else if (event.key.length === 1 && !event.ctrlKey && !event.metaKey && !event.altKey && col > 0) {
      event.preventDefault();
      startEditing(focused, event.key);
    }
  };

  const focusedRendered = items.some((item) => item.index === focused.row);
  // A popover under a cell being edited in one of the last rows needs room below them.
  const editingNearEnd = editing !== null && editing.position.row >= rowCount - 3;
  const template = `minmax(14rem, 1.4fr) repeat(${columns.length}, minmax(11rem, 1fr))`;

  return (
    <div className="grid-frame">
      <div
        ref={scrollRef}
        className={`grid-scroll${editingNearEnd ? ' has-popover-room' : ''}`}
        role="grid"
        aria-label={label}
        aria-rowcount={rowCount + 1}
        aria-colcount={colCount}
        tabIndex={focusedRendered ? -1 : 0}
        onKeyDown={handleKey}
        onFocus={(event) => {
          focusInside.current = true;
          if (event.target === event.currentTarget) move(focused.row, focused.col);
        }}
        onBlur={(event) => {
          if (!event.currentTarget.contains(event.relatedTarget as Node | null)) focusInside.current = false;
        }}
      >
        <div role="rowgroup" className="grid-head">
          <div role="row" aria-rowindex={1} className="grid-row" style={{ gridTemplateColumns: template }}>
            <div role="columnheader" aria-colindex={1} className="grid-cell">
              Row
            </div>
            {columns.map((column, index) => (
              <div role="columnheader" aria-colindex={index + 2} key={column.sid} className="grid-cell">
                {column.name}
                {column.priced && <span className="price"> · {column.price} a write</span>}
              </div>
            ))}
          </div>
        </div>
        <div role="rowgroup" className="grid-body" style={{ height: virtualizer.getTotalSize() }}>
          {items.map((item) => {
            const row = rowAt(item.index);
            const readOnly = row ? row.is_locked || row.is_archived : false;
            // A refused write's message shows inside its cell, and the row grows to hold it
            // (measured), so it covers no other row's cell.
            const refused = row ? columns.some((column) => errorAt(row.sid, column.sid)) : false;
            return (
              <div
                key={item.key}
                ref={virtualizer.measureElement}
                data-index={item.index}
                role="row"
                aria-rowindex={item.index + 2}
                aria-busy={row ? undefined : true}
                className={`grid-row${readOnly ? ' grid-row-readonly' : ''}${refused ? ' grid-row-tall' : ''}`}
                style={{ gridTemplateColumns: template, transform: `translateY(${item.start}px)` }}
              >
                <div
                  role="rowheader"
                  aria-colindex={1}
                  className={`grid-cell grid-rowname${focused.row === item.index && focused.col === 0 ? ' is-focused' : ''}`}
                  data-row={item.index}
                  data-col={0}
                  tabIndex={focused.row === item.index && focused.col === 0 ? 0 : -1}
                  onMouseDown={() => move(item.index, 0)}
                >
                  {row ? (
                    <>
                      <span className="rowname-text">{row.name}</span>
                      {row.is_locked && <span className="badge">Locked</span>}
                      {row.is_archived && <span className="badge">Archived</span>}
                    </>
                  ) : (
                    <span className="muted">Loading…</span>
                  )}
                </div>
                {columns.map((column, index) => {
                  const col = index + 1;
                  const isEditing = editing?.position.row === item.index && editing.position.col === col;
                  return (
                    <GridCell
                      key={column.sid}
                      rowIndex={item.index}
                      col={col}
                      column={column}
                      row={row}
                      block={row ? editBlock(row, column) : 'Loading'}
                      error={row ? errorAt(row.sid, column.sid) : undefined}
                      focused={focused.row === item.index && focused.col === col}
                      edit={isEditing ? editing : null}
                      events={editEvents}
                      onPress={() => move(item.index, col)}
                      onOpen={() => startEditing({ row: item.index, col })}
                      custom={column.custom && row && renderCell ? renderCell(row, column) : undefined}
                    />
                  );
                })}
              </div>
            );
          })}
        </div>
      </div>
      <p className="grid-status" role="status" aria-live="polite">
        {notice}
      </p>
    </div>
  );
}
