// Every account of the instance: disable one (after a confirmation) or enable it again,
// and mail a new proof link to one that has not proved its email.
import { useCallback, useState } from 'react';
import { Button, Dialog, ErrorMessage, Loading, Notice, Pager, TableFrame } from '../../../components/ui';
import { useSearchDraft } from '../../../lib/search-draft';
import { useSession } from '../../../lib/api/session';
import { useAdminAccounts, useResendAccountProof, useSetAccountActive, type AdminAccount } from '../api/admin';
import { shownTime } from './admin-page';

/** Why an administrator may not disable this account. */
const lockedReason = (account: AdminAccount, mine: boolean) =>
  mine ? 'Your own account.' : account.is_instance_admin ? 'Another administrator: the operator revokes that first (CLI).' : null;

export function AccountsSection() {
  const session = useSession();
  const [page, setPage] = useState(1);
  const [search, setSearch] = useState('');
  const commitSearch = useCallback((text: string) => {
    setSearch(text);
    setPage(1);
  }, []);
  const [draft, setDraft] = useSearchDraft(search, commitSearch);
  const accounts = useAdminAccounts(session.data?.sid ?? '', page, search.trim());
  const setActive = useSetAccountActive();
  const resend = useResendAccountProof();
  const [disabling, setDisabling] = useState<AdminAccount | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const act = (account: AdminAccount, active: boolean) =>
    setActive.mutate(
      { sid: account.sid, active },
      {
        onSuccess: () => {
          setDisabling(null);
          setDone(active ? `${account.email} is enabled: it signs in again.` : `${account.email} is disabled: its sessions have ended and its API keys do not work.`);
        },
      },
    );
  return (
    <section aria-labelledby="admin-accounts">
      <h2 id="admin-accounts">Accounts</h2>
      <div className="field field-inline">
        <label htmlFor="admin-account-search">Find an account</label>
        <input id="admin-account-search" type="search" value={draft} onChange={(event) => setDraft(event.target.value)} />
      </div>
      {done && <Notice>{done}</Notice>}
      <ErrorMessage error={setActive.error ?? resend.error} />
      {accounts.isPending ? (
        <Loading />
      ) : accounts.error ? (
        <ErrorMessage error={accounts.error} />
      ) : accounts.data.count === 0 ? (
        <p className="empty">{search ? `No account's name or email contains "${search}".` : 'No account yet.'}</p>
      ) : (
        <>
          <TableFrame label="Accounts">
            <table className="data">
              <caption>Accounts of this Records Service ({accounts.data.count}), newest first</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Email</th>
                  <th scope="col">Email proved</th>
                  <th scope="col">Status</th>
                  <th scope="col">Joined</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {accounts.data.results.map((account) => {
                  const reason = lockedReason(account, account.sid === session.data?.sid);
                  return (
                    <tr key={account.sid}>
                      <th scope="row">
                        {account.name}
                        {account.is_instance_admin && <span className="badge">Administrator</span>}
                      </th>
                      <td>{account.email}</td>
                      <td>{account.is_email_verified ? 'yes' : 'not yet'}</td>
                      <td>{account.is_active ? 'active' : <span className="badge badge-danger">disabled</span>}</td>
                      <td>{shownTime(account.date_joined)}</td>
                      <td className="actions">
                        {account.is_active ? (
                          <Button variant="danger" aria-label={`Disable ${account.email}`} disabledReason={reason} onClick={() => setDisabling(account)}>
                            Disable
                          </Button>
                        ) : (
                          <Button aria-label={`Enable ${account.email}`} disabled={setActive.isPending} onClick={() => act(account, true)}>
                            Enable
                          </Button>
                        )}
                        {!account.is_email_verified && (
                          <Button
                            aria-label={`Send ${account.email} a new proof link`}
                            disabled={resend.isPending}
                            onClick={() => resend.mutate(account.sid, { onSuccess: (answer) => setDone(`${account.email}: ${answer.detail}`) })}
                          >
                            Send a new proof link
                          </Button>
                        )}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </TableFrame>
          <Pager label="Accounts" page={page} pageCount={accounts.data.page_count} count={accounts.data.count} onPage={setPage} />
        </>
      )}
      <Dialog open={disabling !== null} title={disabling ? `Disable ${disabling.email}?` : 'Disable the account?'} onClose={() => setDisabling(null)}>
        {disabling && (
          <>
            <p>
              Its sessions end at once and its API keys stop working; it cannot sign in until you enable it again. Its records and
              memberships stay.
            </p>
            <div className="buttons">
              <Button variant="danger" disabled={setActive.isPending} onClick={() => act(disabling, false)}>
                Disable the account
              </Button>
              <Button onClick={() => setDisabling(null)}>Cancel</Button>
            </div>
          </>
        )}
      </Dialog>
    </section>
  );
}
