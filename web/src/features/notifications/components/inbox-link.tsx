// The inbox in the frame of every organization screen: a link with the unread count, and a
// polite announcement when a notification arrives live.
import { Link } from '@tanstack/react-router';
import { useUnreadCount } from '../api/notifications';
import { useLive } from './live-context';

export function InboxLink({ orgSid }: { orgSid: string }) {
  const unread = useUnreadCount(orgSid);
  const { latest } = useLive();
  const count = unread.data ?? 0;
  return (
    <>
      <Link to="/o/$org/notifications" params={{ org: orgSid }} className="inbox-link" aria-label={`Inbox, ${count} unread`}>
        Inbox
        <span className={`count${count ? ' count-unread' : ''}`} aria-hidden="true">
          {count}
        </span>
      </Link>
      <span className="visually-hidden" role="status" aria-live="polite">
        {latest ?? ''}
      </span>
    </>
  );
}
