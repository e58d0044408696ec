// One cell of the records grid, in one of two modes: display (the value, and a refused
// write's message) or edit (the input, with what a write costs or, when someone else
// changed the cell meanwhile, both values and the choice). The cell decides nothing about
// where the focus goes: its editor raises Enter, Tab, Escape and a click outside, with the
// person's draft, and the table (records-grid.tsx) saves, cancels and moves the focus
// (twenty's RecordTableCellFieldInput and its FieldInputEvents are the model).
import { useState, type KeyboardEvent, type ReactNode } from 'react';
import type { GridRow } from '../api/grid';

/** A column as the grid shows it. */
export interface GridColumn {
  sid: string;
  name: string;
  /** The price of one write through the column's widget, e.g. "$0.50". */
  price: string;
  priced: boolean;
  /** Drawn by the page's renderCell (a file cell), never edited as text. */
  custom?: boolean;
}

/** What the editor of a cell raises; each hands over the person's draft. */
export interface CellEditEvents {
  /** Enter: save, and the focus goes down. */
  onEnter: (draft: string) => void;
  /** Tab (Shift+Tab: `backwards`): save, and the focus goes right (left). */
  onTab: (draft: string, backwards: boolean) => void;
  /** Escape: the draft is dropped. */
  onEscape: () => void;
  /** The editor lost the focus to something else: save, the focus stays where it went. */
  onClickOutside: (draft: string) => void;
  /** "Keep mine and save" of a conflict: save, the focus stays on the cell. */
  onSave: (draft: string) => void;
}

/** The edit mode's start: the value the cell had when editing began and the first draft. */
export interface CellEdit {
  base: string;
  draft: string;
}

interface GridCellProps {
  /** The row's index (from 0) and the column's (1 is the first column after the row's name). */
  rowIndex: number;
  col: number;
  column: GridColumn;
  row: GridRow | undefined;
  /** Why the person may not change the cell; null when they may. */
  block: string | null;
  error: string | undefined;
  focused: boolean;
  /** Set while the cell is in edit mode. */
  edit: CellEdit | null;
  events: CellEditEvents;
  /** A press on the cell (not while editing): the table moves the focus here. */
  onPress: () => void;
  /** A double click: the table opens the editor if the cell may change. */
  onOpen: () => void;
  /** A custom column's content in display mode (instead of the value). */
  custom?: ReactNode;
}

export function GridCell({ rowIndex, col, column, row, block, error, focused, edit, events, onPress, onOpen, custom }: GridCellProps) {
  const errorId = `cell-error-${rowIndex}-${col}`;
  return (
    <div
      role="gridcell"
      aria-colindex={col + 1}
      aria-readonly={block ? true : undefined}
      aria-invalid={error ? true : undefined}
      aria-describedby={error ? errorId : undefined}
      aria-label={row ? `${column.name} of ${row.name}` : undefined}
      className={`grid-cell${focused ? ' is-focused' : ''}${block ? ' is-readonly' : ''}${error ? ' has-error' : ''}`}
      data-row={rowIndex}
      data-col={col}
      tabIndex={focused && !edit ? 0 : -1}
      onMouseDown={() => !edit && onPress()}
      onDoubleClick={onOpen}
    >
      {edit && row ? (
        <GridCellInput key={`${rowIndex}:${col}`} rowIndex={rowIndex} col={col} column={column} row={row} edit={edit} events={events} />
      ) : custom !== undefined ? (
        custom
      ) : (
        <span className="cell-value">{row?.cells[column.sid]?.data ?? ''}</span>
      )}
      {error && !edit && (
        <span id={errorId} role="alert" className="cell-error">
          {error}
        </span>
      )}
    </div>
  );
}

interface GridCellInputProps {
  rowIndex: number;
  col: number;
  column: GridColumn;
  row: GridRow;
  edit: CellEdit;
  events: CellEditEvents;
}

/** The edit mode: the draft is the input's own; the keys that leave it are raised to the table. */
function GridCellInput({ rowIndex, col, column, row, edit, events }: GridCellInputProps) {
  const [draft, setDraft] = useState(edit.draft);
  const priceId = `cell-price-${rowIndex}-${col}`;
  const conflictId = `cell-conflict-${rowIndex}-${col}`;
  // Changed by someone else since editing began (and not to what the person typed).
  const theirs = row.cells[column.sid];
  const conflict = (theirs?.data ?? '') !== edit.base && (theirs?.data ?? '') !== draft ? theirs : undefined;

  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    const raise: Record<string, () => void> = {
      Enter: () => events.onEnter(draft),
      Tab: () => events.onTab(draft, event.shiftKey),
      Escape: () => events.onEscape(),
    };
    const action = raise[event.key];
    if (!action) return;
    // Handled here: the table's navigation keys must not see it.
    event.preventDefault();
    event.stopPropagation();
    action();
  };

  return (
    <>
      <input
        className="cell-input"
        aria-label={`${column.name} of ${row.name}`}
        aria-describedby={[conflict ? conflictId : '', column.priced ? priceId : ''].join(' ').trim() || undefined}
        value={draft}
        autoFocus
        onChange={(event) => setDraft(event.target.value)}
        onKeyDown={onKeyDown}
        onBlur={() => events.onClickOutside(draft)}
      />
      {conflict ? (
        <span id={conflictId} className="cell-popover cell-conflict" role="alert">
          <span>
            <strong>{conflict.by ?? 'Someone'}</strong> changed this cell meanwhile to “{conflict.data}”.
            {' '}Yours is “{draft}”.
          </span>
          <span className="cell-conflict-actions">
            {/* The input keeps the focus: these are the Enter and Escape keys for a pointer. */}
            <button type="button" className="button button-primary" tabIndex={-1} onMouseDown={(event) => event.preventDefault()} onClick={() => events.onSave(draft)}>
              Keep mine and save (Enter)
            </button>
            <button type="button" className="button" tabIndex={-1} onMouseDown={(event) => event.preventDefault()} onClick={() => events.onEscape()}>
              Take theirs (Escape)
            </button>
          </span>
        </span>
      ) : (
        column.priced && (
          <span id={priceId} className="cell-popover cell-price" role="note">
            Saving costs {column.price}
          </span>
        )
      )}
    </>
  );
}
