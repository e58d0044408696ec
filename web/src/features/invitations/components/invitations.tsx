// Consent before mail, in the app: the prompt in the frame for every organization that added
// the person and waits for an answer, and the page of the invitation mail's link, which
// accepts at once and says where to go next.
import { useEffect, useRef } from 'react';
import { Link } from '@tanstack/react-router';
import { Button, ErrorMessage, Loading, Notice } from '../../../components/ui';
import { useAcceptInvitation, useLeaveOrganization, usePendingInvitations, type Invitation } from '../../../lib/api/invitations';

function InvitationItem({ invitation }: { invitation: Invitation }) {
  const accept = useAcceptInvitation();
  const leave = useLeaveOrganization();
  const { organization } = invitation;
  const who = invitation.invited_by ?? 'Someone';
  return (
    <li>
      <p>
        {who} added you to <Link to="/o/$org" params={{ org: organization.sid }}>{organization.name}</Link>. It sends you no mail until you
        accept.
      </p>
      <Button variant="primary" disabled={accept.isPending || leave.isPending} onClick={() => accept.mutate(invitation.personnel_sid)}>
        Accept {organization.name}
      </Button>{' '}
      <Button disabled={accept.isPending || leave.isPending} onClick={() => leave.mutate(invitation.personnel_sid)}>
        Leave {organization.name}
      </Button>
      <ErrorMessage error={accept.error ?? leave.error} />
    </li>
  );
}

/** The frame's prompt: one line per organization waiting for an answer (nothing when none waits). */
export function InvitationPrompt() {
  const pending = usePendingInvitations();
  const results = pending.data?.results ?? [];
  if (!results.length) return null;
  return (
    <section className="invitations notice" aria-label="Invitations">
      <ul>
        {results.map((invitation) => (
          <InvitationItem key={invitation.personnel_sid} invitation={invitation} />
        ))}
      </ul>
    </section>
  );
}

/** The invitation mail's link (…/organizations/personnel/detail/{sid}/accept/): accepts at once, then offers the organization. */
export function AcceptInvitationPage({ sid }: { sid: string }) {
  const accept = useAcceptInvitation();
  const leave = useLeaveOrganization();
  const { mutate } = accept;
  // Posted once, even when an effect runs twice (React's StrictMode in development).
  const sent = useRef<string | null>(null);
  useEffect(() => {
    if (sent.current !== sid) {
      sent.current = sid;
      mutate(sid);
    }
  }, [sid, mutate]);
  const organization = accept.data?.organization;
  return (
    <main className="page">
      <h1>Invitation</h1>
      {accept.isPending && <Loading />}
      <ErrorMessage error={accept.error} />
      {organization && !leave.isSuccess && (
        <>
          <Notice>{accept.data?.detail} Its notifications may now reach you by mail, as your settings say.</Notice>
          <p>
            <Link to="/o/$org" params={{ org: organization.sid }} className="button button-primary">
              Open {organization.name}
            </Link>{' '}
            <Button disabled={leave.isPending} onClick={() => leave.mutate(sid)}>
              Leave {organization.name} instead
            </Button>
          </p>
          <ErrorMessage error={leave.error} />
        </>
      )}
      {leave.isSuccess && (
        <>
          <Notice>{leave.data.detail}</Notice>
          <p>
            <Link to="/" className="button button-primary">
              Go to the start page
            </Link>
          </p>
        </>
      )}
      {accept.error && (
        <p>
          <Link to="/">Go to the start page</Link>
        </p>
      )}
    </main>
  );
}
