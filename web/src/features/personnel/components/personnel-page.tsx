// The organization's personnel: the paged list, searched by name or email on the server;
// Admins add members by email, change the administrative fields and archive or
// un-archive; a member changes only what the spec lets a member change on their own
// record (names, email, dashboard links, metadata, notification settings).
import { useNavigate } from '@tanstack/react-router';
import { useCallback, useState, type FormEvent } from 'react';
import { Button, Checkbox, Dialog, ErrorMessage, Loading, Notice, Pager, TableFrame, TextField } from '../../../components/ui';
import { ApiError } from '../../../lib/api/client';
import { useSession } from '../../../lib/api/session';
import { useMyPersonnel } from '../../../lib/api/organizations';
import { useSearchDraft } from '../../../lib/search-draft';
import { useAddPersonnel, usePersonnel, usePersonnelDetail, useUpdatePersonnel, type PersonnelChanges } from '../../../lib/api/personnel';

const ADMIN_ONLY = "Only the organization's Admins do this.";

export function PersonnelPage({ orgSid, search }: { orgSid: string; search?: string }) {
  const session = useSession();
  const me = useMyPersonnel(orgSid, session.data?.sid ?? '');
  const isAdmin = Boolean(me.data?.is_administrator && !me.data.is_archived);
  // The page number belongs to one search: a new search starts at page 1.
  const [paging, setPaging] = useState({ search, page: 1 });
  const page = paging.search === search ? paging.page : 1;
  const setPage = (next: number) => setPaging({ search, page: next });
  const personnel = usePersonnel(orgSid, page, search);
  const update = useUpdatePersonnel(orgSid);
  const [editing, setEditing] = useState<string | null>(null);
  const navigate = useNavigate();
  const commitSearch = useCallback(
    (text: string) => void navigate({ to: '/o/$org/personnel', params: { org: orgSid }, search: text ? { q: text } : {}, replace: true }),
    [navigate, orgSid],
  );
  const [draft, setDraft] = useSearchDraft(search, commitSearch);

  return (
    <main className="wide">
      <h1>Personnel</h1>
      <div className="field field-inline" role="search">
        <label htmlFor="personnel-search">Search people by name or email</label>
        <input id="personnel-search" type="search" value={draft} onChange={(event) => setDraft(event.target.value)} />
      </div>
      {personnel.isPending ? (
        <Loading />
      ) : personnel.error ? (
        <ErrorMessage error={personnel.error} />
      ) : (
        <>
          {search && personnel.data.count === 0 ? (
            <p role="status">No one's name or email contains "{search}".</p>
          ) : null}
          <TableFrame label="People">
            <table className="data">
              <caption>
                {search ? `People whose name or email contains "${search}" (${personnel.data.count})` : `People of the organization (${personnel.data.count})`}
              </caption>
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
          </TableFrame>
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

/** Metadata as the member types it: a JSON list, or the message that says what is wrong. */
function parseMetadata(text: string): { value: NonNullable<PersonnelChanges['metadata']> } | { error: string } {
  const trimmed = text.trim();
  if (!trimmed) return { value: [] };
  try {
    const value: unknown = JSON.parse(trimmed);
    // What JSON.parse gives is JSON through and through.
    if (Array.isArray(value)) return { value: value as NonNullable<PersonnelChanges['metadata']> };
  } catch {
    // falls through to the message
  }
  return { error: 'Metadata must be a JSON list, for example [] or [{"orcid": "0000-0002-1825-0097"}].' };
}

function EditPersonnel({ orgSid, sid, isAdmin, isSelf, onDone }: EditProps) {
  const person = usePersonnelDetail(sid);
  const update = useUpdatePersonnel(orgSid);
  const [links, setLinks] = useState<{ link: string; note: string }[] | null>(null);
  const [metadataError, setMetadataError] = useState<string | null>(null);
  if (person.isPending) return <Loading />;
  if (person.error) return <ErrorMessage error={person.error} />;
  const p = person.data;
  const dashboard = links ?? p.dashboard;
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
      const metadata = parseMetadata(String(data.get('metadata') ?? ''));
      if ('error' in metadata) {
        setMetadataError(metadata.error);
        return;
      }
      setMetadataError(null);
      changes.first_name = String(data.get('first_name'));
      changes.last_name = String(data.get('last_name'));
      const email = String(data.get('email')).trim();
      if (email !== p.email) changes.email = email;
      changes.dashboard = dashboard.map((entry) => ({ link: entry.link.trim(), note: entry.note.trim() })).filter((entry) => entry.link || entry.note);
      changes.metadata = metadata.value;
      for (const [field] of NOTIFICATION_SETTINGS) changes[field] = data.get(field) === 'on';
    }
    update.mutate({ sid, changes }, { onSuccess: onDone });
  };
  const fields = update.error instanceof ApiError ? update.error.fields : {};
  const setLink = (index: number, entry: { link: string; note: string } | null) =>
    setLinks(entry ? dashboard.map((old, i) => (i === index ? entry : old)) : dashboard.filter((_, i) => i !== index));
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
          <TextField
            label="Email in this organization"
            name="email"
            type="email"
            required
            defaultValue={p.email}
            errors={fields.email}
            hint="A new address is sent a link to prove it; no other mail goes to it until then. You still sign in with your account's email."
          />
          <fieldset>
            <legend>Dashboard links</legend>
            {dashboard.length === 0 ? <p className="hint">No links yet: add the pages you open often.</p> : null}
            {dashboard.map((entry, index) => (
              <div className="link-row" key={index} role="group" aria-label={`Dashboard link ${index + 1}`}>
                <TextField
                  label={`Link ${index + 1}`}
                  type="url"
                  value={entry.link}
                  onChange={(event) => setLink(index, { ...entry, link: event.target.value })}
                />
                <TextField
                  label={`Note ${index + 1}`}
                  value={entry.note}
                  onChange={(event) => setLink(index, { ...entry, note: event.target.value })}
                />
                <Button aria-label={`Remove link ${index + 1}`} onClick={() => setLink(index, null)}>
                  Remove
                </Button>
              </div>
            ))}
            {fields.dashboard ? <span className="field-error">{fields.dashboard.join(' ')}</span> : null}
            <Button onClick={() => setLinks([...dashboard, { link: '', note: '' }])}>Add a link</Button>
          </fieldset>
          <MetadataField defaultValue={p.metadata} errors={metadataError ? [metadataError] : fields.metadata} />
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

/** The member's metadata, edited as JSON text. */
function MetadataField({ defaultValue, errors }: { defaultValue: unknown[]; errors?: string[] }) {
  const id = 'personnel-metadata';
  return (
    <div className="field">
      <label htmlFor={id}>Metadata (a JSON list)</label>
      <textarea
        id={id}
        name="metadata"
        rows={3}
        spellCheck={false}
        defaultValue={defaultValue.length ? JSON.stringify(defaultValue, null, 2) : '[]'}
        aria-invalid={errors?.length ? true : undefined}
        aria-describedby={errors?.length ? `${id}-errors` : undefined}
      />
      {errors?.length ? (
        <span id={`${id}-errors`} className="field-error">
          {errors.join(' ')}
        </span>
      ) : null}
    </div>
  );
}
