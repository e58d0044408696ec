// An execution's status as people read it, and times as the app shows them.
import type { ExecutionSummary } from '../api/workflows';

const STATUS_TEXT: Record<ExecutionSummary['status'], string> = {
  running: 'Running',
  waiting: 'Waiting',
  completed: 'Completed',
  failed: 'Failed',
};

/** "Waiting for approved", "Completed", "Failed" … as a badge. */
export function ExecutionStatus({ execution }: { execution: Pick<ExecutionSummary, 'status' | 'waiting_for'> }) {
  const text = STATUS_TEXT[execution.status];
  return (
    <span className={`badge status-${execution.status}`}>
      {execution.status === 'waiting' && execution.waiting_for ? `${text} for "${execution.waiting_for}"` : text}
    </span>
  );
}

/** A timestamp of the API, in the person's locale (as the history shows versions). */
export function Time({ iso }: { iso: string }) {
  return <time dateTime={iso}>{new Date(iso).toLocaleString()}</time>;
}
