// What an account whose email is not proved yet sees, in the app's frame: the address the
// link went to, sending it again, naming another address (a typo at signup), signing out
// (in the frame). It asks every few seconds whether the proof has landed and turns into the
// app the moment it has: no reload.
import { useState, type FormEvent } from 'react';
import { Button, ErrorMessage, Notice, TextField } from '../../../components/ui';
import { ApiError } from '../../../lib/api/client';
import { useChangeEmail, useResendProof, type SessionUser } from '../../../lib/api/session';

export function UnprovenPage({ user }: { user: SessionUser }) {
  const resend = useResendProof();
  const change = useChangeEmail();
  const [changing, setChanging] = useState(false);
  const onChange = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const email = String(new FormData(event.currentTarget).get('email') ?? '').trim();
    resend.reset();
    change.mutate(email, { onSuccess: () => setChanging(false) });
  };
  const fields = change.error instanceof ApiError ? change.error.fields : {};
  return (
    <main>
      <h1>Check your email</h1>
      <p>
        We sent a link to <strong>{user.email}</strong>. Open it to prove that the address is yours: this page carries on by
        itself once you have, here or on any other device.
      </p>
      {user.pending_email && (
        <Notice>
          A link also went to <strong>{user.pending_email}</strong>: opening it makes {user.pending_email} your sign-in address.
        </Notice>
      )}
      <p className="muted" role="status" aria-live="polite">
        Waiting for the link to be opened…
      </p>
      <div className="buttons">
        <Button
          variant="primary"
          disabled={resend.isPending}
          onClick={() => {
            change.reset();
            resend.mutate();
          }}
        >
          Send the link again
        </Button>
        <Button aria-expanded={changing} onClick={() => setChanging((open) => !open)}>
          Change the address
        </Button>
      </div>
      {resend.isSuccess && <Notice>A new link is on its way to {user.email}. Links sent earlier still work.</Notice>}
      <ErrorMessage error={resend.error} />
      {change.isSuccess && !user.pending_email && <Notice>{change.data.detail}</Notice>}
      {changing && (
        <form onSubmit={onChange} className="form" aria-label="Change the address">
          <TextField
            label="Your email address"
            name="email"
            type="email"
            autoComplete="email"
            required
            autoFocus
            hint="A link goes to it; your account signs in with it once you open that link."
            errors={fields.email}
          />
          {Object.keys(fields).length ? null : <ErrorMessage error={change.error} />}
          <div className="buttons">
            <Button type="submit" variant="primary" disabled={change.isPending}>
              Send the link there
            </Button>
            <Button onClick={() => setChanging(false)}>Cancel</Button>
          </div>
        </form>
      )}
      <p className="muted">No mail? Look in the spam folder, send the link again, or sign out and sign in with another account.</p>
    </main>
  );
}
