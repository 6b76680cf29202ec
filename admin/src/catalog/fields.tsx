import { useId } from 'preact/hooks';
import { fill, words } from '../i18n/words.ts';
import { Field, type FormState } from '../ui/form.tsx';
import type { Values } from '../ui/form-values.ts';
import type { FieldSpec } from './kinds.ts';

const labels = words.catalog.fields as Record<string, string>;
const hints = words.catalog.hints as Record<string, string>;
const optionWords = words.catalog.options as Record<string, string>;

export const fieldLabel = (name: string) => labels[name] ?? name;
export const optionLabel = (value: string) => (value === '' ? words.common.none : optionWords[value] ?? value);

const INPUT_TYPES = { text: 'text', textarea: 'text', url: 'url', int: 'text', number: 'text', datetime: 'datetime-local' } as const;

/** One field of a catalog form, drawn from its description; `refs` are the choices of a `ref` field (id and name). */
export function SpecField({ spec, form, refs, readOnly, prefix = '' }: {
  spec: FieldSpec; form: FormState<Values>; refs?: [string, string][]; readOnly: boolean; prefix?: string;
}) {
  const name = `${prefix}${spec.name}`;
  const label = fieldLabel(name);
  const common = { form, name, label, hint: hints[name], required: spec.required, disabled: readOnly };
  if (spec.type === 'object') return <ObjectField spec={spec} form={form} readOnly={readOnly} />;
  if (spec.type === 'rows') return <RowsField spec={spec} form={form} readOnly={readOnly} />;
  if (spec.type === 'select') return <Field {...common} options={spec.options!.map((value) => [value, optionLabel(value)] as const)} />;
  if (spec.type === 'ref') return <Field {...common} options={[['', words.common.none], ...(refs ?? [])]} />;
  if (spec.type === 'multi') return <Field {...common} options={spec.options!.map((value) => [value, optionLabel(value)] as const)} />;
  if (spec.type === 'bool') return <Field {...common} />;
  return <Field {...common} type={INPUT_TYPES[spec.type]} multiline={spec.type === 'textarea'}
    inputMode={spec.type === 'int' ? 'numeric' : spec.type === 'number' ? 'decimal' : undefined} />;
}

/** An object field (a coupon's discount): its parts in a group; the API's message about the whole shows under it. */
function ObjectField({ spec, form, readOnly }: { spec: FieldSpec; form: FormState<Values>; readOnly: boolean }) {
  const id = useId();
  const error = form.errors[spec.name];
  return (
    <fieldset class="group" aria-describedby={error ? id : undefined}>
      <legend>{fieldLabel(spec.name)}</legend>
      {hints[spec.name] && <p class="hint">{hints[spec.name]}</p>}
      <div class="row">
        {spec.fields!.map((part) => <SpecField key={part.name} spec={part} form={form} readOnly={readOnly} prefix={`${spec.name}.`} />)}
      </div>
      {error && <p class="error" id={id}>{error}</p>}
    </fieldset>
  );
}

/** A list of small objects (a game's prizes, a check-in's streak bonuses): one group per row, added and removed with buttons. */
function RowsField({ spec, form, readOnly }: { spec: FieldSpec; form: FormState<Values>; readOnly: boolean }) {
  const id = useId();
  const rows = form.values[spec.name] as Record<string, string>[];
  const error = form.errors[spec.name];
  const row = words.catalog.rows[spec.name as keyof typeof words.catalog.rows];
  const change = (index: number, part: string, value: string) =>
    form.set(spec.name, rows.map((r, i) => (i === index ? { ...r, [part]: value } : r)));
  return (
    <fieldset class="group" aria-describedby={error ? id : undefined}>
      <legend>{fieldLabel(spec.name)}</legend>
      {rows.length === 0 && <p class="muted">{words.catalog.noRows}</p>}
      {rows.map((values, index) => (
        <fieldset class="row rows-row" key={index}>
          <legend>{fill(row, { n: index + 1 })}</legend>
          {spec.fields!.map((part) => {
            const inputId = `${id}-${index}-${part.name}`;
            return (
              <div class="field" key={part.name}>
                <label for={inputId}>{fieldLabel(`${spec.name}.${part.name}`)}</label>
                <input id={inputId} value={values[part.name] ?? ''} disabled={readOnly} inputMode={part.type === 'int' ? 'numeric' : undefined}
                  onInput={(event) => change(index, part.name, (event.target as HTMLInputElement).value)} />
              </div>
            );
          })}
          {!readOnly && (
            <button type="button" class="link" aria-label={`${words.catalog.removeRow}: ${fill(row, { n: index + 1 })}`}
              onClick={() => form.set(spec.name, rows.filter((_, i) => i !== index))}>{words.catalog.removeRow}</button>
          )}
        </fieldset>
      ))}
      {!readOnly && (
        <button type="button" onClick={() => form.set(spec.name, [...rows, Object.fromEntries(spec.fields!.map((part) => [part.name, '']))])}>
          {words.catalog.addRow}
        </button>
      )}
      {error && <p class="error" id={id}>{error}</p>}
    </fieldset>
  );
}
