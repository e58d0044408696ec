// The inbox: the member's notifications in the organization, newest first, unread ones
// marked; each opens its own screen (which marks it read). New ones arrive live. A new
// message is written in a dialog.
import { Link } from '@tanstack/react-router';
import { useState } from 'react';
import { Button, Dialog, ErrorMessage, Loading, Notice, Pager } from '../../../components/ui';
import { shownDate } from '../../../lib/format';
import { useInbox } from '../api/notifications';
import { Compose } from './compose';
import { LiveStatus } from './live-context';

export function InboxPage({ orgSid }: { orgSid: string }) {
  const [page, setPage] = useState(1);
  const inbox = useInbox(orgSid, page);
  const [composing, setComposing] = useState(false);
  const [sent, setSent] = useState<string | null>(null);
  return (
    <main>
      <h1>Inbox</h1>
      <LiveStatus />
      <div className="toolbar">
        <Button
          variant="primary"
          onClick={() => setComposing(true)}
          disabledReason={inbox.data && !inbox.data.add_permission ? 'Only active members of the organization send notifications.' : null}
        >
          New message
        </Button>
        <Link to="/o/$org/account" params={{ org: orgSid }} className="toolbar-row">
          Email and digest settings
        </Link>
      </div>
      {sent && <Notice>{sent}</Notice>}
      {inbox.isPending ? (
        <Loading />
      ) : inbox.error ? (
        <ErrorMessage error={inbox.error} />
      ) : inbox.data.count === 0 ? (
        <p>
          Nothing here yet. Notifications sent to you, mentions of you in a cell (written as @ and your email) and changes others make
          to rows you created arrive here. Send one with <strong>New message</strong>.
        </p>
      ) : (
        <>
          <ul className="inbox" aria-label={`Notifications (${inbox.data.count})`}>
            {inbox.data.results.map((n) => (
              <li key={n.sid} className={n.is_read ? 'is-read' : 'is-unread'}>
                <Link to="/o/$org/notifications/$notification" params={{ org: orgSid, notification: n.sid }} className="inbox-item">
                  <span className="inbox-subject">
                    {n.is_read ? null : <span className="badge badge-unread">Unread</span>} {n.name}
                  </span>
                  <span className="inbox-meta">
                    {n.From ? `From ${n.From.name}` : 'From the service'}
                    {n.parent ? ` · reply to “${n.parent.name}”` : ''} · {shownDate(n.date_created)}
                  </span>
                </Link>
              </li>
            ))}
          </ul>
          <Pager label="Inbox" page={page} pageCount={inbox.data.page_count} count={inbox.data.count} onPage={setPage} />
        </>
      )}
      <Dialog open={composing} title="New message" onClose={() => setComposing(false)}>
        <Compose
          orgSid={orgSid}
          onSent={(notification) => {
            setComposing(false);
            setSent(`Sent “${notification.name}”.`);
          }}
          onCancel={() => setComposing(false)}
        />
      </Dialog>
    </main>
  );
}
