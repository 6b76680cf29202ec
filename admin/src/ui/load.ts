import { useEffect, useState } from 'preact/hooks';
import { api, ApiError } from '../api.ts';

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

export interface Action {
  /** The API's message when the last change failed. */
  failed: string | null;
  busy: boolean;
  /** Runs a change (a button's: revoke, fulfil, replay), once at a time; its failure is kept in `failed`. */
  run: (change: () => Promise<unknown>) => Promise<void>;
}

/** A button's change outside a form, and what went wrong with it. */
export function useAction(): Action {
  const [failed, setFailed] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  return {
    failed, busy,
    run: async (change) => {
      setFailed(null);
      setBusy(true);
      try {
        await change();
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        setFailed(error.message);
      } finally {
        setBusy(false);
      }
    },
  };
}
