// The signed-in person's account: their email and digest settings in this organization,
// API keys (a new key is shown once, with a copy button; revoke), changing the password,
// and signing out everywhere. Everything here is the person's own: no role is needed.
import { useNavigate } from '@tanstack/react-router';
import { useState, type FormEvent, type ReactNode } from 'react';
import { Button, Dialog, ErrorMessage, Loading, Notice, TextField } from '../../../components/ui';
import { ApiError } from '../../../lib/api/client';
import { useSession } from '../../../lib/api/session';
import { shownDate } from '../../../lib/format';
import { useMyPersonnel, useOrganization } from '../../../lib/api/organizations';
import { useLeaveOrganization } from '../../../lib/api/invitations';
import { useApiKeys, useChangePassword, useCreateApiKey, useRevokeApiKey, useSignOutEverywhere } from '../api/account';

/** `notificationSettings`: the notifications feature's settings form, put here by the route; `orgSid`: the organization one may leave here. */
export function AccountPage({ orgSid, notificationSettings }: { orgSid: string; notificationSettings: ReactNode }) {
  const session = useSession();
  const user = session.data;
  if (!user) return <Loading />;
  return (
    <main>
      <h1>Your account</h1>
      <p>
        {user.first_name} {user.last_name} ({user.email})
      </p>
      <section aria-labelledby="settings-heading">
        <h2 id="settings-heading">Notification settings</h2>
        {notificationSettings}
      </section>
      <ApiKeys userSid={user.sid} />
      <ChangePassword />
      <SignOutEverywhere />
      <LeaveOrganization orgSid={orgSid} userSid={user.sid} />
    </main>
  );
}

