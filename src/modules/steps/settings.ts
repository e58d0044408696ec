// The settings (`data`) each built-in step widget takes. Checked when a step is saved (400
// on `data.<setting>`) and again, after templating, when the step runs.

/** The most steps a workflow may have; bounds the work of one trigger. */
export const MAX_STEPS = 100;

/** The widget kinds the workflow engine performs; any other kind is a step that does nothing. */
export const STEP_KINDS = ['notify', 'set_cell', 'lock_row', 'wait_event'] as const;
export type StepKind = (typeof STEP_KINDS)[number];

type Check = (value: unknown) => string | null;

const text = (options: { required?: boolean; max?: number } = {}): Check => (value) => {
  if (value === undefined) return options.required ? 'This setting is required.' : null;
  if (typeof value !== 'string') return 'Must be text.';
  if (options.required && value.trim() === '') return 'This setting may not be blank.';
  if (options.max && value.length > options.max) return `Ensure this setting has no more than ${options.max} characters.`;
  return null;
};

/** Text, or a number or true/false put in as text (a cell's value). */
const scalar: Check = (value) => {
  if (value === undefined) return 'This setting is required.';
  return ['string', 'number', 'boolean'].includes(typeof value) ? null : 'Must be text, a number or true/false.';
};

const flag: Check = (value) => (value === undefined || typeof value === 'boolean' ? null : 'Must be true or false.');

/** Recipients: a list of personnel sids (or {sid, name} objects), or one text of sids separated by commas or spaces. */
const recipients: Check = (value) => {
  if (value === undefined) return 'This setting is required.';
  if (typeof value === 'string') return value.trim() ? null : 'Name at least one recipient.';
  if (!Array.isArray(value)) return 'Must be a list of personnel sids.';
  if (!value.length) return 'Name at least one recipient.';
  const ok = value.every((v) => typeof v === 'string' || (typeof v === 'object' && v !== null && typeof (v as { sid?: unknown }).sid === 'string'));
  return ok ? null : 'Each recipient must be a personnel sid or {sid, name}.';
};

const SETTINGS: Record<StepKind, Record<string, Check>> = {
  notify: { to: recipients, name: text({ required: true, max: 255 }), body: text({ max: 100_000 }), should_email: flag },
  set_cell: { column: text({ required: true, max: 255 }), value: scalar },
  lock_row: {},
  wait_event: { event: text({ required: true, max: 255 }) },
};

/** Whether the engine performs steps of this widget kind. */
export function isStepKind(kind: string): kind is StepKind {
  return (STEP_KINDS as readonly string[]).includes(kind);
}

/**
 * What is wrong with a step's settings for a widget kind, by setting ({} when nothing):
 * missing or mistyped settings and settings the kind does not take. Kinds the engine
 * does not perform take any settings.
 */
export function settingsProblems(kind: string, data: Record<string, unknown>): Record<string, string> {
  if (!isStepKind(kind)) return {};
  const checks = SETTINGS[kind];
  const problems: Record<string, string> = {};
  for (const [name, check] of Object.entries(checks)) {
    const problem = check(data[name]);
    if (problem) problems[name] = problem;
  }
  for (const name of Object.keys(data)) {
    if (!Object.hasOwn(checks, name)) problems[name] = `Unknown setting for a ${kind} step; it takes: ${Object.keys(checks).join(', ') || 'none'}.`;
  }
  return problems;
}

/** The personnel sids of a notify step's `to` setting (already checked). */
export function recipientSids(to: unknown): string[] {
  if (typeof to === 'string') return to.split(/[\s,]+/).filter(Boolean);
  if (Array.isArray(to)) return to.flatMap((v) => (typeof v === 'string' ? v.split(/[\s,]+/).filter(Boolean) : [(v as { sid: string }).sid]));
  return [];
}
