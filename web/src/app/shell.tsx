// The frame of every signed-in screen: the organization's name and credits, the switcher,
// the organization's sections, the inbox with its unread count (kept live by the
// notification stream the frame opens, which also says when the person's roles change:
// then every screen re-reads what it shows, app/live-access.ts), the account, and signing out.
import { Link, Outlet, useNavigate } from '@tanstack/react-router';
import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, type ReactNode } from 'react';
import { Button } from '../components/ui';
import { useSession, useSignOut } from '../lib/api/session';
import { OrganizationBadge, OrganizationSwitcher } from '../features/organizations/components/organization-pages';
import { InboxLink } from '../features/notifications/components/inbox-link';
import { LiveNotificationsProvider } from '../features/notifications/components/live-context';
import { refreshAfterAccessChange } from './live-access';
import { InvitationPrompt } from '../features/invitations/components/invitations';

/** The frame around `children`, or around the route's screen (the Outlet). */
export function Shell({ orgSid, children }: { orgSid?: string; children?: ReactNode }) {
  const session = useSession();
  const signOut = useSignOut();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const onAccess = useCallback(() => void refreshAfterAccessChange(queryClient), [queryClient]);
  const user = session.data;
  // The session ended elsewhere (signed out everywhere, a password changed on another device,
  // which the live stream reports): back to the sign-in page rather than a screen of refusals.
  useEffect(() => {
    if (session.data === null) void navigate({ to: '/signin' });
  }, [session.data, navigate]);
  const frame = (
    <>
      <a href="#content" className="skip-link">
        Skip to content
      </a>
      <header className="topbar">
        <Link to="/" className="brand">
          Records
        </Link>
        {orgSid && <OrganizationBadge orgSid={orgSid} />}
        {orgSid && user && <OrganizationSwitcher userSid={user.sid} current={orgSid} />}
        {orgSid && (
          <nav aria-label="Organization" className="sections">
            <Link to="/o/$org" params={{ org: orgSid }} activeOptions={{ exact: true }}>
              Overview
            </Link>
            <Link to="/o/$org/personnel" params={{ org: orgSid }}>
              Personnel
            </Link>
            <Link to="/o/$org/widgets" params={{ org: orgSid }}>
              Widgets
            </Link>
          </nav>
        )}
        <span className="spacer" />
        {user?.is_instance_admin && (
          <Link to="/administration" className="admin-link">
            Administration
          </Link>
        )}
        {orgSid && <InboxLink orgSid={orgSid} />}
        {user &&
          (orgSid ? (
            <Link to="/o/$org/account" params={{ org: orgSid }} className="user" aria-label={`Your account (${user.first_name} ${user.last_name})`}>
              {user.first_name} {user.last_name}
            </Link>
          ) : (
            <span className="user">
              {user.first_name} {user.last_name}
            </span>
          ))}
        <Button onClick={() => signOut.mutate(undefined, { onSettled: () => void navigate({ to: '/signin' }) })}>Sign out</Button>
      </header>
      {user?.is_email_verified && <InvitationPrompt />}
      <div id="content">{children ?? <Outlet />}</div>
    </>
  );
  return orgSid ? (
    <LiveNotificationsProvider orgSid={orgSid} onAccess={onAccess}>
      {frame}
    </LiveNotificationsProvider>
  ) : (
    frame
  );
}
