// Client-side routes under /admin: the server answers the app's HTML for every path there, and the
// app shows the page the path names. Lists keep their search, sort, filters and page in the query,
// so Back, a reload and the way back after signing in again all show the same rows.
import { useEffect, useState } from 'preact/hooks';

export const BASE = '/admin';

const listeners = new Set<() => void>();
const changed = () => {
  for (const listener of listeners) listener();
};
let listening = false;

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (to === location.pathname + location.search) return;
  history[options.replace ? 'replaceState' : 'pushState'](null, '', to);
  changed();
}

/** Where the app is: `path` below /admin (no slashes at either end) and the query. */
export function currentLocation() {
  const path = location.pathname.startsWith(BASE) ? location.pathname.slice(BASE.length).replace(/^\/+|\/+$/g, '') : '';
  return { path, query: new URLSearchParams(location.search), href: location.pathname + location.search };
}

/** Renders again whenever the location changes. */
export function useLocation() {
  const [, setVersion] = useState(0);
  useEffect(() => {
    if (!listening) addEventListener('popstate', changed);
    listening = true;
    const listener = () => setVersion((version) => version + 1);
    listeners.add(listener);
    return () => void listeners.delete(listener);
  }, []);
  return currentLocation();
}

/** The current address with some query values changed (null removes one). The page (offset, cursor) goes back to the first unless given. */
export function withQuery(changes: Record<string, string | number | null>): string {
  const params = new URLSearchParams(location.search);
  if (!('offset' in changes)) for (const name of ['offset', 'cursor', 'page']) params.delete(name);
  for (const [name, value] of Object.entries(changes)) {
    if (value === null || value === '') params.delete(name);
    else params.set(name, String(value));
  }
  const search = params.toString();
  return location.pathname + (search ? `?${search}` : '');
}

/** A route pattern (`projects/:project/members/:member`) matched against a path: its parameters, or null. */
export function match(pattern: string, path: string): Record<string, string> | null {
  const want = pattern.split('/');
  const have = path === '' ? [] : path.split('/');
  if (want.length !== have.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    const part = want[i]!;
    if (part.startsWith(':')) {
      try {
        params[part.slice(1)] = decodeURIComponent(have[i]!);
      } catch {
        return null;
      }
    } else if (part !== have[i]) return null;
  }
  return params;
}

/**
 * Where to go after signing in: the `next` the app was sent away from, if it is a page of this app
 * (never another site: `//evil.example` and `/admin/../x` are refused), else the start.
 */
export function safeNext(next: string | null): string {
  // A path of this app on this origin: it cannot name another site (that needs "//" or a scheme first).
  if (!next?.startsWith(`${BASE}/`) || /(^|\/)\.\.?(\/|$)|\\/.test(next.split('?')[0]!)) return BASE;
  return next.startsWith(`${BASE}/sign-in`) ? BASE : next;
}

/** A project's page: `/admin/projects/<id>/<section>`. */
export const projectHref = (projectId: string, section: string) => `${BASE}/projects/${encodeURIComponent(projectId)}/${section}`;
