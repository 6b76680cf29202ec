import type { ComponentChildren } from 'preact';
import { useEffect, useId, useRef, useState } from 'preact/hooks';
import { ApiError } from '../api.ts';
import { FieldError, fieldErrors, type Value, type Values } from './form-values.ts';
import { words } from '../i18n/words.ts';
import { Alert, Status } from './notice.tsx';

export interface FormState<V extends Values> {
  values: V;
  set: (name: keyof V & string, value: Value) => void;
  reset: (values: V) => void;
  errors: Record<string, string>;
  formError: string | null;
  done: string | null;
  busy: boolean;
  /** Runs `action` once at a time; its resolved text is shown as done, an API error beside its fields. */
  submit: (action: (values: V) => Promise<string | undefined>) => (event?: Event) => Promise<void>;
}

export function useForm<V extends Values>(initial: V, fields?: string[]): FormState<V> {
  const [values, setValues] = useState(initial);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  /** Set at once (state would show only on the next render): a second Enter while the first runs does nothing. */
  const running = useRef(false);
  return {
    values, errors, formError, done, busy,
    set: (name, value) => {
      setValues((old) => ({ ...old, [name]: value }));
      setErrors(({ [name]: _, ...others }) => others);
      setDone(null);
    },
    reset: (next) => {
      setValues(next);
      setErrors({});
      setFormError(null);
    },
    submit: (action) => async (event) => {
      event?.preventDefault();
      if (running.current) return;
      running.current = true;
      setBusy(true);
      setErrors({});
      setFormError(null);
      setDone(null);
      try {
        setDone((await action(values)) ?? null);
      } catch (error) {
        if (error instanceof FieldError) return setErrors({ [error.field]: error.message });
        if (!(error instanceof ApiError)) throw error;
        if (error.status === 400 || error.status === 409 || error.status === 422) {
          const { byField, rest } = fieldErrors(error.message, fields ?? Object.keys(values));
          setErrors(byField);
          setFormError(rest.length ? rest.join(' ') : null);
        } else {
          setFormError(error.message);
        }
      } finally {
        running.current = false;
        setBusy(false);
      }
    },
  };
}

/** A form: no browser validation bubbles (the API's words are shown instead), focus on the first field in error, the form's own error and done note. */
export function Form<V extends Values>({ form, onSubmit, children, label }: {
  form: FormState<V>; onSubmit: (event?: Event) => void; children: ComponentChildren; label?: string;
}) {
  const ref = useRef<HTMLFormElement>(null);
  useEffect(() => {
    ref.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
  }, [form.errors]);
  return (
    <form ref={ref} method="post" noValidate onSubmit={onSubmit} aria-label={label} aria-busy={form.busy}>
      {children}
      {form.formError && <Alert>{form.formError}</Alert>}
      {form.done && <Status>{form.done}</Status>}
    </form>
  );
}

interface FieldProps<V extends Values> {
  form: FormState<V>;
  name: keyof V & string;
  label: string;
  hint?: string;
  type?: 'text' | 'email' | 'password' | 'number' | 'url' | 'datetime-local' | 'date' | 'color' | 'search';
  /** A select's choices: value and label. */
  options?: readonly (readonly [string, string])[];
  multiline?: boolean;
  required?: boolean;
  autoComplete?: string;
  inputMode?: 'numeric' | 'decimal' | 'text';
  disabled?: boolean;
}

/** One labelled field; its error (from the API) under it, tied to it for screen readers. */
export function Field<V extends Values>({ form, name, label, hint, type = 'text', options, multiline, required, autoComplete, inputMode, disabled }: FieldProps<V>) {
  const id = useId();
  const value = form.values[name];
  const error = form.errors[name];
  const describedBy = [hint && `${id}-hint`, error && `${id}-error`].filter(Boolean).join(' ') || undefined;
  const common = { id, name, disabled, 'aria-invalid': error ? true : undefined, 'aria-describedby': describedBy, required };
  const text = (event: Event) => form.set(name, (event.target as HTMLInputElement).value);
  if (typeof value === 'boolean') {
    return (
      <div class="field check">
        <input type="checkbox" {...common} checked={value} onChange={(event) => form.set(name, (event.target as HTMLInputElement).checked)} />
        <label for={id}>{label}</label>
        {hint && <p class="hint" id={`${id}-hint`}>{hint}</p>}
        {error && <p class="error" id={`${id}-error`}>{error}</p>}
      </div>
    );
  }
  if (Array.isArray(value)) {
    const chosen = value as string[];
    return (
      <fieldset class="field choices" aria-describedby={describedBy}>
        <legend>{label}</legend>
        {options?.map(([option, optionLabel]) => (
          <label key={option} class="choice">
            <input type="checkbox" checked={chosen.includes(option)} disabled={disabled}
              onChange={(event) => form.set(name, (event.target as HTMLInputElement).checked ? [...chosen, option] : chosen.filter((v) => v !== option))} />
            {optionLabel}
          </label>
        ))}
        {hint && <p class="hint" id={`${id}-hint`}>{hint}</p>}
        {error && <p class="error" id={`${id}-error`}>{error}</p>}
      </fieldset>
    );
  }
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {options ? (
        <select {...common} value={value} onChange={text}>
          {options.map(([option, optionLabel]) => <option key={option} value={option}>{optionLabel}</option>)}
        </select>
      ) : multiline ? (
        <textarea {...common} value={value} onInput={text} rows={3} />
      ) : (
        <input {...common} type={type as 'text'} value={value} onInput={text} autoComplete={autoComplete} inputMode={inputMode}
          step={type === 'number' ? 'any' : undefined} />
      )}
      {hint && <p class="hint" id={`${id}-hint`}>{hint}</p>}
      {error && <p class="error" id={`${id}-error`}>{error}</p>}
    </div>
  );
}

/**
 * The form's button: says it is working while the change is sent; a second press meanwhile does
 * nothing (useForm). Not `disabled`, which would throw the keyboard's focus out of the form.
 */
export function Submit<V extends Values>({ form, children, danger }: { form: FormState<V>; children: string; danger?: boolean }) {
  return <button type="submit" class={danger ? 'danger' : 'primary'} aria-disabled={form.busy}>{form.busy ? words.common.working : children}</button>;
}
