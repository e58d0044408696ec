// Every organization of the instance with its credits; granting credits to one (the
// ledger entry names the administrator who granted them).
import { useCallback, useState, type FormEvent } from 'react';
import { Button, Dialog, ErrorMessage, Loading, Notice, Pager, TableFrame, TextField } from '../../../components/ui';
import { ApiError } from '../../../lib/api/client';
import { useSearchDraft } from '../../../lib/search-draft';
import { useSession } from '../../../lib/api/session';
import { useAdminLedger, useAdminOrganizations, useGrantCredits, type AdminOrganization } from '../api/admin';
import { shownTime } from './admin-page';

export function OrganizationsSection() {
  const session = useSession();
  const [page, setPage] = useState(1);
  const [search, setSearch] = useState('');
  const commitSearch = useCallback((text: string) => {
    setSearch(text);
    setPage(1);
  }, []);
  const [draft, setDraft] = useSearchDraft(search, commitSearch);
  const organizations = useAdminOrganizations(session.data?.sid ?? '', page, search.trim());
  const [granting, setGranting] = useState<AdminOrganization | null>(null);
  const [granted, setGranted] = useState<string | null>(null);
  return (
    <section aria-labelledby="admin-organizations">
      <h2 id="admin-organizations">Organizations</h2>
      <p className="muted">
        Each organization pays for writes through priced widgets with its credits. A new one starts with the initial credits
        (Settings); grant more here.
      </p>
      <div className="field field-inline">
        <label htmlFor="admin-org-search">Find an organization</label>
        <input id="admin-org-search" type="search" value={draft} onChange={(event) => setDraft(event.target.value)} />
      </div>
      {granted && <Notice>{granted}</Notice>}
      {organizations.isPending ? (
        <Loading />
      ) : organizations.error ? (
        <ErrorMessage error={organizations.error} />
      ) : organizations.data.count === 0 ? (
        <p className="empty">{search ? `No organization's name contains "${search}".` : 'No organization yet.'}</p>
      ) : (
        <>
          <TableFrame label="Organizations">
            <table className="data">
              <caption>Organizations of this Records Service ({organizations.data.count}), newest first</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Credits</th>
                  <th scope="col">Created by</th>
                  <th scope="col">Created</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {organizations.data.results.map((org) => (
                  <tr key={org.sid}>
                    <th scope="row">{org.name}</th>
                    <td>{org.credits}</td>
                    <td>{org.created_by?.name ?? '—'}</td>
                    <td>{shownTime(org.date_created)}</td>
                    <td>
                      <Button
                        aria-label={`Grant credits to ${org.name}`}
                        onClick={() => {
                          setGranted(null);
                          setGranting(org);
                        }}
                      >
                        Grant credits
                      </Button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableFrame>
          <Pager label="Organizations" page={page} pageCount={organizations.data.page_count} count={organizations.data.count} onPage={setPage} />
        </>
      )}
      <Dialog open={granting !== null} title={granting ? `Grant credits to ${granting.name}` : 'Grant credits'} onClose={() => setGranting(null)}>
        {granting && (
          <GrantForm
            organization={granting}
            onDone={(message) => {
              setGranted(message);
              setGranting(null);
            }}
            onCancel={() => setGranting(null)}
          />
        )}
      </Dialog>
    </section>
  );
}

function GrantForm({ organization, onDone, onCancel }: { organization: AdminOrganization; onDone: (message: string) => void; onCancel: () => void }) {
  const grant = useGrantCredits();
  const ledger = useAdminLedger(organization.sid);
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    const amount = String(data.get('amount') ?? '').trim();
    const note = String(data.get('note') ?? '').trim();
    grant.mutate(
      { orgSid: organization.sid, amount, note },
      { onSuccess: (entry) => onDone(`Granted ${entry.amount} to ${organization.name}: its credits are now ${entry.balance_after}.`) },
    );
  };
  const fields = grant.error instanceof ApiError ? grant.error.fields : {};
  return (
    <form onSubmit={onSubmit} className="form">
      <p>
        {organization.name} has <strong>{organization.credits}</strong>. What you grant is added to it; its Admins see the grant in
        their credit ledger, with your name.
      </p>
      <TextField label="Credits to add" name="amount" inputMode="decimal" required autoFocus hint="In dollars, e.g. 25.00." errors={fields.amount} />
      <TextField label="Note for the ledger" name="note" maxLength={500} hint="Optional: why, e.g. an invoice number." errors={fields.note} />
      {Object.keys(fields).length ? null : <ErrorMessage error={grant.error} />}
      <div className="buttons">
        <Button type="submit" variant="primary" disabled={grant.isPending}>
          Grant
        </Button>
        <Button onClick={onCancel}>Cancel</Button>
      </div>
      {ledger.data && ledger.data.count > 0 && (
        <div>
          <h3 className="small-heading">Latest changes of its credits</h3>
          <ul className="list ledger">
            {ledger.data.results.map((entry) => (
              <li key={entry.sid}>
                {entry.amount} — {entry.name} ({shownTime(entry.date_created)}), then {entry.balance_after}
              </li>
            ))}
          </ul>
        </div>
      )}
    </form>
  );
}
