// The grid's row action "Run workflow": an Admin (only an Admin may trigger a workflow,
// so nobody else sees it) picks one of the active workflows that may run on the table's
// rows, optionally with variables, and lands on the execution it started or continued.
import { useNavigate } from '@tanstack/react-router';
import { useState, type FormEvent } from 'react';
import { Button, Dialog, ErrorMessage } from '../../../components/ui';
import { useOrganizationWorkflows, useTriggerWorkflow } from '../api/workflows';
import { parseVariables, VariablesField } from './variables-field';

interface RunWorkflowProps {
  orgSid: string;
  tableSid: string;
  /** The focused row, if any. */
  row?: { sid: string; name: string };
}

export function RunWorkflow({ orgSid, tableSid, row }: RunWorkflowProps) {
  const workflows = useOrganizationWorkflows(orgSid);
  const trigger = useTriggerWorkflow();
  const navigate = useNavigate();
  const [open, setOpen] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  if (!workflows.data?.add_permission) return null;
  const runnable = workflows.data.results.filter((w) => !w.is_archived && (w.table === null || w.table.sid === tableSid));
  const block = !row ? 'Choose a row first.' : runnable.length === 0 ? 'No active workflow runs on this table: create one on its Workflows page.' : null;

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!row) return;
    const form = new FormData(event.currentTarget);
    const variables = parseVariables(String(form.get('variables') ?? ''));
    if (typeof variables === 'string') {
      setProblem(variables);
      return;
    }
    setProblem(null);
    trigger.mutate(
      { workflowSid: String(form.get('workflow')), rowSid: row.sid, variables },
      { onSuccess: (execution) => void navigate({ to: '/o/$org/executions/$execution', params: { org: orgSid, execution: execution.sid } }) },
    );
  };

  return (
    <>
      <Button
        disabledReason={block}
        onClick={() => {
          trigger.reset();
          setProblem(null);
          setOpen(true);
        }}
      >
        Run workflow
      </Button>
      <Dialog open={open} title={`Run a workflow on ${row?.name ?? 'the row'}`} onClose={() => setOpen(false)}>
        <form className="form" onSubmit={submit}>
          <div className="field">
            <label htmlFor="run-workflow">Workflow</label>
            <select id="run-workflow" name="workflow" required autoFocus>
              {runnable.map((workflow) => (
                <option key={workflow.sid} value={workflow.sid}>
                  {workflow.name}
                </option>
              ))}
            </select>
          </div>
          <p className="hint">If the workflow already runs or waits on this row, this continues that execution instead of starting a new one.</p>
          <VariablesField />
          <ErrorMessage error={problem ?? trigger.error} />
          <div className="buttons">
            <Button type="submit" variant="primary" disabled={trigger.isPending}>
              Run
            </Button>
            <Button onClick={() => setOpen(false)}>Cancel</Button>
          </div>
          {trigger.isPending && <p role="status">Running the steps…</p>}
        </form>
      </Dialog>
    </>
  );
}
