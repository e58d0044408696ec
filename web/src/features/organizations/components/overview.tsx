// An organization's home: its projects and tables, each with the form to add one for
// those allowed.
import { Link } from '@tanstack/react-router';
import { useState } from 'react';
import { CreateForm } from '../../../components/create-form';
import { NoProjectRole } from '../../../components/no-project-role';
import { ErrorMessage, Loading, Pager } from '../../../components/ui';
import { useCreateProject, useProjects } from '../../../lib/api/projects';
import { useCreateTable, useTables } from '../../../lib/api/tables';

export function OrganizationOverview({ orgSid }: { orgSid: string }) {
  return (
    <main>
      <h1>Overview</h1>
      <div className="columns-2">
        <ProjectsSection orgSid={orgSid} />
        <TablesSection orgSid={orgSid} />
      </div>
    </main>
  );
}

function ProjectsSection({ orgSid }: { orgSid: string }) {
  const [page, setPage] = useState(1);
  const projects = useProjects(orgSid, page);
  const create = useCreateProject(orgSid);
  return (
    <section aria-labelledby="projects-heading">
      <h2 id="projects-heading">Projects</h2>
      {projects.isPending ? (
        <Loading />
      ) : projects.error ? (
        <ErrorMessage error={projects.error} />
      ) : (
        <>
          {projects.data.results.length === 0 ? (
            projects.data.add_permission ? (
              <p className="empty">
                No projects yet. A project holds records and says who may change them (its members and their roles). Create the
                first one below.
              </p>
            ) : (
              <NoProjectRole orgSid={orgSid} onCheckAgain={() => void projects.refetch()} checking={projects.isFetching} />
            )
          ) : (
            <ul className="list">
              {projects.data.results.map((project) => (
                <li key={project.sid}>
                  <Link to="/o/$org/projects/$project" params={{ org: orgSid, project: project.sid }}>
                    {project.name}
                  </Link>
                </li>
              ))}
            </ul>
          )}
          <Pager label="Projects" page={page} pageCount={projects.data.page_count} count={projects.data.count} onPage={setPage} />
          <CreateForm
            what="project"
            fields={[{ name: 'name', label: 'Project name', required: true }]}
            allowed={projects.data.add_permission}
            reason="Only the organization's Admins create projects."
            pending={create.isPending}
            error={create.error}
            onCreate={(values, form) => create.mutate({ name: values.name }, { onSuccess: () => form.reset() })}
          />
        </>
      )}
    </section>
  );
}

function TablesSection({ orgSid }: { orgSid: string }) {
  const [page, setPage] = useState(1);
  const tables = useTables(orgSid, page);
  const create = useCreateTable(orgSid);
  return (
    <section aria-labelledby="tables-heading">
      <h2 id="tables-heading">Tables</h2>
      {tables.isPending ? (
        <Loading />
      ) : tables.error ? (
        <ErrorMessage error={tables.error} />
      ) : (
        <>
          {/* Every organization has its files table (name_system "file", labii-sdk's uploads): not one of its own. */}
          {tables.data.results.every((table) => table.name_system === 'file') && (
            <p className="empty">
              No tables of your own yet. A table's columns say what each record holds; its rows live in projects.
              {tables.data.add_permission ? ' Create one below, then add its columns.' : " Your organization's Admins create tables."}
            </p>
          )}
          {tables.data.results.length > 0 && (
            <ul className="list">
              {tables.data.results.map((table) => (
                <li key={table.sid}>
                  <Link to="/o/$org/tables/$table" params={{ org: orgSid, table: table.sid }}>
                    {table.name}
                  </Link>
                </li>
              ))}
            </ul>
          )}
          <Pager label="Tables" page={page} pageCount={tables.data.page_count} count={tables.data.count} onPage={setPage} />
          <CreateForm
            what="table"
            fields={[{ name: 'name', label: 'Table name', required: true }]}
            allowed={tables.data.add_permission}
            reason="Only the organization's Admins create tables."
            pending={create.isPending}
            error={create.error}
            onCreate={(values, form) => create.mutate({ name: values.name }, { onSuccess: () => form.reset() })}
          />
        </>
      )}
    </section>
  );
}
