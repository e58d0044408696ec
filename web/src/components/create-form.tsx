// A small inline form that creates something from a few text fields, or says why the
// person may not (from the list's add_permission).
import type { FormEvent, ReactNode } from 'react';
import { ApiError } from '../lib/api/client';
import { Button, ErrorMessage, TextField } from './ui';

interface CreateFormProps {
  /** What is created, e.g. "project": names the form and its button. */
  what: string;
  fields: Array<{ name: string; label: string; required?: boolean; hint?: string; inputMode?: 'decimal' }>;
  allowed: boolean;
  /** Why the person may not create one (shown when not allowed). */
  reason: string;
  pending: boolean;
  error: unknown;
  onCreate: (values: Record<string, string>, form: HTMLFormElement) => void;
  children?: ReactNode;
}

export function CreateForm({ what, fields, allowed, reason, pending, error, onCreate, children }: CreateFormProps) {
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const values = Object.fromEntries([...new FormData(form).entries()].map(([k, v]) => [k, String(v)]));
    onCreate(values, form);
  };
  const fieldErrors = error instanceof ApiError ? error.fields : {};
  if (!allowed) {
    return (
      <p className="reason" role="note">
        {reason}
      </p>
    );
  }
  return (
    <form onSubmit={onSubmit} className="form form-inline" aria-label={`Add ${what}`}>
      {fields.map((field) => (
        <TextField
          key={field.name}
          name={field.name}
          label={field.label}
          required={field.required}
          hint={field.hint}
          inputMode={field.inputMode}
          errors={fieldErrors[field.name]}
        />
      ))}
      {children}
      {Object.keys(fieldErrors).length ? null : <ErrorMessage error={error} />}
      <Button type="submit" variant="primary" disabled={pending}>
        Add {what}
      </Button>
    </form>
  );
}
