// One workflow: its name and description (changed by Admins), archiving, deleting it
// after a confirmation; its steps in order (reordered by drag or keyboard, each edited by
// its widget's settings); and its executions, each opening the execution view. Members
// read everything here; the controls they may not use are disabled and say why.
import { Link, useNavigate } from '@tanstack/react-router';
import { useState, type FormEvent } from 'react';
import { Button, Dialog, ErrorMessage, Loading, Pager, TextField } from '../../../components/ui';
import { usePersonnelNames } from '../../../lib/api/personnel';
import {
  useCreateStep,
  useDeleteStep,
  useDeleteWorkflow,
  useExecutions,
  useMoveStep,
  useSteps,
  useUpdateStep,
  useUpdateWorkflow,
  useWorkflow,
  useWorkflowTable,
  type Step,
  type Workflow,
} from '../api/workflows';
import { settingsSummary, StepForm } from './step-form';
import { StepList } from './step-list';
import { ExecutionStatus, Time } from './execution-status';

export const ADMIN_ONLY = "Only the organization's Admins change workflows and their steps.";

export function WorkflowPage({ orgSid, workflowSid }: { orgSid: string; workflowSid: string }) {
  const workflow = useWorkflow(workflowSid);
  if (workflow.isPending) return <Loading />;
  if (workflow.error) return <ErrorMessage error={workflow.error} />;
  return <WorkflowScreen orgSid={orgSid} workflow={workflow.data} />;
}

type Dialogs = { kind: 'details' } | { kind: 'delete' } | { kind: 'edit-step'; step: Step } | { kind: 'delete-step'; step: Step } | null;

function WorkflowScreen({ orgSid, workflow }: { orgSid: string; workflow: Workflow }) {
  const navigate = useNavigate();
  const steps = useSteps(orgSid, workflow.sid);
  const update = useUpdateWorkflow(orgSid, workflow.sid);
  const remove = useDeleteWorkflow(orgSid, workflow.sid);
  const createStep = useCreateStep(orgSid, workflow.sid);
  const updateStep = useUpdateStep(workflow.sid);
  const moveStep = useMoveStep(orgSid, workflow.sid);
  const deleteStep = useDeleteStep(workflow.sid);
  const personnel = usePersonnelNames(orgSid);
  const table = useWorkflowTable(workflow.table?.sid);
  const [dialog, setDialog] = useState<Dialogs>(null);
  const [addKey, setAddKey] = useState(0);
  const changeBlock = workflow.change_permission ? null : ADMIN_ONLY;
  const close = () => setDialog(null);
  const back = workflow.table
    ? { to: '/o/$org/tables/$table/workflows' as const, params: { org: orgSid, table: workflow.table.sid }, label: `Workflows of ${workflow.table.name}` }
    : null;

  const saveDetails = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    update.mutate({ name: String(form.get('name')), description: String(form.get('description')) }, { onSuccess: close });
  };
  const names = {
    personnel: new Map(personnel.data?.results.map((p) => [p.sid, p.name]) ?? []),
    columns: new Map(table.data?.columns.map((c) => [c.sid, c.name]) ?? []),
  };
  const stepList = steps.data?.results ?? [];

  return (
    <main>
      {back && (
        <p>
          <Link to={back.to} params={back.params}>
            {back.label}
          </Link>
        </p>
      )}
      <h1>
        {workflow.name}
        {workflow.is_archived && <span className="badge">Archived</span>}
      </h1>
      <p>{workflow.description || <span className="muted">No description.</span>}</p>
      <p className="muted">
        {workflow.table ? `Runs on rows of ${workflow.table.name}.` : 'Runs on rows of any table.'} Created by {workflow.created_by}.
        {workflow.is_archived && ' Archived: it cannot be run until it is un-archived.'}
      </p>
      <div className="toolbar" role="toolbar" aria-label="Workflow">
        <Button disabledReason={changeBlock} onClick={() => setDialog({ kind: 'details' })}>
          Edit name and description
        </Button>
        <Button disabledReason={changeBlock} disabled={update.isPending} onClick={() => update.mutate({ is_archived: !workflow.is_archived })}>
          {workflow.is_archived ? 'Un-archive workflow' : 'Archive workflow'}
        </Button>
        <Button variant="danger" disabledReason={changeBlock} onClick={() => setDialog({ kind: 'delete' })}>
          Delete workflow
        </Button>
      </div>
      {dialog === null && <ErrorMessage error={update.error} />}

      <section aria-labelledby="steps-heading">
        <h2 id="steps-heading">Steps</h2>
        {steps.isPending ? (
          <Loading what="Loading steps…" />
        ) : steps.error ? (
          <ErrorMessage error={steps.error} />
        ) : stepList.length === 0 ? (
          <p>No steps yet. {changeBlock ? '' : 'Add the first one below: each step acts on the row the workflow runs on.'}</p>
        ) : (
          <>
            {!changeBlock && (
              <p className="hint" id="steps-hint">
                Steps run from top to bottom. Drag a step by its handle to move it, or focus the handle, press Space, move it with the
                arrow keys and press Space again.
              </p>
            )}
            <StepList
              steps={stepList}
              describe={(step) => settingsSummary(step, names)}
              changeBlock={changeBlock}
              onMove={(step, order) => moveStep.mutate({ sid: step.sid, order })}
              onEdit={(step) => setDialog({ kind: 'edit-step', step })}
              onDelete={(step) => setDialog({ kind: 'delete-step', step })}
            />
            {moveStep.isPending && <p role="status">Saving the new order…</p>}
            <ErrorMessage error={moveStep.error} />
          </>
        )}
        <h3>Add a step</h3>
        {changeBlock ? (
          <p className="reason" role="note">
            {changeBlock}
          </p>
        ) : (
          <StepForm
            key={addKey}
            orgSid={orgSid}
            workflow={workflow}
            submitLabel="Add step"
            pending={createStep.isPending}
            error={createStep.error}
            onSubmit={(input) =>
              createStep.mutate(input, {
                onSuccess: () => {
                  createStep.reset();
                  setAddKey((k) => k + 1);
                },
              })
            }
          />
        )}
      </section>

      <Executions orgSid={orgSid} workflowSid={workflow.sid} />

      <Dialog open={dialog?.kind === 'details'} title="Edit the workflow" onClose={close}>
        <form className="form" onSubmit={saveDetails}>
          <TextField label="Workflow name" name="name" required defaultValue={workflow.name} autoFocus />
          <div className="field">
            <label htmlFor="workflow-description">Description</label>
            <textarea id="workflow-description" name="description" rows={3} defaultValue={workflow.description} />
          </div>
          <ErrorMessage error={update.error} />
          <div className="buttons">
            <Button type="submit" variant="primary" disabled={update.isPending}>
              Save
            </Button>
            <Button onClick={close}>Cancel</Button>
          </div>
        </form>
      </Dialog>

      <Dialog open={dialog?.kind === 'delete'} title="Delete the workflow?" onClose={close}>
        <p>
          Delete &quot;{workflow.name}&quot; with its {stepList.length} {stepList.length === 1 ? 'step' : 'steps'} and all its executions and
          their logs? This cannot be undone. To keep them but stop it from running, archive it instead.
        </p>
        <ErrorMessage error={remove.error} />
        <div className="buttons">
          <Button
            variant="danger"
            disabled={remove.isPending}
            onClick={() =>
              remove.mutate(undefined, {
                onSuccess: () =>
                  void (back ? navigate({ to: back.to, params: back.params }) : navigate({ to: '/o/$org', params: { org: orgSid } })),
              })
            }
          >
            Delete workflow
          </Button>
          <Button onClick={close} autoFocus>
            Cancel
          </Button>
        </div>
      </Dialog>

      <Dialog open={dialog?.kind === 'edit-step'} title="Edit the step" onClose={close}>
        {dialog?.kind === 'edit-step' && (
          <StepForm
            orgSid={orgSid}
            workflow={workflow}
            step={dialog.step}
            submitLabel="Save step"
            pending={updateStep.isPending}
            error={updateStep.error}
            onSubmit={(input) =>
              updateStep.mutate(
                { sid: dialog.step.sid, body: input },
                {
                  onSuccess: () => {
                    updateStep.reset();
                    close();
                  },
                },
              )
            }
            onCancel={() => {
              updateStep.reset();
              close();
            }}
          />
        )}
      </Dialog>

      <Dialog open={dialog?.kind === 'delete-step'} title="Delete the step?" onClose={close}>
        {dialog?.kind === 'delete-step' && (
          <>
            <p>
              Delete step {dialog.step.order}, &quot;{dialog.step.name}&quot;? The steps after it move up one; an execution waiting at it goes on
              with the step that followed it.
            </p>
            <ErrorMessage error={deleteStep.error} />
            <div className="buttons">
              <Button variant="danger" disabled={deleteStep.isPending} onClick={() => deleteStep.mutate(dialog.step.sid, { onSuccess: close })}>
                Delete step
              </Button>
              <Button onClick={close} autoFocus>
                Cancel
              </Button>
            </div>
          </>
        )}
      </Dialog>
    </main>
  );
}

