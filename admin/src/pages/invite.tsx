import { api } from '../api.ts';
import { fill, formatDateTime, words } from '../i18n/words.ts';
import { BASE, navigate } from '../router.ts';
import type { PageProps, Role, Session } from '../session.ts';
import { Field, Form, Submit, useForm } from '../ui/form.tsx';
import { FieldError } from '../ui/form-values.ts';
import { useApi } from '../ui/load.ts';
import { Alert, PageTitle } from '../ui/notice.tsx';

interface Invite { email: string; role: Role; projectName: string; expiresAt: string }

/** Passwords shorter than this are refused by the server too; said here before a round trip. */
const MIN_PASSWORD = 12;

/** The one-time link an owner (or `punchcard admin invite`) made: the invited operator chooses a password and is signed in. */
export default function InvitePage({ params, setSession }: PageProps) {
  const path = `/invites/${encodeURIComponent(params.token!)}`;
  const invite = useApi<Invite>(path);
  const form = useForm({ name: '', password: '', repeat: '' });
  const accept = form.submit(async ({ name, password, repeat }) => {
    if (password !== repeat) throw new FieldError('repeat', words.invite.mismatch);
    if ((password as string).length < MIN_PASSWORD) throw new FieldError('password', fill(words.invite.tooShort, { n: MIN_PASSWORD }));
    const session = await api<Session>('POST', path, { password, ...(name ? { name } : {}) }, { signingIn: true });
    setSession(session);
    navigate(BASE, { replace: true });
    return undefined;
  });
  return (
    <div class="narrow card">
      <PageTitle>{words.invite.title}</PageTitle>
      {invite.error ? <Alert>{invite.error.status === 404 ? words.invite.invalid : invite.error.message}</Alert>
        : !invite.data ? <p role="status">{words.common.loading}</p>
        : (
          <>
            <p>{fill(words.invite.intro, { email: invite.data.email, project: invite.data.projectName, role: words.roles[invite.data.role] })}</p>
            <p class="muted">{fill(words.invite.expires, { when: formatDateTime(invite.data.expiresAt) })}</p>
            <Form form={form} onSubmit={accept}>
              <Field form={form} name="name" label={words.invite.name} autoComplete="name" />
              <Field form={form} name="password" type="password" label={words.invite.password} hint={fill(words.invite.passwordHint, { n: MIN_PASSWORD })}
                autoComplete="new-password" required />
              <Field form={form} name="repeat" type="password" label={words.invite.repeat} autoComplete="new-password" required />
              <Submit form={form}>{words.invite.submit}</Submit>
            </Form>
          </>
        )}
    </div>
  );
}