function ApiKeys({ userSid }: { userSid: string }) {
  const keys = useApiKeys(userSid);
  const create = useCreateApiKey(userSid);
  const revoke = useRevokeApiKey(userSid);
  const [created, setCreated] = useState<{ name: string; key: string } | null>(null);
  const [copied, setCopied] = useState<string | null>(null);
  const [revoked, setRevoked] = useState<string | null>(null);
  // The key whose revocation waits for a confirmation.
  const [revoking, setRevoking] = useState<{ sid: string; name: string } | null>(null);
  const confirmRevoke = (key: { sid: string; name: string }) =>
    revoke.mutate(key.sid, {
      onSuccess: () => {
        setRevoking(null);
        setRevoked(`The key “${key.name}” is revoked: it no longer works.`);
        if (created && created.name === key.name) setCreated(null);
      },
    });
  const onCreate = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const name = String(new FormData(form).get('name') ?? '').trim();
    setCopied(null);
    create.mutate(name, {
      onSuccess: (answer) => {
        setCreated({ name: answer.name, key: answer.key });
        setRevoked(null);
        form.reset();
      },
    });
  };
  const copy = async (key: string) => {
    try {
      await navigator.clipboard.writeText(key);
      setCopied('Copied to the clipboard.');
    } catch {
      setCopied('The browser did not let the page copy: select the key and copy it by hand.');
    }
  };
  const fields = create.error instanceof ApiError ? create.error.fields : {};
  return (
    <section aria-labelledby="keys-heading">
      <h2 id="keys-heading">API keys</h2>
      <p className="muted">
        A script sends a key as <code>Authorization: Bearer &lt;key&gt;</code> and acts as you. Revoke a key you no longer use.
      </p>
      {keys.isPending ? (
        <Loading />
      ) : keys.error ? (
        <ErrorMessage error={keys.error} />
      ) : keys.data.count === 0 ? (
        <p>You have no API key.</p>
      ) : (
        <div className="table-scroll">
          <table className="data">
            <caption>Your API keys ({keys.data.count})</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {keys.data.results.map((key) => (
                <tr key={key.sid}>
                  <th scope="row">{key.name}</th>
                  <td>{shownDate(key.date_created)}</td>
                  <td>{key.last_used === key.date_created ? 'never' : shownDate(key.last_used)}</td>
                  <td className="actions">
                    <Button
                      variant="danger"
                      aria-label={`Revoke ${key.name}`}
                      disabled={revoke.isPending}
                      onClick={() => {
                        revoke.reset();
                        setRevoking({ sid: key.sid, name: key.name });
                      }}
                    >
                      Revoke
                    </Button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {revoked && <Notice>{revoked}</Notice>}
      <Dialog open={revoking !== null} title={revoking ? `Revoke the key “${revoking.name}”?` : 'Revoke the key?'} onClose={() => setRevoking(null)}>
        {revoking && (
          <>
            <p>Every script that uses it is refused from now on. This cannot be undone: a script needs a new key then.</p>
            <ErrorMessage error={revoke.error} />
            <div className="buttons">
              <Button variant="danger" disabled={revoke.isPending} onClick={() => confirmRevoke(revoking)}>
                Revoke the key
              </Button>
              <Button onClick={() => setRevoking(null)}>Keep it</Button>
            </div>
          </>
        )}
      </Dialog>
      {created && (
        <div className="panel new-key" role="region" aria-label="Your new API key">
          <p>
            Your new key <strong>{created.name}</strong>. Copy it now: it is not shown again.
          </p>
          <p>
            <code className="secret" aria-label="The new key">
              {created.key}
            </code>
          </p>
          <div className="buttons">
            <Button variant="primary" onClick={() => void copy(created.key)}>
              Copy key
            </Button>
            <Button onClick={() => setCreated(null)}>I have copied it</Button>
          </div>
          {copied && <Notice>{copied}</Notice>}
        </div>
      )}
      <form onSubmit={onCreate} className="form form-inline" aria-label="Create an API key">
        <TextField label="Key name" name="name" required maxLength={150} hint="What uses it, e.g. “nightly import”." errors={fields.name} />
        {Object.keys(fields).length ? null : <ErrorMessage error={create.error} />}
        <Button type="submit" variant="primary" disabled={create.isPending}>
          Create key
        </Button>
      </form>
    </section>
  );
}

function ChangePassword() {
  const change = useChangePassword();
  const [mismatch, setMismatch] = useState<string | null>(null);
  const [done, setDone] = useState(false);
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const data = new FormData(form);
    const next = String(data.get('new_password'));
    setDone(false);
    if (next !== String(data.get('confirm'))) {
      setMismatch('The two new passwords differ: type the same one twice.');
      return;
    }
    setMismatch(null);
    change.mutate(
      { current_password: String(data.get('current_password')), new_password: next },
      {
        onSuccess: () => {
          setDone(true);
          form.reset();
        },
      },
    );
  };
  const fields = change.error instanceof ApiError ? change.error.fields : {};
  return (
    <section aria-labelledby="password-heading">
      <h2 id="password-heading">Change your password</h2>
      <form onSubmit={onSubmit} className="form" aria-label="Change your password">
        <TextField label="Current password" name="current_password" type="password" autoComplete="current-password" required errors={fields.current_password} />
        <TextField label="New password" name="new_password" type="password" autoComplete="new-password" required minLength={8} maxLength={128} hint="At least 8 characters." errors={fields.new_password} />
        <TextField label="New password again" name="confirm" type="password" autoComplete="new-password" required errors={mismatch ? [mismatch] : undefined} />
        {Object.keys(fields).length ? null : <ErrorMessage error={change.error} />}
        {done && <Notice>Your password is changed. Your other sessions have ended; this one stays signed in.</Notice>}
        <Button type="submit" variant="primary" disabled={change.isPending}>
          {change.isPending ? 'Changing…' : 'Change password'}
        </Button>
      </form>
    </section>
  );
}

function SignOutEverywhere() {
  const everywhere = useSignOutEverywhere();
  const navigate = useNavigate();
  return (
    <section aria-labelledby="everywhere-heading">
      <h2 id="everywhere-heading">Sign out everywhere</h2>
      <p>Ends every session of your account, in every browser and every script signed in with a token, this one too. API keys keep working.</p>
      <ErrorMessage error={everywhere.error} />
      <Button variant="danger" disabled={everywhere.isPending} onClick={() => everywhere.mutate(undefined, { onSuccess: () => void navigate({ to: '/signin' }) })}>
        Sign out everywhere
      </Button>
    </section>
  );
}

/** Leaving the organization (anyone may; its last active Admin is told why not). */
function LeaveOrganization({ orgSid, userSid }: { orgSid: string; userSid: string }) {
  const me = useMyPersonnel(orgSid, userSid);
  const organization = useOrganization(orgSid);
  const leave = useLeaveOrganization();
  const navigate = useNavigate();
  const [asking, setAsking] = useState(false);
  const name = organization.data?.name ?? 'this organization';
  if (!me.data) return null;
  const sid = me.data.sid;
  return (
    <section aria-labelledby="leave-heading">
      <h2 id="leave-heading">Leave {name}</h2>
      <p>You lose access to its records at once, and it sends you no more mail. An Admin can add you again; it mails you nothing until you accept.</p>
      <ErrorMessage error={leave.error} />
      {asking ? (
        <p>
          <Button variant="danger" disabled={leave.isPending} onClick={() => leave.mutate(sid, { onSuccess: () => void navigate({ to: '/' }) })}>
            Yes, leave {name}
          </Button>{' '}
          <Button onClick={() => setAsking(false)}>Stay</Button>
        </p>
      ) : (
        <Button onClick={() => setAsking(true)}>Leave {name}…</Button>
      )}
    </section>
  );
}
