// A project: its members with their roles (changed and removed by those allowed), adding
// a member, and the tables whose rows it holds.
import { Link } from '@tanstack/react-router';
import { useState, type FormEvent, type ReactNode } from 'react';
import { Button, ErrorMessage, Loading, Pager, TableFrame, TextField } from '../../../components/ui';
import { usePersonnelNames } from '../../../lib/api/personnel';
import { useSearchDraft } from '../../../lib/search-draft';
import { useTables } from '../../../lib/api/tables';
import {
  useAddProjectMember,
  useChangeProjectMember,
  useProject,
  useProjectMembers,
  useRemoveProjectMember,
  type ProjectRole,
} from '../../../lib/api/projects';

const ROLES: Array<{ value: ProjectRole; label: string }> = [
  { value: 'admin', label: 'Project Admin' },
  { value: 'edit', label: 'Project Edit' },
  { value: 'view', label: 'Project View' },
];

const MANAGE_REASON = "Only the organization's Admins and the project's Admins manage its members.";

/** `actions`: what the route composes in beside the title (the project's export). */
export function ProjectPage({ orgSid, projectSid, actions }: { orgSid: string; projectSid: string; actions?: ReactNode }) {
  const project = useProject(projectSid);
  const tables = useTables(orgSid);
  if (project.isPending) return <Loading />;
  if (project.error) return <ErrorMessage error={project.error} />;
  return (
    <main>
      <h1>{project.data.name}</h1>
      {actions}
      <section aria-labelledby="project-tables">
        <h2 id="project-tables">Tables</h2>
        {tables.data?.results.length ? (
          <ul className="list">
            {tables.data.results.map((table) => (
              <li key={table.sid}>
                <Link to="/o/$org/tables/$table/rows" params={{ org: orgSid, table: table.sid }} search={{ project: projectSid }}>
                  {table.name}
                </Link>
              </li>
            ))}
          </ul>
        ) : (
          <p className="empty">No tables yet. The organization's tables are listed here once created (Overview, Tables); their rows in this project are then one click away.</p>
        )}
      </section>
      <Members orgSid={orgSid} projectSid={projectSid} />
    </main>
  );
}

function Members({ orgSid, projectSid }: { orgSid: string; projectSid: string }) {
  const [page, setPage] = useState(1);
  const members = useProjectMembers(projectSid, page);
  const change = useChangeProjectMember(projectSid);
  const remove = useRemoveProjectMember(projectSid);
  return (
    <section aria-labelledby="project-members">
      <h2 id="project-members">Members</h2>
      {members.isPending ? (
        <Loading />
      ) : members.error ? (
        <ErrorMessage error={members.error} />
      ) : (
        <>
          {members.data.results.length === 0 ? (
            <p className="empty">No members yet. Give people of the organization a role here: Project View reads the rows, Project Edit also changes them, Project Admin also locks and archives.</p>
          ) : (
            <TableFrame label="Project members">
              <table className="data">
                <caption>Members of the project and their roles</caption>
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">Role</th>
                    <th scope="col">Actions</th>
                  </tr>
                </thead>
                <tbody>
                  {members.data.results.map((member) => (
                    <tr key={member.sid}>
                      <th scope="row">{member.personnel.name}</th>
                      <td>
                        <select
                          aria-label={`Role of ${member.personnel.name}`}
                          value={member.permission}
                          disabled={!member.change_permission || change.isPending}
                          title={member.change_permission ? undefined : MANAGE_REASON}
                          onChange={(event) => change.mutate({ sid: member.sid, permission: event.target.value as ProjectRole })}
                        >
                          {ROLES.map((role) => (
                            <option key={role.value} value={role.value}>
                              {role.label}
                            </option>
                          ))}
                        </select>
                      </td>
                      <td>
                        <Button
                          aria-label={`Remove ${member.personnel.name}`}
                          disabledReason={member.change_permission ? null : MANAGE_REASON}
                          onClick={() => remove.mutate(member.sid)}
                        >
                          Remove
                        </Button>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableFrame>
          )}
          <ErrorMessage error={change.error ?? remove.error} />
          <Pager label="Members" page={page} pageCount={members.data.page_count} count={members.data.count} onPage={setPage} />
          {members.data.add_permission ? (
            <AddMember orgSid={orgSid} projectSid={projectSid} />
          ) : (
            <p className="reason" role="note">
              {MANAGE_REASON}
            </p>
          )}
        </>
      )}
    </section>
  );
}

function AddMember({ orgSid, projectSid }: { orgSid: string; projectSid: string }) {
  // The list offers 100 people at most: in a larger organization, typing narrows it (on the server).
  const [search, setSearch] = useState('');
  const [draft, setDraft] = useSearchDraft(search, setSearch);
  const people = usePersonnelNames(orgSid, search.trim());
  const add = useAddProjectMember(projectSid);
  const shown = people.data?.results.length ?? 0;
  const total = people.data?.count ?? 0;
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    add.mutate({ personnel: String(data.get('personnel')), permission: String(data.get('permission')) as ProjectRole });
  };
  return (
    <form onSubmit={onSubmit} className="form form-inline" aria-label="Add project member">
      {search || total > shown ? (
        <TextField
          label="Find a person"
          type="search"
          value={draft}
          onChange={(event) => setDraft(event.target.value)}
          hint={search ? `${total} found${total > shown ? `, the first ${shown} listed` : ''}.` : `${total} people: the first ${shown} are listed; type a name or email to find others.`}
        />
      ) : null}
      <div className="field">
        <label htmlFor="member-personnel">Person</label>
        <select id="member-personnel" name="personnel" required>
          {people.data?.results.map((person) => (
            <option key={person.sid} value={person.sid}>
              {person.name}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="member-role">Role</label>
        <select id="member-role" name="permission" defaultValue="edit">
          {ROLES.map((role) => (
            <option key={role.value} value={role.value}>
              {role.label}
            </option>
          ))}
        </select>
      </div>
      <ErrorMessage error={add.error} />
      <Button type="submit" variant="primary" disabled={add.isPending}>
        Add member
      </Button>
    </form>
  );
}
