// One notification, opened (which marks the recipient's copy read): the thread above it
// (its parents), the message, the rows it is about, and what its recipient may do: reply,
// mark unread, delete. Its sender reads it and may reply; the rest says why not.
import { Link, useNavigate } from '@tanstack/react-router';
import { useState } from 'react';
import { Button, ErrorMessage, Loading, Notice } from '../../../components/ui';
import { useDeleteNotification, useMarkNotification, useOpenNotification, type NotificationDetail } from '../api/notifications';
import { Compose } from './compose';
import { shownDate } from '../../../lib/format';

const RECIPIENT_ONLY = 'Only its recipient marks or deletes a notification; you sent this one.';

function Message({ orgSid, notification, current }: { orgSid: string; notification: NotificationDetail; current: boolean }) {
  return (
    <article className={`message${current ? ' message-current' : ''}`} aria-label={`${current ? 'Message' : 'Earlier message'}: ${notification.name}`}>
      <header>
        {current ? <h2 className="visually-hidden">The message</h2> : <h3>{notification.name}</h3>}
        <p className="muted">
          {notification.From ? `From ${notification.From.name}` : 'From the service'} · {shownDate(notification.date_created)}
        </p>
      </header>
      {notification.body ? <p className="message-body">{notification.body}</p> : <p className="muted">(no message)</p>}
      {notification.rows.length ? (
        <p>
          About:{' '}
          {notification.rows.map((row, i) => (
            <span key={row.sid}>
              {i ? ', ' : ''}
              <Link to="/o/$org/rows/$row" params={{ org: orgSid, row: row.sid }}>
                {row.name}
              </Link>
            </span>
          ))}
        </p>
      ) : null}
    </article>
  );
}

export function NotificationPage({ orgSid, sid }: { orgSid: string; sid: string }) {
  const opened = useOpenNotification(orgSid, sid);
  const mark = useMarkNotification(orgSid);
  const remove = useDeleteNotification(orgSid);
  const navigate = useNavigate();
  const [replying, setReplying] = useState(false);
  const [replied, setReplied] = useState<string | null>(null);
  const back = (
    <Link to="/o/$org/notifications" params={{ org: orgSid }}>
      Back to the inbox
    </Link>
  );
  if (opened.isPending) return <main>{back}<Loading /></main>;
  if (opened.error) return <main>{back}<ErrorMessage error={opened.error} /></main>;
  const { notification, thread, more } = opened.data;
  const mine = notification.change_permission;
  return (
    <main>
      {back}
      <h1>{notification.name}</h1>
      {thread.length ? (
        <section aria-label="Thread">
          {more && <p className="muted">Earlier messages of this thread are not shown.</p>}
          <ol className="thread">
            {thread.map((earlier) => (
              <li key={earlier.sid}>
                <Message orgSid={orgSid} notification={earlier} current={false} />
              </li>
            ))}
          </ol>
        </section>
      ) : null}
      <Message orgSid={orgSid} notification={notification} current />
      <p className="muted">{mine ? (notification.is_read ? 'Read.' : 'Unread.') : 'You sent this notification.'}</p>
      <div className="toolbar">
        <Button variant="primary" onClick={() => setReplying(true)} disabled={replying} disabledReason={notification.From ? null : 'The service sent this one: there is nobody to reply to.'}>
          Reply
        </Button>
        <Button
          onClick={() => mark.mutate({ sid, is_read: !notification.is_read })}
          disabled={mark.isPending}
          disabledReason={mine ? null : RECIPIENT_ONLY}
        >
          {notification.is_read ? 'Mark as unread' : 'Mark as read'}
        </Button>
        <Button
          variant="danger"
          disabled={remove.isPending}
          disabledReason={mine ? null : RECIPIENT_ONLY}
          onClick={() => remove.mutate(sid, { onSuccess: () => void navigate({ to: '/o/$org/notifications', params: { org: orgSid } }) })}
        >
          Delete
        </Button>
      </div>
      <ErrorMessage error={mark.error ?? remove.error} />
      {replied && <Notice>{replied}</Notice>}
      {replying && (
        <section aria-labelledby="reply-heading">
          <h2 id="reply-heading">Reply</h2>
          <Compose
            orgSid={orgSid}
            replyTo={notification}
            onSent={(reply) => {
              setReplying(false);
              setReplied(`Reply “${reply.name}” sent.`);
            }}
            onCancel={() => setReplying(false)}
          />
        </section>
      )}
    </main>
  );
}
