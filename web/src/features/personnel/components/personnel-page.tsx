// The organization's personnel: the paged list; Admins add members by email, change the
// administrative fields and archive or un-archive; a member changes only what the spec
// lets a member change on their own record (names, notification settings).
import { useState, type FormEvent } from 'react';
import { Button, Checkbox, Dialog, ErrorMessage, Loading, Notice, Pager, TextField } from '../../../components/ui';
import { ApiError } from '../../../lib/api/client';
import { useSession } from '../../auth/api/session';
import { useMyPersonnel } from '../../organizations/api/organizations';
import { useAddPersonnel, usePersonnel, usePersonnelDetail, useUpdatePersonnel, type PersonnelChanges } from '../api/personnel';

const ADMIN_ONLY = "Only the organization's Admins do this.";

export function PersonnelPage({ orgSid }: { orgSid: string }) {
  const session = useSession();
  const me = useMyPersonnel(orgSid, session.data?.email ?? '');
  const isAdmin = Boolean(me.data?.is_administrator && !me.data.is_archived);
  const [page, setPage] = useState(1);
  const personnel = usePersonnel(orgSid, page);
  const update = useUpdatePersonnel(orgSid);
  const [editing, setEditing] = useState<string | null>(null);

  return (
    <main className="wide">
      <h1>Personnel</h1>
      {personnel.isPending ? (
        <Loading />
      ) : personnel.error ? (
        <ErrorMessage error={personnel.error} />
      ) : (
        <>
          <table className="data">
            <caption>People of the organization ({personnel.data.count})</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Email</th>
                <th scope="col">Title</th>
                <th scope="col">Start</th>
                <th scope="col">End</th>
                <th scope="col">Admin</th>
                <th scope="col">Status</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {personnel.data.results.map((person) => (
                <tr key={person.sid}>
                  <th scope="row">{person.name}</th>
                  <td>{person.email}</td>
                  <td>{person.title}</td>
                  <td>{person.date_start}</td>
                  <td>{person.date_end ?? ''}</td>
                  <td>{person.is_administrator ? 'Admin' : ''}</td>
                  <td>{person.is_archived ? 'Archived' : 'Active'}</td>
                  <td className="actions">
                    <Button
                      aria-label={`Edit ${person.name}`}
                      disabledReason={person.change_permission ? null : 'You may change only your own record.'}
                      onClick={() => setEditing(person.sid)}
                    >
                      Edit
                    </Button>
                    <Button
                      aria-label={`${person.is_archived ? 'Un-archive' : 'Archive'} ${person.name}`}
                      disabledReason={isAdmin ? null : ADMIN_ONLY}
                      disabled={update.isPending}
                      onClick={() => update.mutate({ sid: person.sid, changes: { is_archived: !person.is_archived } })}
                    >
                      {person.is_archived ? 'Un-archive' : 'Archive'}
                    </Button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <ErrorMessage error={update.error} />
          <Pager label="Personnel" page={page} pageCount={personnel.data.page_count} count={personnel.data.count} onPage={setPage} />
          {personnel.data.add_permission ? (
            <AddPersonnel orgSid={orgSid} />
          ) : (
            <p className="reason" role="note">
              Only the organization's Admins add people.
            </p>
          )}
        </>
      )}
      <Dialog open={editing !== null} title="Edit member" onClose={() => setEditing(null)}>
        {editing && (
          <EditPersonnel
            orgSid={orgSid}
            sid={editing}
            isAdmin={isAdmin}
            isSelf={editing === me.data?.sid}
            onDone={() => setEditing(null)}
          />
        )}
      </Dialog>
    </main>
  );
}

function AddPersonnel({ orgSid }: { orgSid: string }) {
  const add = useAddPersonnel(orgSid);
  const [added, setAdded] = useState<string | null>(null);
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const data = new FormData(form);
    const text = (name: string) => String(data.get(name) ?? '').trim() || undefined;
    add.mutate(
      {
        email: String(data.get('email')),
        first_name: text('first_name'),
        last_name: text('last_name'),
        title: text('title'),
        is_administrator: data.get('is_administrator') === 'on',
      },
      {
        onSuccess: (person) => {
          setAdded(Array.isArray(person) ? person.map((p) => p.email).join(', ') : person.email);
          form.reset();
        },
      },
    );
  };
  const fields = add.error instanceof ApiError ? add.error.fields : {};
  return (
    <section aria-labelledby="add-person">
      <h2 id="add-person">Add a member</h2>
      <form onSubmit={onSubmit} className="form form-inline" aria-label="Add a member">
        <TextField label="Email" name="email" type="email" required errors={fields.email} />
        <TextField label="First name" name="first_name" errors={fields.first_name} />
        <TextField label="Last name" name="last_name" errors={fields.last_name} />
        <TextField label="Title" name="title" errors={fields.title} />
        <Checkbox name="is_administrator" label="Admin" />
        {Object.keys(fields).length ? null : <ErrorMessage error={add.error} />}
        <Button type="submit" variant="primary" disabled={add.isPending}>
          Add member
        </Button>
      </form>
      {added && <Notice>{added} was added.</Notice>}
    </section>
  );
}

const NOTIFICATION_SETTINGS = [
  ['should_receive_weekly_digest', 'Weekly digest'],
  ['should_receive_statement_digest', 'Statement digest'],
  ['should_receive_mention_notification', 'Mentions'],
  ['should_receive_record_change_notification', 'Changes to my records'],
  ['should_receive_notification_email', 'Notifications by email'],
] as const;

interface EditProps {
  orgSid: string;
  sid: string;
  isAdmin: boolean;
  isSelf: boolean;
  onDone: () => void;
}

function EditPersonnel({ orgSid, sid, isAdmin, isSelf, onDone }: EditProps) {
  const person = usePersonnelDetail(sid);
  const update = useUpdatePersonnel(orgSid);
  if (person.isPending) return <Loading />;
  if (person.error) return <ErrorMessage error={person.error} />;
  const p = person.data;
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    const changes: PersonnelChanges = {};
    if (isAdmin) {
      changes.title = String(data.get('title'));
      changes.date_start = String(data.get('date_start'));
      changes.date_end = String(data.get('date_end')) || null;
      changes.is_administrator = data.get('is_administrator') === 'on';
    }
    if (isSelf) {
      changes.first_name = String(data.get('first_name'));
      changes.last_name = String(data.get('last_name'));
      for (const [field] of NOTIFICATION_SETTINGS) changes[field] = data.get(field) === 'on';
    }
    update.mutate({ sid, changes }, { onSuccess: onDone });
  };
  const fields = update.error instanceof ApiError ? update.error.fields : {};
  return (
    <form onSubmit={onSubmit} className="form">
      <p>
        <strong>{p.name}</strong> ({p.email})
      </p>
      {isSelf ? (
        <fieldset>
          <legend>About you</legend>
          <TextField label="First name" name="first_name" defaultValue={p.first_name} errors={fields.first_name} />
          <TextField label="Last name" name="last_name" defaultValue={p.last_name} errors={fields.last_name} />
          <fieldset>
            <legend>Notifications</legend>
            {NOTIFICATION_SETTINGS.map(([field, label]) => (
              <Checkbox key={field} name={field} label={label} defaultChecked={p[field]} />
            ))}
          </fieldset>
        </fieldset>
      ) : null}
      {isAdmin ? (
        <fieldset>
          <legend>Administration</legend>
          <TextField label="Title" name="title" defaultValue={p.title} errors={fields.title} />
          <TextField label="Start date" name="date_start" type="date" defaultValue={p.date_start} errors={fields.date_start} />
          <TextField label="End date" name="date_end" type="date" defaultValue={p.date_end ?? ''} errors={fields.date_end} />
          <Checkbox name="is_administrator" label="Admin" defaultChecked={p.is_administrator} />
        </fieldset>
      ) : (
        <p className="reason" role="note">
          Title, dates and the Admin role are changed by the organization's Admins.
        </p>
      )}
      {Object.keys(fields).length ? null : <ErrorMessage error={update.error} />}
      <div className="buttons">
        <Button type="submit" variant="primary" disabled={update.isPending || (!isAdmin && !isSelf)}>
          Save
        </Button>
        <Button onClick={onDone}>Cancel</Button>
      </div>
    </form>
  );
}
