import type { ComponentChildren } from 'preact';
import { useId, useState } from 'preact/hooks';
import { words } from '../i18n/words.ts';
import { navigate, withQuery } from '../router.ts';

export interface Filter {
  name: string;
  label: string;
  type?: 'search' | 'text' | 'date';
  /** A select's choices; the first is the default. */
  options?: readonly (readonly [string, string])[];
}

/**
 * A list's filters, kept in the address (`?search=…`): applying them asks the server for the
 * first page of what they match.
 */
export function Filters({ filters, query, children }: { filters: Filter[]; query: URLSearchParams; children?: ComponentChildren }) {
  const id = useId();
  const [values, setValues] = useState(() => Object.fromEntries(filters.map(({ name, options }) => [name, query.get(name) ?? options?.[0]?.[0] ?? ''])));
  const apply = (event: Event) => {
    event.preventDefault();
    navigate(withQuery(values));
  };
  const clear = () => {
    const empty = Object.fromEntries(filters.map(({ name }) => [name, '']));
    setValues(Object.fromEntries(filters.map(({ name, options }) => [name, options?.[0]?.[0] ?? ''])));
    navigate(withQuery(empty));
  };
  return (
    <search><form class="filters" onSubmit={apply} aria-label={words.table.filters}>
      {filters.map(({ name, label, type = 'text', options }) => (
        <div class="field" key={name}>
          <label for={`${id}-${name}`}>{label}</label>
          {options ? (
            <select id={`${id}-${name}`} value={values[name]} onChange={(event) => {
              const next = { ...values, [name]: (event.target as HTMLSelectElement).value };
              setValues(next);
              navigate(withQuery(next));
            }}>
              {options.map(([value, optionLabel]) => <option key={value} value={value}>{optionLabel}</option>)}
            </select>
          ) : (
            <input id={`${id}-${name}`} type={type as 'text'} value={values[name]} onInput={(event) => setValues({ ...values, [name]: (event.target as HTMLInputElement).value })} />
          )}
        </div>
      ))}
      <div class="filter-buttons">
        <button type="submit">{words.table.apply}</button>
        <button type="button" onClick={clear}>{words.table.clear}</button>
        {children}
      </div>
    </form></search>
  );
}

/** The list parameters of the address: page, sort and the named filters, as the API takes them. */
export function listParams(query: URLSearchParams, names: string[] = []): Record<string, string | null> {
  return {
    limit: '50',
    offset: query.get('offset'),
    sort: query.get('sort'),
    order: query.get('sort') ? (query.get('order') === 'asc' ? 'asc' : 'desc') : null,
    ...Object.fromEntries(names.map((name) => [name, query.get(name)])),
  };
}
