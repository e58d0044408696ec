// Small shared controls with our own styling: native elements, labelled, keyboard-usable.
import { useEffect, useId, useRef, type ButtonHTMLAttributes, type InputHTMLAttributes, type ReactNode, type TextareaHTMLAttributes } from 'react';

interface ButtonProps extends ButtonHTMLAttributes<HTMLButtonElement> {
  /** Why the person may not use this control; shown beside it, and the control disabled. */
  disabledReason?: string | null;
  variant?: 'primary' | 'plain' | 'danger';
}

/** A button; with `disabledReason` it is disabled and says why (never a button that earns a 403). */
export function Button({ disabledReason, variant = 'plain', className, children, ...rest }: ButtonProps) {
  const reasonId = useId();
  const blocked = Boolean(disabledReason);
  return (
    <span className="control">
      <button
        type="button"
        {...rest}
        className={`button button-${variant}${className ? ` ${className}` : ''}`}
        disabled={rest.disabled || blocked}
        aria-describedby={blocked ? reasonId : rest['aria-describedby']}
      >
        {children}
      </button>
      {blocked && (
        <span id={reasonId} className="reason">
          {disabledReason}
        </span>
      )}
    </span>
  );
}

interface FieldProps extends InputHTMLAttributes<HTMLInputElement> {
  label: string;
  errors?: string[];
  hint?: string;
}

/** A labelled input with its field errors and an optional hint. */
export function TextField({ label, errors, hint, id, ...rest }: FieldProps) {
  const ownId = useId();
  const inputId = id ?? ownId;
  const describedBy = [errors?.length ? `${inputId}-errors` : '', hint ? `${inputId}-hint` : ''].filter(Boolean).join(' ');
  return (
    <div className="field">
      <label htmlFor={inputId}>{label}</label>
      <input id={inputId} aria-invalid={errors?.length ? true : undefined} aria-describedby={describedBy || undefined} {...rest} />
      {hint && (
        <span id={`${inputId}-hint`} className="hint">
          {hint}
        </span>
      )}
      {errors?.length ? (
        <span id={`${inputId}-errors`} className="field-error">
          {errors.join(' ')}
        </span>
      ) : null}
    </div>
  );
}

interface CheckboxProps extends Omit<InputHTMLAttributes<HTMLInputElement>, 'type'> {
  label: string;
}

/** A labelled checkbox. */
export function Checkbox({ label, id, ...rest }: CheckboxProps) {
  const ownId = useId();
  const inputId = id ?? ownId;
  return (
    <div className="checkbox">
      <input id={inputId} type="checkbox" {...rest} />
      <label htmlFor={inputId}>{label}</label>
    </div>
  );
}

/** An error said to the person (and to screen readers, at once). */
export function ErrorMessage({ error }: { error: unknown }) {
  if (!error) return null;
  const text = error instanceof Error ? error.message : String(error);
  return (
    <p role="alert" className="error">
      {text}
    </p>
  );
}

/** A status message for a finished action. */
export function Notice({ children }: { children: ReactNode }) {
  return (
    <p role="status" className="notice">
      {children}
    </p>
  );
}

/** Shown while a screen's data loads. */
export function Loading({ what = 'Loading…' }: { what?: string }) {
  return (
    <p role="status" className="loading">
      {what}
    </p>
  );
}

interface DialogProps {
  open: boolean;
  title: string;
  onClose: () => void;
  children: ReactNode;
}

/** A modal dialog (the native <dialog>: focus kept inside, Escape closes). */
export function Dialog({ open, title, onClose, children }: DialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog ref={ref} aria-labelledby={titleId} onClose={onClose} className="dialog">
      <h2 id={titleId}>{title}</h2>
      {open && children}
    </dialog>
  );
}

/**
 * A data table's frame: on a narrow window the table scrolls sideways inside it, not the
 * page. It takes focus (a labelled region), so the keyboard scrolls it too.
 */
export function TableFrame({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="table-frame" role="region" aria-label={label} tabIndex={0}>
      {children}
    </div>
  );
}

interface PagerProps {
  page: number;
  pageCount: number;
  count: number;
  onPage: (page: number) => void;
  label: string;
}

/** Previous/next through a paged list. */
export function Pager({ page, pageCount, count, onPage, label }: PagerProps) {
  if (pageCount <= 1) return null;
  return (
    <nav className="pager" aria-label={`${label} pages`}>
      <button type="button" className="button button-plain" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        Previous page
      </button>
      <span>
        Page {page} of {pageCount} ({count})
      </span>
      <button type="button" className="button button-plain" disabled={page >= pageCount} onClick={() => onPage(page + 1)}>
        Next page
      </button>
    </nav>
  );
}

interface TextAreaProps extends TextareaHTMLAttributes<HTMLTextAreaElement> {
  label: string;
  errors?: string[];
}

/** A labelled multi-line text field with its field errors. */
export function TextArea({ label, errors, id, ...rest }: TextAreaProps) {
  const ownId = useId();
  const inputId = id ?? ownId;
  return (
    <div className="field">
      <label htmlFor={inputId}>{label}</label>
      <textarea id={inputId} aria-invalid={errors?.length ? true : undefined} aria-describedby={errors?.length ? `${inputId}-errors` : undefined} {...rest} />
      {errors?.length ? (
        <span id={`${inputId}-errors`} className="field-error">
          {errors.join(' ')}
        </span>
      ) : null}
    </div>
  );
}
