import { useEffect, useState } from 'preact/hooks';
import { api, type ApiError } from '../api.ts';

export interface Loaded<T> {
  data: T | null;
  error: ApiError | null;
  loading: boolean;
  /** Asks again (after a change), keeping the rows shown meanwhile. */
  reload: () => void;
}

/** GETs `path` (null: nothing yet) and again whenever it changes; an older answer never overwrites a newer one. */
export function useApi<T>(path: string | null): Loaded<T> {
  const [state, setState] = useState<{ data: T | null; error: ApiError | null; loading: boolean }>({ data: null, error: null, loading: path !== null });
  const [version, setVersion] = useState(0);
  useEffect(() => {
    if (path === null) return;
    let live = true;
    setState((old) => ({ ...old, loading: true }));
    api<T>('GET', path).then(
      (data) => live && setState({ data, error: null, loading: false }),
      (error: ApiError) => live && setState((old) => ({ data: old.data, error, loading: false })),
    );
    return () => {
      live = false;
    };
  }, [path, version]);
  return { ...state, reload: () => setVersion((v) => v + 1) };
}
