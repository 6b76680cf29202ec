// An item of a catalog kind as its form holds it (text per field), and back as the API takes it.
import { numberOrText, type Value, type Values } from '../ui/form-values.ts';
import type { FieldSpec, KindSpec } from './kinds.ts';

type Item = Record<string, unknown>;

/** `2026-05-01T09:30` in the operator's time zone, as a datetime-local input shows an ISO moment. */
function localTime(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

function textOf(field: FieldSpec, value: unknown): string {
  if (value === null || value === undefined) return typeof field.initial === 'string' ? field.initial : '';
  if (field.type === 'datetime') return localTime(String(value));
  return String(value);
}

/** The form's values for an item (a new one: `{}`, each field's initial value). */
export function formValues(kind: KindSpec, item: Item): Values {
  const values: Values = {};
  for (const field of kind.fields) {
    const value = item[field.name];
    if (field.type === 'bool') values[field.name] = typeof value === 'boolean' ? value : field.initial === true;
    else if (field.type === 'multi') values[field.name] = Array.isArray(value) ? value.map(String) : [];
    else if (field.type === 'rows') {
      values[field.name] = Array.isArray(value) ? value.map((row: Item) => Object.fromEntries(field.fields!.map((part) => [part.name, textOf(part, row[part.name])]))) : [];
    } else if (field.type === 'object') {
      for (const part of field.fields!) values[`${field.name}.${part.name}`] = textOf(part, (value as Item | null)?.[part.name]);
    } else values[field.name] = textOf(field, value);
  }
  return values;
}

/** Every name an API message may give for this kind's fields: errors are shown beside the longest that matches. */
export const fieldNames = (kind: KindSpec) =>
  kind.fields.flatMap((field) => (field.type === 'object' ? [field.name, ...field.fields!.map((part) => `${field.name}.${part.name}`)] : [field.name]));

/** Whether a field is shown for these values (a coupon's discount only for coupons). */
export const shown = (field: FieldSpec, values: Values) => !field.when || field.when.is.includes(String(values[field.when.field]));

/**
 * One field's value as the API takes it; undefined leaves it out. Text that is not a number is sent
 * as it is, so the API's own message says what is wrong, beside the field.
 */
function apiValue(field: FieldSpec, value: Value | undefined): unknown {
  if (field.type === 'bool') return value === true;
  if (field.type === 'multi') return Array.isArray(value) && value.length ? value : field.nullable ? null : [];
  const text = typeof value === 'string' ? value : '';
  if (text.trim() === '') return field.nullable || field.type === 'ref' ? null : undefined;
  if (field.type === 'int' || field.type === 'number') return numberOrText(text);
  if (field.type === 'datetime') {
    const date = new Date(text);
    return Number.isNaN(date.getTime()) ? text : date.toISOString();
  }
  return text;
}

/**
 * The request body for the form's values: every field of the kind (so an edit can clear one),
 * except those hidden by another's value, which are cleared where they can be (null) and else left out.
 */
export function requestBody(kind: KindSpec, values: Values): Item {
  const body: Item = {};
  for (const field of kind.fields) {
    let value: unknown;
    if (!shown(field, values)) value = field.nullable ? null : undefined;
    else if (field.type === 'object') {
      const parts = Object.fromEntries(field.fields!.map((part) => [part.name, apiValue(part, values[`${field.name}.${part.name}`])])
        .filter(([, part]) => part !== undefined && part !== null));
      value = Object.keys(parts).length ? parts : null;
    } else if (field.type === 'rows') {
      value = (values[field.name] as Record<string, string>[]).filter((row) => Object.values(row).some((part) => part.trim() !== ''))
        .map((row) => Object.fromEntries(field.fields!.map((part) => [part.name, apiValue(part, row[part.name])]).filter(([, part]) => part !== undefined)));
    } else value = apiValue(field, values[field.name]);
    if (value !== undefined) body[field.name] = value;
  }
  return body;
}
