// The mail outbox's health: what waits, what is being retried, what was given up, how old
// the oldest waiting message is, and the mail server's newest refusal. Read again every
// few seconds while shown.
import { Button, ErrorMessage, Loading } from '../../../components/ui';
import { useOutboxHealth } from '../api/admin';
import { shownTime } from './admin-page';

/** An age in seconds, for people. */
function age(seconds: number): string {
  if (seconds < 90) return `${seconds} s`;
  if (seconds < 90 * 60) return `${Math.round(seconds / 60)} min`;
  if (seconds < 36 * 3600) return `${Math.round(seconds / 3600)} h`;
  return `${Math.round(seconds / 86400)} days`;
}

export function MailSection() {
  const health = useOutboxHealth();
  return (
    <section aria-labelledby="admin-mail">
      <h2 id="admin-mail">Mail</h2>
      <p className="muted">
        Every mail (proof links, invitations, notifications) is queued in the database with the change it belongs to and sent by
        the service&apos;s mail worker, which retries while the mail server refuses or is away.
      </p>
      {health.isPending ? (
        <Loading />
      ) : health.error ? (
        <ErrorMessage error={health.error} />
      ) : (
        <>
          <dl className="facts" aria-label="The outbox">
            <div>
              <dt>Waiting to be sent</dt>
              <dd>{health.data.pending}</dd>
            </div>
            <div>
              <dt>Being retried</dt>
              <dd>{health.data.retrying}</dd>
            </div>
            <div>
              <dt>Given up (refused for good)</dt>
              <dd>{health.data.failed}</dd>
            </div>
            <div>
              <dt>Oldest waiting</dt>
              <dd>{health.data.pending ? age(health.data.oldest_pending_seconds) : 'none waits'}</dd>
            </div>
            <div>
              <dt>Sent in the last hour</dt>
              <dd>{health.data.sent_last_hour}</dd>
            </div>
          </dl>
          {health.data.last_failure ? (
            <p role="note">
              Newest failure (queued {shownTime(health.data.last_failure.date_created)}): the mail server said “{health.data.last_failure.error}”.
            </p>
          ) : (
            <p>No failure: every mail went out or is on its way.</p>
          )}
          {health.data.pending > 0 && health.data.oldest_pending_seconds > 600 && (
            <p role="alert" className="error">
              Mail has waited more than 10 minutes: check SMTP_URL and the mail server (the service&apos;s log names each failure).
            </p>
          )}
        </>
      )}
      <Button onClick={() => void health.refetch()} disabled={health.isFetching}>
        Read again
      </Button>
    </section>
  );
}
