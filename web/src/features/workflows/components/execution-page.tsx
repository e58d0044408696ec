// One execution of a workflow on a row: its state (status, the event it waits for, the
// current step, why it failed), its variables and data, and the whole log. An Admin sends
// it an event typed here, which resumes it when it is the one it waits for (the workflow
// PATCH with trigger__sid and event, docs/workflows.md).
import { Link, useNavigate } from '@tanstack/react-router';
import { useState, type FormEvent } from 'react';
import { Button, ErrorMessage, Loading, Notice, TextField } from '../../../components/ui';
import { useExecution, useTriggerWorkflow, type Execution } from '../api/workflows';
import { ExecutionStatus, Time } from './execution-status';
import { parseVariables, VariablesField } from './variables-field';

export function ExecutionPage({ orgSid, executionSid }: { orgSid: string; executionSid: string }) {
  const execution = useExecution(executionSid);
  if (execution.isPending) return <Loading />;
  if (execution.error) return <ErrorMessage error={execution.error} />;
  return <ExecutionScreen key={execution.data.sid} orgSid={orgSid} execution={execution.data} />;
}

const LOG_STATUS: Record<string, string> = { ok: 'OK', info: 'Info', warning: 'Warning', error: 'Error', received: 'Received' };

function ExecutionScreen({ orgSid, execution }: { orgSid: string; execution: Execution }) {
  return (
    <main className="wide">
      <p className="links">
        <Link to="/o/$org/workflows/$workflow" params={{ org: orgSid, workflow: execution.workflow.sid }}>
          Workflow {execution.workflow.name}
        </Link>
        <Link to="/o/$org/rows/$row" params={{ org: orgSid, row: execution.row.sid }}>
          History of {execution.row.name}
        </Link>
      </p>
      <h1>{execution.name}</h1>
      <dl className="facts" aria-label="State of the execution">
        <div>
          <dt>Status</dt>
          <dd>
            <ExecutionStatus execution={execution} />
          </dd>
        </div>
        <div>
          <dt>Current step</dt>
          <dd>{execution.current_step?.name ?? 'None yet'}</dd>
        </div>
        <div>
          <dt>Started by</dt>
          <dd>{execution.started_by}</dd>
        </div>
        <div>
          <dt>Started</dt>
          <dd>
            <Time iso={execution.date_created} />
          </dd>
        </div>
        <div>
          <dt>Last change</dt>
          <dd>
            <Time iso={execution.date_updated} />
          </dd>
        </div>
        {execution.error && (
          <div>
            <dt>Why it failed</dt>
            <dd className="error">{execution.error}</dd>
          </div>
        )}
      </dl>

      <SendEvent orgSid={orgSid} execution={execution} />

      <section aria-labelledby="log-heading">
        <h2 id="log-heading">Log</h2>
        <div className="scroll-x" role="region" aria-label="Log" tabIndex={0}>
          <table className="data log">
            <caption>Log of the execution, oldest first ({execution.log.length} entries)</caption>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Event</th>
                <th scope="col">Status</th>
                <th scope="col">Step</th>
                <th scope="col">Message</th>
                <th scope="col">By</th>
              </tr>
            </thead>
            <tbody>
              {execution.log.map((entry, index) => (
                <tr key={index} className={`log-${entry.status}`}>
                  <td>
                    <Time iso={entry.date_created} />
                  </td>
                  <th scope="row">{entry.event}</th>
                  <td>{LOG_STATUS[entry.status] ?? entry.status}</td>
                  <td>{entry.step?.name ?? ''}</td>
                  <td>{entry.message}</td>
                  <td>{entry.user?.name ?? ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>

      <div className="columns-2">
        <section aria-labelledby="variables-heading">
          <h2 id="variables-heading">Variables</h2>
          <JsonView value={execution.variables} empty="No variables." label="Variables" />
        </section>
        <section aria-labelledby="data-heading">
          <h2 id="data-heading">Data</h2>
          <JsonView value={execution.data} empty="No data." label="Data" />
        </section>
      </div>
    </main>
  );
}

/** The event form: an Admin sends an event (and variables) to an execution in progress. */
function SendEvent({ orgSid, execution }: { orgSid: string; execution: Execution }) {
  const trigger = useTriggerWorkflow();
  const navigate = useNavigate();
  const [problem, setProblem] = useState<string | null>(null);
  const [sent, setSent] = useState<string | null>(null);
  const inProgress = execution.status === 'running' || execution.status === 'waiting';

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const name = String(form.get('event')).trim();
    const variables = parseVariables(String(form.get('variables') ?? ''));
    if (typeof variables === 'string') {
      setProblem(variables);
      return;
    }
    setProblem(null);
    setSent(null);
    trigger.mutate(
      { workflowSid: execution.workflow.sid, rowSid: execution.row.sid, event: name, variables },
      {
        onSuccess: (next) => {
          setSent(name);
          // The execution ended meanwhile: the trigger started a new one, shown instead.
          if (next.sid !== execution.sid) void navigate({ to: '/o/$org/executions/$execution', params: { org: orgSid, execution: next.sid } });
        },
      },
    );
  };

  return (
    <section aria-labelledby="event-heading" className="panel panel-narrow">
      <h2 id="event-heading">Send an event</h2>
      {!execution.change_permission ? (
        <p className="reason" role="note">
          Only the organization&apos;s Admins send events to an execution.
        </p>
      ) : !inProgress ? (
        <p>This execution has ended. Running the workflow on the row again (from the grid) starts a new one.</p>
      ) : (
        <form className="form" onSubmit={submit} aria-label="Send an event">
          {execution.status === 'waiting' && execution.waiting_for && (
            <p>
              It waits for the event <strong>{execution.waiting_for}</strong>: sending it resumes the execution. Any other event is only logged.
            </p>
          )}
          <TextField label="Event" name="event" required defaultValue={execution.waiting_for ?? ''} maxLength={255} />
          <VariablesField />
          <ErrorMessage error={problem ?? trigger.error} />
          <Button type="submit" variant="primary" disabled={trigger.isPending}>
            Send event
          </Button>
          {trigger.isPending && <p role="status">Sending…</p>}
        </form>
      )}
      {sent && !trigger.isPending && <Notice>The event &quot;{sent}&quot; was sent; the execution is now {execution.status}.</Notice>}
    </section>
  );
}

function JsonView({ value, empty, label }: { value: Record<string, unknown>; empty: string; label: string }) {
  if (!Object.keys(value).length) return <p className="muted">{empty}</p>;
  return (
    <pre className="json" role="region" aria-label={label} tabIndex={0}>
      {JSON.stringify(value, null, 2)}
    </pre>
  );
}
