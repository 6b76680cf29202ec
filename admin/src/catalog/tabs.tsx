import { words } from '../i18n/words.ts';
import { projectHref } from '../router.ts';
import { Link } from '../ui/link.tsx';
import { KINDS } from './kinds.ts';

/** The seven kinds, as links: the one shown is the current page. */
export function KindTabs({ projectId, current }: { projectId: string; current: string }) {
  return (
    <nav class="tabs" aria-label={words.catalog.kinds}>
      <ul>
        {KINDS.map((kind) => (
          <li key={kind.path}>
            <Link href={projectHref(projectId, `catalog/${kind.path}`)} aria-current={kind.path === current ? 'page' : undefined}>
              {words.catalog.kindNames[kind.path]}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}
