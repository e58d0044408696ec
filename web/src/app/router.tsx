// The app's routes (TanStack Router, typed paths and search params): every screen is a
// URL that can be shared. Signed-in screens sit under the `signedIn` layout, which sends
// a visitor without a session to the sign-in page.
import { createRootRouteWithContext, createRoute, createRouter, lazyRouteComponent, Navigate, Outlet, redirect, useParams } from '@tanstack/react-router';
import type { QueryClient } from '@tanstack/react-query';
import { ErrorMessage, Loading } from '../components/ui';
import { sessionQuery, useSession, useSessionAwaitingProof } from '../lib/api/session';
import { UnprovenPage } from '../features/auth/components/unproven-page';
import { ForgotPasswordPage, ResetPasswordPage, SignInPage, SignUpPage, UnlockPage, VerifyEmailPage } from '../features/auth/components/auth-pages';
import { useOrganizations } from '../lib/api/organizations';
import { CreateOrganizationForm } from '../features/organizations/components/organization-pages';
import { OrganizationOverview } from '../features/organizations/components/overview';
import { GridPage } from '../features/grid/components/grid-page';
import { ExportMenu, ProjectExport } from '../features/transfer/components/export-menu';
import { ImportRows } from '../features/transfer/components/import-rows';
import { RunWorkflow } from '../features/workflows/components/run-workflow';
import { HistoryPage } from '../features/history/components/history-page';
import { FileCell } from '../features/files/components/file-cell';
import { FileHistory } from '../features/files/components/file-history';
import { FILE_KIND } from '../features/files/api/files';
import { PersonnelPage } from '../features/personnel/components/personnel-page';
import { ProjectPage } from '../features/projects/components/project-page';
import { TablePage } from '../features/tables/components/table-page';
import { WidgetsPage } from '../features/widgets/components/widgets-page';
import { InboxPage } from '../features/notifications/components/inbox-page';
import { NotificationPage } from '../features/notifications/components/notification-page';
import { AccountPage } from '../features/account/components/account-page';
import { NotificationSettings } from '../features/notifications/components/notification-settings';
import { Shell } from './shell';
import { AcceptInvitationPage } from '../features/invitations/components/invitations';

interface RouterContext {
  queryClient: QueryClient;
}

const tagSearch = (search: Record<string, unknown>): { tag?: string } => (typeof search.tag === 'string' ? { tag: search.tag } : {});

const rootRoute = createRootRouteWithContext<RouterContext>()({
  component: Outlet,
  // A screen whose data cannot load says so in words, with a way on (never a bare "Something went wrong").
  errorComponent: function RouteError({ error, reset }) {
    return (
      <main>
        <h1>This page could not be shown</h1>
        <ErrorMessage error={error} />
        <p>
          <button type="button" className="button button-primary" onClick={reset}>
            Try again
          </button>{' '}
          <a href="/">Go to the start page</a>
        </p>
      </main>
    );
  },
  notFoundComponent: () => (
    <main>
      <h1>Not found</h1>
      <p>There is no page here.</p>
    </main>
  ),
});

const signInRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/signin',
  validateSearch: (search: Record<string, unknown>): { redirect?: string } =>
    typeof search.redirect === 'string' ? { redirect: search.redirect } : {},
  component: function SignIn() {
    const { redirect: to } = signInRoute.useSearch();
    return <SignInPage redirect={to} />;
  },
});

const signUpRoute = createRoute({ getParentRoute: () => rootRoute, path: '/signup', component: SignUpPage });
const forgotRoute = createRoute({ getParentRoute: () => rootRoute, path: '/forgot-password', component: ForgotPasswordPage });

// The emailed links: {PUBLIC_URL}/accounts/resetpassword/?tag=…, /accounts/verifyemail/?tag=… and /accounts/unlock/?tag=….
const resetRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/accounts/resetpassword',
  validateSearch: tagSearch,
  component: function Reset() {
    return <ResetPasswordPage tag={resetRoute.useSearch().tag} />;
  },
});
const verifyRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/accounts/verifyemail',
  validateSearch: tagSearch,
  component: function Verify() {
    return <VerifyEmailPage tag={verifyRoute.useSearch().tag} />;
  },
});

const unlockRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/accounts/unlock',
  validateSearch: tagSearch,
  component: function Unlock() {
    return <UnlockPage tag={unlockRoute.useSearch().tag} />;
  },
});

const signedInRoute = createRoute({
  getParentRoute: () => rootRoute,
  id: 'signedIn',
  beforeLoad: async ({ context, location }) => {
    const user = await context.queryClient.ensureQueryData(sessionQuery);
    if (!user) throw redirect({ to: '/signin', search: { redirect: location.href } });
  },
  component: SignedIn,
});

/**
 * Every signed-in screen; until the account has proved its email, the screen that waits for
 * the proof (in the frame) instead, which turns into the screen asked for once it lands.
 */
