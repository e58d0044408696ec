// The rows of a table in a project: the grid, the toolbar that acts on the focused row
// (rename, lock, archive, run a workflow, history) and adding rows, each control present only as the
// person's roles allow, or disabled with the reason.
import { Link, useNavigate } from '@tanstack/react-router';
import { useQueries, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useMemo, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { Button, Dialog, ErrorMessage, Loading, TextField } from '../../../components/ui';
import { useSession } from '../../../lib/api/session';
import { useMyPersonnel } from '../../../lib/api/organizations';
import { useMyProjectRole, useProjects } from '../../../lib/api/projects';
import { useTable } from '../../../lib/api/tables';
import { useWidgets } from '../../../lib/api/widgets';
import { GRID_PAGE_SIZE, gridPageQuery, useCreateRow, useSaveCell, useUpdateRow, type GridKey, type GridRow } from '../api/grid';
import { useLiveGrid } from '../api/live';
import { liveStatusText } from '../../../lib/api/record-stream';
import { FIRST_CELL, RecordsGrid, type CellPosition, type GridColumn } from './records-grid';
import { useSearchDraft } from '../../../lib/search-draft';

/** How long the view must rest before the pages in it are requested. */
const VIEW_REST_MS = 100;

const WRITE_ROLE = 'You need the Project Admin or Project Edit role in this project to change its rows.';
const ADMIN_ROLE = "Only the project's Admins lock and archive rows.";

interface GridPageProps {
  orgSid: string;
  tableSid: string;
  projectSid?: string;
  /** Only rows whose name contains this (the URL's `q`). */
  search?: string;
  /** More actions on the focused row in the toolbar, given by the route (another feature's, e.g. running a workflow). */
  rowAction?: (row: GridRow | undefined) => ReactNode;
  /** Actions on the whole table in the toolbar, given by the route (another feature's, e.g. exporting). */
  tableActions?: ReactNode;
  /** Columns drawn by the route's own component: those whose widget is of one of `kinds` (file cells). */
  customCells?: CustomCells;
}

/** Cells of some widget kinds drawn by another feature (the route composes it): the files' cell. */
export interface CustomCells {
  kinds: string[];
  render: (cell: { row: GridRow; column: GridColumn; data: string; block: string | null; onChanged: () => void }) => ReactNode;
}

export function GridPage({ orgSid, tableSid, projectSid, search, rowAction, customCells, tableActions }: GridPageProps) {
  const projects = useProjects(orgSid);
  const navigate = useNavigate();
  const table = useTable(tableSid);
  // The search goes into the URL (and the query) once typing pauses.
  const commitSearch = useCallback(
    (text: string) =>
      void navigate({
        to: '/o/$org/tables/$table/rows',
        params: { org: orgSid, table: tableSid },
        search: { project: projectSid, ...(text ? { q: text } : {}) },
        replace: true,
      }),
    [navigate, orgSid, tableSid, projectSid],
  );
  const [draft, setDraft] = useSearchDraft(search, commitSearch);
  if (table.isPending) return <Loading />;
  if (table.error) return <ErrorMessage error={table.error} />;
  return (
    <main className="wide">
      <h1>{table.data.name}</h1>
      <p className="links">
        <Link to="/o/$org/tables/$table/workflows" params={{ org: orgSid, table: tableSid }}>
          Workflows of {table.data.name}
        </Link>
      </p>
      <div className="field field-inline">
        <label htmlFor="grid-project">Project</label>
        <select
          id="grid-project"
          value={projectSid ?? ''}
          onChange={(event) =>
            void navigate({ to: '/o/$org/tables/$table/rows', params: { org: orgSid, table: tableSid }, search: { project: event.target.value, ...(search ? { q: search } : {}) } })
          }
        >
          <option value="" disabled>
            Choose a project
          </option>
          {projects.data?.results.map((project) => (
            <option key={project.sid} value={project.sid}>
              {project.name}
            </option>
          ))}
        </select>
      </div>
      <div className="field field-inline">
        <label htmlFor="grid-search">Search rows by name</label>
        <input id="grid-search" type="search" value={draft} onChange={(event) => setDraft(event.target.value)} />
      </div>
      {projectSid ? (
        <TableRows
          key={`${projectSid}:${search ?? ''}`}
          gridKey={{ orgSid, tableSid, projectSid, search }}
          projectName={projects.data?.results.find((p) => p.sid === projectSid)?.name ?? 'this project'}
          columnsOfTable={table.data.columns}
          tableName={table.data.name}
          rowAction={rowAction}
          tableActions={tableActions}
          customCells={customCells}
        />
      ) : (
        <p>Rows live in projects: choose one.</p>
      )}
    </main>
  );
}

interface TableRowsProps {
  gridKey: GridKey;
  tableName: string;
  projectName: string;
  columnsOfTable: Array<{ sid: string; name: string; order: number; widget: { sid: string; name: string } }>;
  rowAction?: (row: GridRow | undefined) => ReactNode;
  customCells?: CustomCells;
  tableActions?: ReactNode;
}

function TableRows({ gridKey, tableName, projectName, columnsOfTable, rowAction, customCells, tableActions }: TableRowsProps) {
  const { orgSid, projectSid } = gridKey;
  const session = useSession();
  const me = useMyPersonnel(orgSid, session.data?.sid ?? '');
  const role = useMyProjectRole(projectSid, me.data?.sid);
  const widgets = useWidgets(orgSid);
  const [range, setRange] = useState({ first: 0, last: 0 });
  // Where the grid's focus is (the grid owns it and tells): the toolbar acts on its row.
  const [focused, setFocused] = useState<CellPosition>(FIRST_CELL);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [dialog, setDialog] = useState<null | 'add' | 'rename'>(null);

  // The pages in view (and page 1, which gives the count), each fetched once.
  const pages = useMemo(() => {
    const wanted = new Set([1]);
    for (let page = Math.floor(range.first / GRID_PAGE_SIZE) + 1; page <= Math.floor(range.last / GRID_PAGE_SIZE) + 1; page += 1) wanted.add(page);
    return [...wanted];
  }, [range.first, range.last]);
  const pageQueries = useQueries({ queries: pages.map((page) => gridPageQuery(gridKey, page)) });
  const byPage = new Map(pages.map((page, i) => [page, pageQueries[i]?.data]));
  const firstPage = pageQueries[0];
  const rowAt = (index: number) => byPage.get(Math.floor(index / GRID_PAGE_SIZE) + 1)?.results[index % GRID_PAGE_SIZE];
  const pageOf = (index: number) => Math.floor(index / GRID_PAGE_SIZE) + 1;

  const widgetOf = new Map(widgets.data?.results.map((w) => [w.sid, w]) ?? []);
  const columns: GridColumn[] = columnsOfTable.map((column) => {
    const widget = widgetOf.get(column.widget.sid);
    const price = widget?.price ?? '$0.00';
    return { sid: column.sid, name: column.name, price, priced: price !== '$0.00', custom: Boolean(widget && customCells?.kinds.includes(widget.kind)) };
  });
  const queryClient = useQueryClient();
  // A custom cell (a file cell) writes itself; then the row is read again (the live stream may say so first).
  const renderCell = customCells && ((row: GridRow, column: GridColumn) => customCells.render({
    row, column, data: row.cells[column.sid]?.data ?? '', block: editBlock(row, column),
    onChanged: () =>
      void Promise.all([
        queryClient.invalidateQueries({ queryKey: ['grid', gridKey.tableSid] }),
        queryClient.invalidateQueries({ queryKey: ['versions', row.sid] }),
        queryClient.invalidateQueries({ queryKey: ['organization', orgSid] }),
      ]),
  }));
  const addableLocked = new Set(columnsOfTable.filter((c) => widgetOf.get(c.widget.sid)?.addable_at_readonly).map((c) => c.sid));

  const saveCell = useSaveCell(gridKey);
  const createRow = useCreateRow(gridKey);
  const updateRow = useUpdateRow(gridKey);
  const live = useLiveGrid(gridKey);

  // The pages in view are fetched once the view rests for a moment: a fling through the
  // table shows placeholders as it passes, without requesting every page it passes.
  const restTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const onVisibleRange = useCallback((first: number, last: number) => {
    clearTimeout(restTimer.current);
    restTimer.current = setTimeout(() => setRange({ first, last }), VIEW_REST_MS);
  }, []);
  useEffect(() => () => clearTimeout(restTimer.current), []);
  const editBlock = (row: GridRow, column: GridColumn) => {
    if (!row.change_permission) return WRITE_ROLE;
    if (row.is_archived) return 'This row is archived: its cells cannot change.';
    if (row.is_locked && !addableLocked.has(column.sid)) return 'This row is locked: its cells cannot change.';
    return null;
  };
  const errorKey = (rowSid: string, columnSid: string) => `${rowSid}:${columnSid}`;
  const onSave = (index: number, row: GridRow, column: GridColumn, data: string) =>
    new Promise<void>((resolve, reject) =>
      saveCell.mutate(
        { page: pageOf(index), row, columnSid: column.sid, data },
        {
          onSuccess: () => resolve(),
          onError: (error) => {
            setErrors((old) => ({ ...old, [errorKey(row.sid, column.sid)]: error.message }));
            // The grid brings the focus back to the refused cell, where the message is.
            reject(error);
          },
        },
      ),
    );

  if (firstPage?.isPending) return <Loading what="Loading rows…" />;
  if (firstPage?.error) return <ErrorMessage error={firstPage.error} />;
  const count = firstPage?.data?.count ?? 0;
  const addAllowed = firstPage?.data?.add_permission ?? false;
  const row = count ? rowAt(focused.row) : undefined;
  const isProjectAdmin = role.data === 'admin';

  const renameBlock = !row
    ? 'Choose a row first.'
    : !row.change_permission
      ? WRITE_ROLE
      : row.is_archived
        ? 'This row is archived.'
        : row.is_locked
          ? 'This row is locked.'
          : null;
  const lockBlock = !row ? 'Choose a row first.' : !isProjectAdmin ? ADMIN_ROLE : row.is_archived ? 'Un-archive the row first.' : null;
  const archiveBlock = !row ? 'Choose a row first.' : !isProjectAdmin ? ADMIN_ROLE : null;

  const submitRow = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const name = String(new FormData(event.currentTarget).get('name'));
    if (dialog === 'add') {
      createRow.mutate(name, { onSuccess: () => setDialog(null) });
    } else if (row) {
      updateRow.mutate({ page: pageOf(focused.row), row, changes: { name } }, { onSuccess: () => setDialog(null) });
    }
  };
  const focusedColumn = columns[focused.col - 1];

  return (
    <>
      <div className="toolbar" role="toolbar" aria-label="Rows">
        <Button variant="primary" disabledReason={addAllowed ? null : WRITE_ROLE} onClick={() => setDialog('add')}>
          Add row
        </Button>
        <span className="toolbar-row">{row ? <>Row: <strong>{row.name}</strong></> : 'No row chosen'}</span>
        <Button disabledReason={renameBlock} onClick={() => setDialog('rename')}>
          Rename row
        </Button>
        <Button
          disabledReason={lockBlock}
          onClick={() => row && updateRow.mutate({ page: pageOf(focused.row), row, changes: { is_locked: !row.is_locked } })}
        >
          {row?.is_locked ? 'Unlock row' : 'Lock row'}
        </Button>
        <Button
          disabledReason={archiveBlock}
          onClick={() => row && updateRow.mutate({ page: pageOf(focused.row), row, changes: { is_archived: !row.is_archived } })}
        >
          {row?.is_archived ? 'Un-archive row' : 'Archive row'}
        </Button>
        {rowAction?.(row)}
        {tableActions}
        {row && (
          <Link to="/o/$org/rows/$row" params={{ org: orgSid, row: row.sid }} className="button button-plain">
            History of {row.name}
          </Link>
        )}
      </div>
      <ErrorMessage error={updateRow.error} />
      {!addAllowed && (
        <RoleNote orgSid={orgSid} projectSid={projectSid} projectName={projectName} mayGiveRoles={Boolean(me.data?.is_administrator) || isProjectAdmin} />
      )}
      <p className="live-status" role="status">
        {liveStatusText(live)}
      </p>
      <p className="grid-hint" id="grid-hint">
        {count} rows. Arrows move, Enter edits and saves, Escape cancels, Tab saves and moves right.
        {focusedColumn && (focusedColumn.priced ? ` A write to ${focusedColumn.name} costs ${focusedColumn.price}.` : ` Writes to ${focusedColumn.name} are free.`)}
      </p>
      {count === 0 ? (
        <p className="empty">
          {gridKey.search
            ? `No row's name contains "${gridKey.search}".`
            : addAllowed
              ? 'No rows yet. Add the first with "Add row", then type in its cells.'
              : 'No rows yet. People with the Project Admin or Project Edit role in the project add them.'}
        </p>
      ) : (
        <RecordsGrid
          label={`Rows of ${tableName}`}
          rowCount={count}
          columns={columns}
          rowAt={rowAt}
          editBlock={editBlock}
          onSave={onSave}
          renderCell={renderCell}
          errorAt={(rowSid, columnSid) => errors[errorKey(rowSid, columnSid)]}
          onDismissError={(rowSid, columnSid) =>
            setErrors((old) => {
              const key = errorKey(rowSid, columnSid);
              if (!(key in old)) return old;
              const next = { ...old };
              delete next[key];
              return next;
            })
          }
          onVisibleRange={onVisibleRange}
          onFocusedChange={setFocused}
        />
      )}
      <Dialog open={dialog !== null} title={dialog === 'add' ? 'Add a row' : 'Rename the row'} onClose={() => setDialog(null)}>
        <form onSubmit={submitRow} className="form">
          <TextField label="Row name" name="name" required autoFocus defaultValue={dialog === 'rename' ? row?.name : ''} />
          <ErrorMessage error={dialog === 'add' ? createRow.error : updateRow.error} />
          <div className="buttons">
            <Button type="submit" variant="primary" disabled={createRow.isPending || updateRow.isPending}>
              {dialog === 'add' ? 'Add row' : 'Rename'}
            </Button>
            <Button onClick={() => setDialog(null)}>Cancel</Button>
          </div>
        </form>
      </Dialog>
    </>
  );
}

/**
 * Why rows cannot be added or changed here, and the way to where project roles are given
 * (the project's members): an organization Admin who made everything gives themself one there.
 */
function RoleNote({ orgSid, projectSid, projectName, mayGiveRoles }: { orgSid: string; projectSid: string; projectName: string; mayGiveRoles: boolean }) {
  return (
    <p className="role-note" role="note">
      You need the Project Admin or Project Edit role in {projectName} to add or change its rows.{' '}
      {mayGiveRoles ? 'You may give yourself one on the project’s page: ' : 'The project’s Admins and the organization’s Admins give roles on the project’s page: '}
      <Link to="/o/$org/projects/$project" params={{ org: orgSid, project: projectSid }} hash="project-members">
        Members of {projectName}
      </Link>
      .
    </p>
  );
}
