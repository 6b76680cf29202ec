import type { FunctionComponent } from 'preact';
import { words } from '../i18n/words.ts';
import { projectHref } from '../router.ts';
import type { PageProps, Role } from '../session.ts';
import { Link } from '../ui/link.tsx';
import { PageTitle } from '../ui/notice.tsx';
import { AccountSettings } from '../settings/account.tsx';
import { BackupSettings } from '../settings/backups.tsx';
import { IntegrationSettings } from '../settings/integrations.tsx';
import { KeySettings } from '../settings/keys.tsx';
import { OperatorSettings } from '../settings/operators.tsx';
import { ProjectSettings } from '../settings/project.tsx';
import { WebhookSettings } from '../settings/webhooks.tsx';

/** Settings' sections; API keys only for owners (the server shows them to no one else). The rest every role reads, owners change. */
const SECTIONS: { id: keyof typeof words.settings.sections; view: FunctionComponent<PageProps>; reads?: Role }[] = [
  { id: 'project', view: ProjectSettings },
  { id: 'keys', view: KeySettings, reads: 'owner' },
  { id: 'webhooks', view: WebhookSettings },
  { id: 'integrations', view: IntegrationSettings },
  { id: 'operators', view: OperatorSettings },
  { id: 'backups', view: BackupSettings },
  { id: 'account', view: AccountSettings },
];

export default function SettingsPage(props: PageProps) {
  const { project, params } = props;
  const sections = SECTIONS.filter((s) => !s.reads || s.reads === project.role);
  const current = sections.find((s) => s.id === params.section) ?? sections[0]!;
  const View = current.view;
  return (
    <>
      <PageTitle>{`${words.nav.settings}: ${words.settings.sections[current.id]}`}</PageTitle>
      <nav class="tabs" aria-label={words.settings.sectionsLabel}>
        <ul>
          {sections.map((s) => (
            <li key={s.id}>
              <Link href={projectHref(project.id, `settings/${s.id}`)} aria-current={s.id === current.id ? 'page' : undefined}>{words.settings.sections[s.id]}</Link>
            </li>
          ))}
        </ul>
      </nav>
      <View key={current.id} {...props} />
    </>
  );
}
