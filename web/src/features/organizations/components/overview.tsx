// An organization's home: its projects and tables, each with the form to add one for
// those allowed.
import { Link } from '@tanstack/react-router';
import { useState } from 'react';
import { CreateForm } from '../../../components/create-form';
import { Button, ErrorMessage, Loading, Pager } from '../../../components/ui';
import { useCreateProject, useProjects } from '../../projects/api/projects';
import { useOrganizationAdmins } from '../../personnel/api/personnel';
import { useOrganization } from '../api/organizations';
import { useCreateTable, useTables } from '../../tables/api/tables';

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
          {tables.data.results.length === 0 ? (
            <p className="empty">
              No tables yet. A table's columns say what each record holds; its rows live in projects.
              {tables.data.add_permission ? ' Create one below, then add its columns.' : " Your organization's Admins create tables."}
            </p>
          ) : (
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

/**
 * A member sees only the projects where they hold a role: with none, say so (the
 * organization may well have projects) and who can give them one.
 */
export function NoProjectRole({ orgSid, onCheckAgain, checking }: { orgSid: string; onCheckAgain?: () => void; checking?: boolean }) {
  const organization = useOrganization(orgSid);
  const admins = useOrganizationAdmins(orgSid);
  const names = admins.data?.results.map((person) => `${person.name} (${person.email})`) ?? [];
  const more = (admins.data?.count ?? 0) - names.length;
  return (
    <div className="empty" role="note">
      <p>
        You have no role in any project of {organization.data?.name ?? 'this organization'} yet, so no project is listed here:
        each project shows only to its members. A project&apos;s Admins, or an Admin of the organization, can give you a role in one
        (on the project&apos;s page, Members).
      </p>
      {names.length > 0 && (
        <p>
          Admins of {organization.data?.name ?? 'the organization'}: {names.join(', ')}
          {more > 0 ? ` and ${more} more` : ''}.
        </p>
      )}
      {onCheckAgain && (
        <Button onClick={onCheckAgain} disabled={checking}>
          Check again
        </Button>
      )}
    </div>
  );
}
