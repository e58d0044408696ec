// A step's form: its name, its widget (what the step does) and the settings of that
// widget's kind, as the engine takes them (docs/workflows.md, "Built-in step widgets"):
// notify {to, name, body?, should_email?}, set_cell {column, value}, lock_row {},
// wait_event {event}; any other widget does nothing and takes no settings.
import { useId, useState, type FormEvent } from 'react';
import { Button, Checkbox, ErrorMessage, TextField } from '../../../components/ui';
import { ApiError } from '../../../lib/api/client';
import { useWidgets } from '../../../lib/api/widgets';
import { useWorkflowTable, type JsonObject, type Step, type StepInput, type Workflow } from '../api/workflows';
import { RecipientsField } from './recipients-field';

/** What each kind of step does, for people. */
export const KIND_LABELS: Record<string, string> = {
  notify: 'sends a notification',
  set_cell: 'sets a cell of the row',
  lock_row: 'locks the row',
  wait_event: 'waits for an event',
};

export const kindLabel = (kind: string) => KIND_LABELS[kind] ?? 'does nothing in a workflow';

/** The settings of each kind, in the order they are shown, with their names for people. */
const SETTING_LABELS: Record<string, string> = {
  to: 'To',
  name: 'Title',
  body: 'Message',
  should_email: 'By email',
  column: 'Column',
  value: 'Value',
  event: 'Event',
};

/**
 * A step's settings as label and text, for reading them at a glance: recipients and
 * columns by name where they are known (personnel and column sids otherwise).
 */
export function settingsSummary(step: Step, names: { personnel: Map<string, string>; columns: Map<string, string> }): Array<[string, string]> {
  const known = Object.keys(SETTING_LABELS);
  const keys = Object.keys(step.data).sort((a, b) => (known.indexOf(a) + 1 || 99) - (known.indexOf(b) + 1 || 99));
  return keys.map((key) => {
    const value = step.data[key];
    let text: string;
    if (key === 'to' && Array.isArray(value)) {
      text = value.map((v) => (typeof v === 'string' ? v : String((v as { sid?: unknown }).sid ?? ''))).map((sid) => names.personnel.get(sid) ?? sid).join(', ');
    } else if (key === 'column' && typeof value === 'string') {
      text = names.columns.get(value) ?? value;
    } else if (typeof value === 'boolean') {
      text = value ? 'yes' : 'no';
    } else {
      text = typeof value === 'string' ? value : JSON.stringify(value);
    }
    return [SETTING_LABELS[key] ?? key, text];
  });
}

interface StepFormProps {
  orgSid: string;
  workflow: Workflow;
  /** The step being changed; none: a new step. */
  step?: Step;
  submitLabel: string;
  pending: boolean;
  error: unknown;
  onSubmit: (input: StepInput) => void;
  onCancel?: () => void;
}

export function StepForm({ orgSid, workflow, step, submitLabel, pending, error, onSubmit, onCancel }: StepFormProps) {
  const widgets = useWidgets(orgSid);
  const firstWidget = widgets.data?.results.find((w) => w.kind === 'notify')?.sid ?? widgets.data?.results[0]?.sid ?? '';
  const [chosen, setChosen] = useState<string | null>(step?.widget.sid ?? null);
  const widgetSid = chosen ?? firstWidget;
  const kind = widgets.data?.results.find((w) => w.sid === widgetSid)?.kind ?? step?.kind ?? '';
  const fieldErrors = error instanceof ApiError ? error.fields : {};
  const id = useId();
  // Settings stay as they were only while the step keeps its kind.
  const initial = step && step.kind === kind ? step.data : {};

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const text = (name: string) => String(form.get(name) ?? '');
    onSubmit({
      name: text('name'),
      description: text('description'),
      widget: widgetSid,
      data: settingsFrom(kind, form),
    });
  };

  return (
    <form className="form" onSubmit={submit} aria-label={submitLabel}>
      <TextField label="Step name" name="name" required defaultValue={step?.name} errors={fieldErrors.name} />
      <div className="field">
        <label htmlFor={`${id}-description`}>Description</label>
        <textarea id={`${id}-description`} name="description" rows={2} defaultValue={step?.description} />
      </div>
      <div className="field">
        <label htmlFor={`${id}-widget`}>Widget</label>
        <select
          id={`${id}-widget`}
          name="widget"
          value={widgetSid}
          onChange={(event) => setChosen(event.target.value)}
          aria-describedby={`${id}-widget-hint`}
          aria-invalid={fieldErrors.widget ? true : undefined}
        >
          {widgets.data?.results.map((widget) => (
            <option key={widget.sid} value={widget.sid}>
              {widget.name} ({kindLabel(widget.kind)})
            </option>
          ))}
        </select>
        <span id={`${id}-widget-hint`} className="hint">
          The step&apos;s widget decides what it does; its settings follow.
        </span>
        {fieldErrors.widget && <span className="field-error">{fieldErrors.widget.join(' ')}</span>}
      </div>
      <fieldset key={kind}>
        <legend>Settings</legend>
        <Settings kind={kind} orgSid={orgSid} workflow={workflow} initial={initial} errors={fieldErrors} />
        <p className="hint">Text may hold references such as {'{{row.name}}'}, {'{{row.cells.Note}}'} or {'{{variables.reviewer}}'}.</p>
      </fieldset>
      {Object.keys(fieldErrors).length ? null : <ErrorMessage error={error} />}
      <div className="buttons">
        <Button type="submit" variant="primary" disabled={pending || !widgetSid}>
          {submitLabel}
        </Button>
        {onCancel && <Button onClick={onCancel}>Cancel</Button>}
      </div>
      {pending && <p role="status">Saving…</p>}
    </form>
  );
}