function Executions({ orgSid, workflowSid }: { orgSid: string; workflowSid: string }) {
  const [page, setPage] = useState(1);
  const executions = useExecutions(orgSid, workflowSid, page);
  return (
    <section aria-labelledby="executions-heading">
      <h2 id="executions-heading">Executions</h2>
      {executions.isPending ? (
        <Loading what="Loading executions…" />
      ) : executions.error ? (
        <ErrorMessage error={executions.error} />
      ) : executions.data.count === 0 ? (
        <p>Not run yet (or not on a row you can read). An Admin runs a workflow on a row from the table&apos;s rows: choose the row, then Run workflow.</p>
      ) : (
        <>
          <div className="scroll-x" role="region" aria-label="Executions" tabIndex={0}>
            <table className="data">
              <caption>Executions of this workflow ({executions.data.count}), oldest first</caption>
              <thead>
                <tr>
                  <th scope="col">Row</th>
                  <th scope="col">Status</th>
                  <th scope="col">Started by</th>
                  <th scope="col">Started</th>
                  <th scope="col">Last change</th>
                </tr>
              </thead>
              <tbody>
                {executions.data.results.map((execution) => (
                  <tr key={execution.sid}>
                    <th scope="row">
                      <Link to="/o/$org/executions/$execution" params={{ org: orgSid, execution: execution.sid }}>
                        {execution.row.name}
                      </Link>
                    </th>
                    <td>
                      <ExecutionStatus execution={execution} />
                    </td>
                    <td>{execution.started_by}</td>
                    <td>
                      <Time iso={execution.date_created} />
                    </td>
                    <td>
                      <Time iso={execution.date_updated} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager label="Executions" page={page} pageCount={executions.data.page_count} count={executions.data.count} onPage={setPage} />
        </>
      )}
    </section>
  );
}
