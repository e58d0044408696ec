// A table: its columns (each through a widget, with the widget's price), the form to add
// one for Admins, and a way into its rows for each project.
import { Link } from '@tanstack/react-router';
import { useState } from 'react';
import { CreateForm } from '../../../components/create-form';
import { ErrorMessage, Loading, TableFrame } from '../../../components/ui';
import { useProjects } from '../../../lib/api/projects';
import { isCellWidget, useWidgets } from '../../../lib/api/widgets';
import { CreditsWarning } from '../../../components/credits-warning';
import { NoProjectRole } from '../../../components/no-project-role';
import { useColumns, useCreateColumn, useTable } from '../../../lib/api/tables';

export function TablePage({ orgSid, tableSid }: { orgSid: string; tableSid: string }) {
  const table = useTable(tableSid);
  const columns = useColumns(orgSid, tableSid);
  const widgets = useWidgets(orgSid);
  const projects = useProjects(orgSid);
  const create = useCreateColumn(orgSid, tableSid);
  const priceOf = new Map(widgets.data?.results.map((w) => [w.sid, w.price]) ?? []);
  // Only widgets that edit a cell: a workflow step's widget (notify, set_cell …) is not a way to write one.
  const cellWidgets = widgets.data?.results.filter(isCellWidget) ?? [];
  // A new column is a free text column unless the person picks another widget.
  const defaultWidget = cellWidgets.find((w) => w.kind === 'text')?.sid ?? cellWidgets[0]?.sid ?? '';
  const [picked, setPicked] = useState<string | null>(null);
  const chosenWidget = cellWidgets.find((w) => w.sid === (picked ?? defaultWidget));
  if (table.isPending || columns.isPending) return <Loading />;
  if (table.error || columns.error) return <ErrorMessage error={table.error ?? columns.error} />;
  return (
    <main>
      <h1>{table.data.name}</h1>
      <p className="links">
        <Link to="/o/$org/tables/$table/workflows" params={{ org: orgSid, table: tableSid }}>
          Workflows of {table.data.name}
        </Link>
      </p>
      <section aria-labelledby="rows-heading">
        <h2 id="rows-heading">Rows by project</h2>
        {projects.data?.results.length ? (
          <ul className="list">
            {projects.data.results.map((project) => (
              <li key={project.sid}>
                <Link to="/o/$org/tables/$table/rows" params={{ org: orgSid, table: tableSid }} search={{ project: project.sid }}>
                  Rows of {project.name}
                </Link>
              </li>
            ))}
          </ul>
        ) : projects.data?.add_permission ? (
          <p className="empty">No project yet: rows live in projects. Create one on the Overview.</p>
        ) : projects.data ? (
          <NoProjectRole orgSid={orgSid} onCheckAgain={() => void projects.refetch()} checking={projects.isFetching} />
        ) : null}
      </section>
      <section aria-labelledby="columns-heading">
        <h2 id="columns-heading">Columns</h2>
        {columns.data.results.length === 0 ? (
          <p className="empty">No columns yet. Each column is edited through a widget (its price is what a write costs): add the first one below.</p>
        ) : (
          <TableFrame label="Columns">
            <table className="data">
              <caption>Columns of {table.data.name}</caption>
              <thead>
                <tr>
                  <th scope="col">Order</th>
                  <th scope="col">Name</th>
                  <th scope="col">Widget</th>
                  <th scope="col">Price of a write</th>
                </tr>
              </thead>
              <tbody>
                {columns.data.results.map((column) => (
                  <tr key={column.sid}>
                    <td>{column.order}</td>
                    <th scope="row">{column.name}</th>
                    <td>{column.widget.name}</td>
                    <td>{priceOf.get(column.widget.sid) ?? '…'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableFrame>
        )}
        <CreateForm
          what="column"
          fields={[{ name: 'name', label: 'Column name', required: true }]}
          allowed={columns.data.add_permission}
          reason="Only the organization's Admins add columns."
          pending={create.isPending}
          error={create.error}
          onCreate={(values, form) =>
            create.mutate(
              { name: values.name, widget: values.widget || defaultWidget },
              {
                onSuccess: () => {
                  form.reset();
                  setPicked(null);
                },
              },
            )
          }
        >
          <div className="field">
            <label htmlFor="column-widget">Widget</label>
            <select id="column-widget" name="widget" key={defaultWidget} defaultValue={defaultWidget} onChange={(event) => setPicked(event.target.value)}>
              {cellWidgets.map((w) => (
                <option key={w.sid} value={w.sid}>
                  {w.name} ({w.price} a write)
                </option>
              ))}
            </select>
          </div>
          {chosenWidget && <CreditsWarning orgSid={orgSid} price={chosenWidget.price} what={`the ${chosenWidget.name} widget`} />}
        </CreateForm>
      </section>
    </main>
  );
}