/** The settings of a step of `kind`, read from the form's `setting.*` fields. */
function settingsFrom(kind: string, form: FormData): JsonObject {
  const text = (name: string) => String(form.get(`setting.${name}`) ?? '');
  switch (kind) {
    case 'notify': {
      const checked = form.getAll('setting.to').map(String);
      const other = text('to-other').trim();
      const to = checked.length ? (other ? [...checked, other] : checked) : other;
      return {
        to,
        name: text('name'),
        ...(text('body') ? { body: text('body') } : {}),
        should_email: form.get('setting.should_email') === 'on',
      };
    }
    case 'set_cell':
      return { column: text('column'), value: text('value') };
    case 'wait_event':
      return { event: text('event') };
    default:
      return {};
  }
}

interface SettingsProps {
  kind: string;
  orgSid: string;
  workflow: Workflow;
  initial: Record<string, unknown>;
  errors: Record<string, string[]>;
}

function Settings({ kind, orgSid, workflow, initial, errors }: SettingsProps) {
  const err = (name: string) => errors[`data.${name}`];
  const str = (name: string) => (typeof initial[name] === 'string' || typeof initial[name] === 'number' ? String(initial[name]) : '');
  switch (kind) {
    case 'notify':
      return <NotifySettings orgSid={orgSid} initial={initial} errors={errors} />;
    case 'set_cell':
      return (
        <>
          <ColumnSetting tableSid={workflow.table?.sid} initial={str('column')} errors={err('column')} />
          <TextField label="Value" name="setting.value" defaultValue={str('value')} errors={err('value')} hint="The text the cell is set to." />
        </>
      );
    case 'wait_event':
      return (
        <TextField
          label="Event name"
          name="setting.event"
          required
          defaultValue={str('event')}
          errors={err('event')}
          hint="The execution waits until it is sent this event."
        />
      );
    case 'lock_row':
      return <p className="hint">Locks the row. This step takes no settings.</p>;
    default:
      return <p className="hint">This widget does nothing in a workflow: the step only logs &quot;No action&quot;. It takes no settings.</p>;
  }
}

/** The column a set_cell step writes: a column of the workflow's table, or a name or sid typed in. */
function ColumnSetting({ tableSid, initial, errors }: { tableSid?: string; initial: string; errors?: string[] }) {
  const table = useWorkflowTable(tableSid);
  const id = useId();
  if (!tableSid) {
    return <TextField label="Column" name="setting.column" required defaultValue={initial} errors={errors} hint="A column name of the row's table, or its sid." />;
  }
  const columns = table.data?.columns ?? [];
  const match = columns.find((c) => c.sid === initial || c.name === initial);
  return (
    <div className="field">
      <label htmlFor={id}>Column</label>
      <select id={id} name="setting.column" defaultValue={match?.sid ?? initial} key={columns.length} aria-invalid={errors ? true : undefined}>
        {initial && !match && <option value={initial}>{initial}</option>}
        {columns.map((column) => (
          <option key={column.sid} value={column.sid}>
            {column.name}
          </option>
        ))}
      </select>
      {errors && <span className="field-error">{errors.join(' ')}</span>}
    </div>
  );
}

function NotifySettings({ orgSid, initial, errors }: { orgSid: string; initial: Record<string, unknown>; errors: Record<string, string[]> }) {
  const str = (name: string) => (typeof initial[name] === 'string' ? (initial[name] as string) : '');
  const id = useId();
  return (
    <>
      <RecipientsField orgSid={orgSid} initial={initial.to} errors={errors['data.to']} />
      <TextField label="Notification title" name="setting.name" required defaultValue={str('name')} errors={errors['data.name']} />
      <div className="field">
        <label htmlFor={`${id}-body`}>Message</label>
        <textarea id={`${id}-body`} name="setting.body" rows={3} defaultValue={str('body')} />
        {errors['data.body'] && <span className="field-error">{errors['data.body'].join(' ')}</span>}
      </div>
      <Checkbox name="setting.should_email" label="Also send it by email" defaultChecked={initial.should_email === true} />
    </>
  );
}