function SignedIn() {
  const session = useSessionAwaitingProof();
  const user = session.data;
  if (user && !user.is_email_verified) {
    return (
      <Shell>
        <UnprovenPage user={user} />
      </Shell>
    );
  }
  return <Outlet />;
}

/** `/`: the person's organization, or the first-run page that creates one. */
const homeRoute = createRoute({
  getParentRoute: () => signedInRoute,
  path: '/',
  component: function Home() {
    const session = useSession();
    const organizations = useOrganizations(session.data?.sid ?? '');
    if (organizations.isPending) return <Loading />;
    if (organizations.error) return <ErrorMessage error={organizations.error} />;
    const first = organizations.data.results[0];
    if (first) return <Navigate to="/o/$org" params={{ org: first.sid }} replace />;
    return (
      <>
        <Shell />
        <CreateOrganizationForm userSid={session.data!.sid} firstRun />
      </>
    );
  },
});

// The invitation mail's link for an account that has a password: {PUBLIC_URL}/organizations/personnel/detail/{sid}/accept/.
const acceptInvitationRoute = createRoute({
  getParentRoute: () => signedInRoute,
  path: '/organizations/personnel/detail/$sid/accept',
  component: function AcceptInvitation() {
    return (
      <Shell>
        <AcceptInvitationPage sid={acceptInvitationRoute.useParams().sid} />
      </Shell>
    );
  },
});

const newOrganizationRoute = createRoute({
  getParentRoute: () => signedInRoute,
  path: '/organizations/new',
  component: function NewOrganization() {
    const session = useSession();
    return <CreateOrganizationForm userSid={session.data!.sid} firstRun={false} />;
  },
});

const organizationRoute = createRoute({
  getParentRoute: () => signedInRoute,
  path: '/o/$org',
  component: function Organization() {
    const { org } = useParams({ from: '/signedIn/o/$org' });
    return <Shell orgSid={org} />;
  },
});

const overviewRoute = createRoute({
  getParentRoute: () => organizationRoute,
  path: '/',
  component: function Overview() {
    return <OrganizationOverview orgSid={overviewRoute.useParams().org} />;
  },
});

const personnelRoute = createRoute({
  getParentRoute: () => organizationRoute,
  path: '/personnel',
  validateSearch: (search: Record<string, unknown>): { q?: string } =>
    typeof search.q === 'string' && search.q !== '' ? { q: search.q } : {},
  component: function Personnel() {
    return <PersonnelPage orgSid={personnelRoute.useParams().org} search={personnelRoute.useSearch().q} />;
  },
});

const widgetsRoute = createRoute({
  getParentRoute: () => organizationRoute,
  path: '/widgets',
  component: function Widgets() {
    return <WidgetsPage orgSid={widgetsRoute.useParams().org} />;
  },
});

const projectRoute = createRoute({
  getParentRoute: () => organizationRoute,
  path: '/projects/$project',
  component: function Project() {
    const { org, project } = projectRoute.useParams();
    return <ProjectPage orgSid={org} projectSid={project} actions={<ProjectExport projectSid={project} />} />;
  },
});

const tableRoute = createRoute({
  getParentRoute: () => organizationRoute,
  path: '/tables/$table',
  component: function Table() {
    const { org, table } = tableRoute.useParams();
    return <TablePage orgSid={org} tableSid={table} />;
  },
});

const rowsRoute = createRoute({
  getParentRoute: () => organizationRoute,
  path: '/tables/$table/rows',
  validateSearch: (search: Record<string, unknown>): { project?: string; q?: string } => ({
    ...(typeof search.project === 'string' ? { project: search.project } : {}),
    ...(typeof search.q === 'string' && search.q !== '' ? { q: search.q } : {}),
  }),
  component: function Rows() {
    const { org, table } = rowsRoute.useParams();
    const { project, q } = rowsRoute.useSearch();
    return (
      <GridPage
        key={table}
        orgSid={org}
        tableSid={table}
        projectSid={project}
        search={q}
        rowAction={(row) => <RunWorkflow orgSid={org} tableSid={table} row={row} />}
        tableActions={
          <>
            <ImportRows tableSid={table} projectSid={project} />
            <ExportMenu tableSid={table} projectSid={project} />
          </>
        }
        customCells={{
          kinds: [FILE_KIND],
          render: ({ row, column, data, block, onChanged }) => (
            <FileCell
              rowSid={row.sid}
              rowName={row.name}
              columnSid={column.sid}
              columnName={column.name}
              data={data}
              block={block}
              onUploaded={onChanged}
            />
          ),
        }}
      />
    );
  },
});

const historyRoute = createRoute({
  getParentRoute: () => organizationRoute,
  path: '/rows/$row',
  component: function History() {
    const { org, row } = historyRoute.useParams();
    return (
      <HistoryPage
        key={row}
        orgSid={org}
        rowSid={row}
        files={({ columnNames, mismatched }) => <FileHistory orgSid={org} rowSid={row} columnNames={columnNames} mismatched={mismatched} />}
      />
    );
  },
});

