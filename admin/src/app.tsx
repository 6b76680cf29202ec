import type { FunctionComponent } from 'preact';
import { useEffect, useErrorBoundary, useState } from 'preact/hooks';
import { api, onSignedOut, setCsrfToken } from './api.ts';
import { words } from './i18n/words.ts';
import { BASE, currentLocation, match, navigate, projectHref, useLocation } from './router.ts';
import type { PageProps, Project, Session } from './session.ts';
import { Layout } from './ui/layout.tsx';
import { Alert } from './ui/notice.tsx';

type PageModule = { default: FunctionComponent<PageProps> };

/** Each page's script, fetched the first time the page is shown (admin/build.ts makes every file in pages/ a script of its own). */
const PAGES = {
  'sign-in': () => import('./pages/sign-in.tsx'),
  invite: () => import('./pages/invite.tsx'),
  overview: () => import('./pages/overview.tsx'),
  members: () => import('./pages/members.tsx'),
  member: () => import('./pages/member.tsx'),
  catalog: () => import('./pages/catalog.tsx'),
  'catalog-item': () => import('./pages/catalog-item.tsx'),
  claims: () => import('./pages/claims.tsx'),
  widget: () => import('./pages/widget.tsx'),
  settings: () => import('./pages/settings.tsx'),
  audit: () => import('./pages/audit.tsx'),
} satisfies Record<string, () => Promise<PageModule>>;

type PageName = keyof typeof PAGES;

/** Pages anyone may open: the rest need a session, and a project the operator belongs to. */
const PUBLIC: [string, PageName][] = [['sign-in', 'sign-in'], ['invite/:token', 'invite']];
const PROJECT: [string, PageName][] = [
  ['overview', 'overview'], ['members', 'members'], ['members/:member', 'member'], ['catalog', 'catalog'], ['catalog/:kind', 'catalog'],
  ['catalog/:kind/:item', 'catalog-item'], ['claims', 'claims'], ['widget', 'widget'], ['settings', 'settings'], ['settings/:section', 'settings'],
  ['audit', 'audit'],
];

function route(path: string): { page: PageName; params: Record<string, string>; public: boolean } | null {
  for (const [pattern, page] of PUBLIC) {
    const params = match(pattern, path);
    if (params) return { page, params, public: true };
  }
  for (const [pattern, page] of PROJECT) {
    const params = match(`projects/:project/${pattern}`, path);
    if (params) return { page, params, public: false };
  }
  return null;
}

const loaded = new Map<PageName, PageModule>();

/** The page's component once its script has loaded. */
function usePage(name: PageName | undefined): FunctionComponent<PageProps> | null | 'failed' {
  const [, setVersion] = useState(0);
  const [failed, setFailed] = useState<PageName | null>(null);
  useEffect(() => {
    if (!name || loaded.has(name)) return;
    let live = true;
    PAGES[name]().then((module) => {
      loaded.set(name, module);
      if (live) setVersion((version) => version + 1);
    }, () => live && setFailed(name));
    return () => {
      live = false;
    };
  }, [name]);
  if (!name) return null;
  if (failed === name) return 'failed';
  return loaded.get(name)?.default ?? null;
}

/** A page that throws shows what happened instead of going blank; the rest of the app keeps working. */
function Guarded({ Page, props }: { Page: FunctionComponent<PageProps>; props: PageProps }) {
  const [error, reset] = useErrorBoundary();
  useEffect(() => reset(), [props.query.toString(), Page]);
  if (error) return <Alert>{words.errors.page}</Alert>;
  return <Page {...props} />;
}

const NO_PROJECT: Project = { id: '', name: '', role: 'viewer', timezone: 'UTC', ownerTotpRequired: false };

export function App() {
  const location = useLocation();
  /** undefined while the server is asked whether a session is live. */
  const [session, setSessionState] = useState<Session | null | undefined>(undefined);
  const setSession = (next: Session | null) => {
    setCsrfToken(next?.csrfToken ?? null);
    setSessionState(next);
  };
  useEffect(() => {
    onSignedOut(() => {
      setSession(null);
      const here = currentLocation();
      if (!route(here.path)?.public) navigate(`${BASE}/sign-in?next=${encodeURIComponent(here.href)}`, { replace: true });
    });
    api<Session>('GET', '/session').then(setSession, () => setSession(null));
  }, []);

  const found = route(location.path);
  const Page = usePage(found?.page);

  // Pages that need a session send the operator to sign in, and back here afterwards.
  useEffect(() => {
    if (session === undefined) return;
    if (session === null && !found?.public) navigate(`${BASE}/sign-in?next=${encodeURIComponent(location.href)}`, { replace: true });
    else if (session && location.path === '' && session.projects[0]) navigate(projectHref(session.projects[0].id, 'overview'), { replace: true });
  }, [session, location.href]);

  if (session === undefined && !found?.public) return <p class="loading" role="status">{words.common.loading}</p>;
  if (found?.public || !session) {
    if (!found?.public) return null;
    return <main id="main" class="public">{Page === 'failed' ? <Alert>{words.errors.pageLoad}</Alert> : Page
      ? <Guarded Page={Page} props={{ params: found.params, query: location.query, session: session!, project: NO_PROJECT, setSession }} />
      : <p class="loading" role="status">{words.common.loading}</p>}</main>;
  }
  const project = found ? session.projects.find((p) => p.id === found.params.project) : undefined;
  const section = found?.page === 'member' ? 'members' : found?.page === 'catalog-item' ? 'catalog' : found?.page ?? '';
  return (
    <Layout session={session} project={project ?? null} section={section} setSession={setSession}>
      {location.path === '' ? (session.projects.length === 0 ? <Alert>{words.errors.noProjects}</Alert> : null)
        : !found || !project ? <Alert>{words.errors.notFound}</Alert>
        : Page === 'failed' ? <Alert>{words.errors.pageLoad}</Alert>
        : Page ? <Guarded Page={Page} props={{ params: found.params, query: location.query, session, project, setSession }} />
        : <p class="loading" role="status">{words.common.loading}</p>}
    </Layout>
  );
}
