import type { ComponentChildren } from 'preact';
import { api } from '../api.ts';
import { words } from '../i18n/words.ts';
import { BASE, navigate, projectHref } from '../router.ts';
import type { Project, Session } from '../session.ts';
import { Link } from './link.tsx';
import { Alert } from './notice.tsx';

/** The main navigation's sections, in order: their links are named exactly as the catalogue says. */
const SECTIONS = ['overview', 'members', 'catalog', 'claims', 'widget', 'settings', 'audit'] as const;

interface LayoutProps {
  session: Session;
  project: Project | null;
  /** The section shown, marked as the current page in the navigation. */
  section: string;
  setSession: (session: Session | null) => void;
  children: ComponentChildren;
}

/** Every signed-in page: a skip link, the header (project switcher, who is signed in, sign out), the navigation and the page. */
export function Layout({ session, project, section, setSession, children }: LayoutProps) {
  const signOut = async () => {
    await api('DELETE', '/session').catch(() => undefined);
    setSession(null);
    navigate(`${BASE}/sign-in`);
  };
  return (
    <>
      <a class="skip" href="#main">{words.layout.skip}</a>
      <header class="top">
        <span class="brand">{words.app.name}</span>
        {project && session.projects.length > 1 && (
          <label class="switcher">
            <span>{words.layout.project}</span>
            {/* The other project's same section: its items (a member, a reward) are another project's, so no deeper. */}
            <select value={project.id} onChange={(event) => navigate(projectHref((event.target as HTMLSelectElement).value, section || 'overview'))}>
              {session.projects.map((p) => <option key={p.id} value={p.id}>{p.name}</option>)}
            </select>
          </label>
        )}
        {project && session.projects.length === 1 && <span class="project-name">{project.name}</span>}
        <span class="who">
          <span class="muted">{session.operator.name || session.operator.email}{project && ` · ${words.roles[project.role]}`}</span>
          <button type="button" class="link" onClick={signOut}>{words.layout.signOut}</button>
        </span>
      </header>
      {project && (
        <nav class="main-nav" aria-label={words.layout.navigation}>
          <ul>
            {SECTIONS.map((name) => (
              <li key={name}>
                <Link href={projectHref(project.id, name)} aria-current={section === name ? 'page' : undefined}>{words.nav[name]}</Link>
              </li>
            ))}
          </ul>
        </nav>
      )}
      <main id="main" tabIndex={-1}>
        {project?.role === 'owner' && project.ownerTotpRequired && !session.operator.totpEnabled && section !== 'settings' && (
          <Alert>{words.layout.ownerTotp} <Link href={projectHref(project.id, 'settings/account')}>{words.layout.ownerTotpLink}</Link></Alert>
        )}
        {children}
      </main>
    </>
  );
}
