// The optional variables sent with a trigger or an event: a JSON object typed by the
// person, merged into the execution's variables (steps read them as {{variables.x}}).
import { useId } from 'react';
import type { JsonObject } from '../api/workflows';

/** A labelled textarea named `variables`. */
export function VariablesField() {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>Variables (optional)</label>
      <textarea id={id} name="variables" rows={2} aria-describedby={`${id}-hint`} spellCheck={false} />
      <span id={`${id}-hint`} className="hint">
        A JSON object, e.g. {'{"reviewer": "Ada"}'}; steps read it as {'{{variables.reviewer}}'}.
      </span>
    </div>
  );
}

/** The typed variables: undefined when blank, the object, or a message saying what is wrong. */
export function parseVariables(text: string): JsonObject | undefined | string {
  if (!text.trim()) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    // What JSON.parse gives is JSON through and through.
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as JsonObject;
  } catch {
    // said below
  }
  return 'Variables must be a JSON object, such as {"reviewer": "Ada"}: fix them or leave them empty.';
}
