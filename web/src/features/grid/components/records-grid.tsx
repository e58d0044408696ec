// The records grid: rows × columns in a virtualized ARIA grid (only the rows in view are
// in the DOM), a focused cell and an editing cell, and every key handled in one place
// (handleKey). It knows nothing of the API: rows come from rowAt(), writes go out through
// onSave(), refusals come back through errorAt(). A cell changed by someone else while the
// person edits it keeps their draft and says so: Enter keeps theirs and saves, Escape takes
// the new value.
import { useVirtualizer } from '@tanstack/react-virtual';
import { useCallback, useEffect, useLayoutEffect, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import type { GridRow } from '../api/grid';

/** A column as the grid shows it. */
export interface GridColumn {
  sid: string;
  name: string;
  /** The price of one write through the column's widget, e.g. "$0.50". */
  price: string;
  priced: boolean;
  /** Drawn by renderCell (a file cell: features/files), never edited as text. */
  custom?: boolean;
}

/** A cell's place: row index (from 0) and column index (0 is the row's name). */
export interface CellPosition {
  row: number;
  col: number;
}

interface RecordsGridProps {
  label: string;
  rowCount: number;
  columns: GridColumn[];
  rowAt: (index: number) => GridRow | undefined;
  /** Why the person may not change this cell; null when they may. */
  editBlock: (row: GridRow, column: GridColumn) => string | null;
  onSave: (index: number, row: GridRow, column: GridColumn, data: string) => void;
  errorAt: (rowSid: string, columnSid: string) => string | undefined;
  onDismissError: (rowSid: string, columnSid: string) => void;
  onVisibleRange: (first: number, last: number) => void;
  focused: CellPosition;
  onFocusedChange: (position: CellPosition) => void;
  /** The content of a `custom` column's cell. */
  renderCell?: (row: GridRow, column: GridColumn) => ReactNode;
}

const ROW_HEIGHT = 36;

/** The cell being edited: where, the person's draft, and the value it had when editing began. */
interface Editing {
  position: CellPosition;
  draft: string;
  base: string;
}

export function RecordsGrid(props: RecordsGridProps) {
  const { label, rowCount, columns, rowAt, editBlock, onSave, errorAt, onDismissError, onVisibleRange, focused, onFocusedChange, renderCell } = props;
  const scrollRef = useRef<HTMLDivElement>(null);
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
      onFocusedChange({ row: Math.max(0, Math.min(rowCount - 1, row)), col: Math.max(0, Math.min(colCount - 1, col)) });
    },
    [onFocusedChange, rowCount, colCount],
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

  const commit = (byBlur = false) => {
    const current = editingRef.current;
    if (!current) return;
    const row = rowAt(current.position.row);
    const column = columns[current.position.col - 1];
    setEditing(null, !byBlur);
    if (row && column && current.draft !== (row.cells[column.sid]?.data ?? '')) onSave(current.position.row, row, column, current.draft);
  };

  /** Every key the grid answers, in navigation and in editing mode. */
  const handleKey = (event: KeyboardEvent<HTMLDivElement>) => {
    const { row, col } = focused;
    if (editing) {
      if (event.key === 'Enter') {
        event.preventDefault();
        commit();
        move(row + 1, col);
      } else if (event.key === 'Escape') {
        event.preventDefault();
        setEditing(null);
      } else if (event.key === 'Tab') {
        event.preventDefault();
        commit();
        move(row, col + (event.shiftKey ? -1 : 1));
      }
      return;
    }
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
                  const isFocused = focused.row === item.index && focused.col === col;
                  const isEditing = editing?.position.row === item.index && editing.position.col === col;
                  const error = row ? errorAt(row.sid, column.sid) : undefined;
                  const block = row ? editBlock(row, column) : 'Loading';
                  const value = row?.cells[column.sid]?.data ?? '';
                  const errorId = `cell-error-${item.index}-${col}`;
                  const priceId = `cell-price-${item.index}-${col}`;
                  const conflictId = `cell-conflict-${item.index}-${col}`;
                  // Changed by someone else since editing began (and not to what the person typed).
                  const theirs = isEditing && row ? row.cells[column.sid] : undefined;
                  const conflict = isEditing && (theirs?.data ?? '') !== editing.base && (theirs?.data ?? '') !== editing.draft ? theirs : undefined;
                  return (
                    <div
                      key={column.sid}
                      role="gridcell"
                      aria-colindex={col + 1}
                      aria-readonly={block ? true : undefined}
                      aria-invalid={error ? true : undefined}
                      aria-describedby={error ? errorId : undefined}
                      aria-label={row ? `${column.name} of ${row.name}` : undefined}
                      className={`grid-cell${isFocused ? ' is-focused' : ''}${block ? ' is-readonly' : ''}${error ? ' has-error' : ''}`}
                      data-row={item.index}
                      data-col={col}
                      tabIndex={isFocused && !isEditing ? 0 : -1}
                      onMouseDown={() => !isEditing && move(item.index, col)}
                      onDoubleClick={() => startEditing({ row: item.index, col })}
                    >
                      {isEditing ? (
                        <>
                          <input
                            className="cell-input"
                            aria-label={`${column.name} of ${row?.name ?? ''}`}
                            aria-describedby={[conflict ? conflictId : '', column.priced ? priceId : ''].join(' ').trim() || undefined}
                            value={editing.draft}
                            autoFocus
                            onChange={(event) => setEditing({ ...editing, draft: event.target.value })}
                            onBlur={() => commit(true)}
                          />
                          {conflict ? (
                            <span id={conflictId} className="cell-popover cell-conflict" role="alert">
                              <span>
                                <strong>{conflict.by ?? 'Someone'}</strong> changed this cell meanwhile to “{conflict.data}”.
                                {' '}Yours is “{editing.draft}”.
                              </span>
                              <span className="cell-conflict-actions">
                                {/* The input keeps the focus: these are the Enter and Escape keys for a pointer. */}
                                <button type="button" className="button button-primary" tabIndex={-1} onMouseDown={(event) => event.preventDefault()} onClick={() => commit()}>
                                  Keep mine and save (Enter)
                                </button>
                                <button type="button" className="button" tabIndex={-1} onMouseDown={(event) => event.preventDefault()} onClick={() => setEditing(null)}>
                                  Take theirs (Escape)
                                </button>
                              </span>
                            </span>
                          ) : column.priced && (
                            <span id={priceId} className="cell-popover cell-price" role="note">
                              Saving costs {column.price}
                            </span>
                          )}
                        </>
                      ) : column.custom && row && renderCell ? (
                        renderCell(row, column)
                      ) : (
                        <span className="cell-value">{value}</span>
                      )}
                      {error && !isEditing && (
                        <span id={errorId} role="alert" className="cell-error">
                          {error}
                        </span>
                      )}
                    </div>
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