// A record as a page, its sections edited in TipTap (loaded when first opened).
const RecordPage = lazyRouteComponent(() => import('../features/record/components/record-page'), 'RecordPage');

const recordRoute = createRoute({
  getParentRoute: () => organizationRoute,
  path: '/rows/$row/record',
  component: function Record() {
    const { org, row } = recordRoute.useParams();
    return <RecordPage key={row} orgSid={org} rowSid={row} />;
  },
});

const inboxRoute = createRoute({
  getParentRoute: () => organizationRoute,
  path: '/notifications',
  component: function Inbox() {
    return <InboxPage orgSid={inboxRoute.useParams().org} />;
  },
});

const notificationRoute = createRoute({
  getParentRoute: () => organizationRoute,
  path: '/notifications/$notification',
  component: function Notification() {
    const { org, notification } = notificationRoute.useParams();
    return <NotificationPage key={notification} orgSid={org} sid={notification} />;
  },
});

const accountRoute = createRoute({
  getParentRoute: () => organizationRoute,
  path: '/account',
  component: function Account() {
    const { org } = accountRoute.useParams();
    return <AccountPage orgSid={org} notificationSettings={<NotificationSettings orgSid={org} />} />;
  },
});

// The workflow screens (and dnd-kit, which reorders steps) load when first opened.
const WorkflowsPage = lazyRouteComponent(() => import('../features/workflows/components/workflows-page'), 'WorkflowsPage');
const WorkflowPage = lazyRouteComponent(() => import('../features/workflows/components/workflow-page'), 'WorkflowPage');
const ExecutionPage = lazyRouteComponent(() => import('../features/workflows/components/execution-page'), 'ExecutionPage');

const workflowsRoute = createRoute({
  getParentRoute: () => organizationRoute,
  path: '/tables/$table/workflows',
  component: function Workflows() {
    const { org, table } = workflowsRoute.useParams();
    return <WorkflowsPage key={table} orgSid={org} tableSid={table} />;
  },
});

const workflowRoute = createRoute({
  getParentRoute: () => organizationRoute,
  path: '/workflows/$workflow',
  component: function Workflow() {
    const { org, workflow } = workflowRoute.useParams();
    return <WorkflowPage key={workflow} orgSid={org} workflowSid={workflow} />;
  },
});

const executionRoute = createRoute({
  getParentRoute: () => organizationRoute,
  path: '/executions/$execution',
  component: function Execution() {
    const { org, execution } = executionRoute.useParams();
    return <ExecutionPage key={execution} orgSid={org} executionSid={execution} />;
  },
});

// The instance's administration (its administrators only; lazy: most people never open it).
const AdminLayout = lazyRouteComponent(() => import('../features/admin/components/admin-page'), 'AdminLayout');
const AdminOrganizations = lazyRouteComponent(() => import('../features/admin/components/organizations-section'), 'OrganizationsSection');
const AdminAccounts = lazyRouteComponent(() => import('../features/admin/components/accounts-section'), 'AccountsSection');
const AdminSettings = lazyRouteComponent(() => import('../features/admin/components/settings-section'), 'SettingsSection');
const AdminMail = lazyRouteComponent(() => import('../features/admin/components/mail-section'), 'MailSection');

const administrationRoute = createRoute({
  getParentRoute: () => signedInRoute,
  path: '/administration',
  component: function Administration() {
    return (
      <Shell>
        <AdminLayout />
      </Shell>
    );
  },
});
const adminOrganizationsRoute = createRoute({ getParentRoute: () => administrationRoute, path: '/', component: AdminOrganizations });
const adminAccountsRoute = createRoute({ getParentRoute: () => administrationRoute, path: '/accounts', component: AdminAccounts });
const adminSettingsRoute = createRoute({ getParentRoute: () => administrationRoute, path: '/settings', component: AdminSettings });
const adminMailRoute = createRoute({ getParentRoute: () => administrationRoute, path: '/mail', component: AdminMail });

const routeTree = rootRoute.addChildren([
  signInRoute,
  signUpRoute,
  forgotRoute,
  resetRoute,
  verifyRoute,
  unlockRoute,
  signedInRoute.addChildren([
    homeRoute,
    newOrganizationRoute,
    acceptInvitationRoute,
    administrationRoute.addChildren([adminOrganizationsRoute, adminAccountsRoute, adminSettingsRoute, adminMailRoute]),
    organizationRoute.addChildren([
      overviewRoute,
      personnelRoute,
      widgetsRoute,
      projectRoute,
      tableRoute,
      rowsRoute,
      historyRoute,
      recordRoute,
      inboxRoute,
      notificationRoute,
      accountRoute,
      workflowsRoute,
      workflowRoute,
      executionRoute,
    ]),
  ]),
]);

export const router = createRouter({ routeTree, context: { queryClient: undefined! }, defaultPreload: 'intent', scrollRestoration: true });

declare module '@tanstack/react-router' {
  interface Register {
    router: typeof router;
  }
}
