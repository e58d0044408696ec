// The workflows of a table: the list (each opening its workflow screen, archived ones
// marked) and, for Admins, the form that creates one specific to the table. Members see
// the list and the reason they cannot create one.
import { Link, useNavigate } from '@tanstack/react-router';
import { useState } from 'react';
import { CreateForm } from '../../../components/create-form';
import { ErrorMessage, Loading, Pager } from '../../../components/ui';
import { useTable } from '../../../lib/api/tables';
import { useCreateWorkflow, useOrganizationWorkflows, useTableWorkflows } from '../api/workflows';

export function WorkflowsPage({ orgSid, tableSid }: { orgSid: string; tableSid: string }) {
  const table = useTable(tableSid);
  const [page, setPage] = useState(1);
  const workflows = useTableWorkflows(orgSid, tableSid, page);
  const create = useCreateWorkflow(orgSid, tableSid);
  // Workflows made (through the API) for no table in particular run on this table's rows too.
  const everyTable = useOrganizationWorkflows(orgSid).data?.results.filter((w) => w.table === null) ?? [];
  const navigate = useNavigate();
  if (table.isPending || workflows.isPending) return <Loading />;
  if (table.error || workflows.error) return <ErrorMessage error={table.error ?? workflows.error} />;
  const list = workflows.data;
  return (
    <main>
      <p className="links">
        <Link to="/o/$org/tables/$table" params={{ org: orgSid, table: tableSid }}>
          Table {table.data.name}
        </Link>
      </p>
      <h1>Workflows of {table.data.name}</h1>
      <p className="muted">
        A workflow is a list of steps that act on one row: set a cell, lock the row, notify people, wait for an event. An Admin runs it on a
        row from the grid, and each run keeps a log.
      </p>
      {list.count === 0 ? (
        <p>No workflows for this table yet.{list.add_permission ? ' Create the first one below, then add its steps.' : ''}</p>
      ) : (
        <>
          <div className="scroll-x" role="region" aria-label="Workflows" tabIndex={0}>
            <table className="data">
              <caption>Workflows of {table.data.name} ({list.count})</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Description</th>
                  <th scope="col">State</th>
                </tr>
              </thead>
              <tbody>
                {list.results.map((workflow) => (
                  <tr key={workflow.sid}>
                    <th scope="row">
                      <Link to="/o/$org/workflows/$workflow" params={{ org: orgSid, workflow: workflow.sid }}>
                        {workflow.name}
                      </Link>
                    </th>
                    <td>{workflow.description}</td>
                    <td>{workflow.is_archived ? 'Archived' : 'Active'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager label="Workflows" page={page} pageCount={list.page_count} count={list.count} onPage={setPage} />
        </>
      )}
      {everyTable.length > 0 && (
        <section aria-labelledby="any-table-heading">
          <h2 id="any-table-heading">Workflows for any table</h2>
          <ul className="list">
            {everyTable.map((workflow) => (
              <li key={workflow.sid}>
                <Link to="/o/$org/workflows/$workflow" params={{ org: orgSid, workflow: workflow.sid }}>
                  {workflow.name}
                </Link>
                {workflow.is_archived && <span className="badge">Archived</span>}
              </li>
            ))}
          </ul>
        </section>
      )}
      <h2>Create a workflow</h2>
      <CreateForm
        what="workflow"
        fields={[
          { name: 'name', label: 'Workflow name', required: true },
          { name: 'description', label: 'Description' },
        ]}
        allowed={list.add_permission}
        reason="Only the organization's Admins create workflows."
        pending={create.isPending}
        error={create.error}
        onCreate={(values) =>
          create.mutate(
            { name: values.name, ...(values.description ? { description: values.description } : {}) },
            { onSuccess: (workflow) => void navigate({ to: '/o/$org/workflows/$workflow', params: { org: orgSid, workflow: workflow.sid } }) },
          )
        }
      />
    </main>
  );
}
