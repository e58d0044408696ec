// The instance's administration (its administrators only): a frame with its sections —
// organizations (credits), accounts, settings, mail — each a route of its own.
import { Link, Outlet } from '@tanstack/react-router';
import type { ReactNode } from 'react';
import { Loading } from '../../../components/ui';
import { useSession } from '../../../lib/api/session';

const dateFormat = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' });
/** A timestamp of the API for people (UTC). */
export const shownTime = (iso: string) => `${dateFormat.format(new Date(iso))} UTC`;

export function AdminLayout() {
  const session = useSession();
  if (session.isPending) return <Loading />;
  return (
    <main className="admin">
      <h1>Administration</h1>
      {!session.data?.is_instance_admin ? (
        <p role="alert" className="error">
          Only the administrators of this Records Service see this page. The operator names them with{' '}
          <code>npm run cli -- instance-admin --grant &lt;email&gt;</code>.
        </p>
      ) : (
        <>
          <p className="muted">
            Everything on this Records Service: every organization and its credits, every account, the settings you may
            change while it runs, and its mail.
          </p>
          <nav aria-label="Administration" className="tabs">
            <Tab to="/administration">Organizations</Tab>
            <Tab to="/administration/accounts">Accounts</Tab>
            <Tab to="/administration/settings">Settings</Tab>
            <Tab to="/administration/mail">Mail</Tab>
          </nav>
          <Outlet />
        </>
      )}
    </main>
  );
}

function Tab({ to, children }: { to: '/administration' | '/administration/accounts' | '/administration/settings' | '/administration/mail'; children: ReactNode }) {
  return (
    <Link to={to} activeOptions={{ exact: true }} activeProps={{ 'aria-current': 'page' }}>
      {children}
    </Link>
  );
}
