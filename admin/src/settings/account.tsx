import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { fill, formatDateTime, words } from '../i18n/words.ts';
import type { PageProps, Session } from '../session.ts';
import { CopyBlock } from '../ui/copy.tsx';
import { Field, Form, Submit, useForm } from '../ui/form.tsx';
import { useAction, useApi } from '../ui/load.ts';
import { Alert } from '../ui/notice.tsx';
import { DataTable } from '../ui/table.tsx';

interface SessionRow { id: string; createdAt: string; lastSeenAt: string; expiresAt: string; userAgent: string | null; address: string | null; current: boolean }

/** The signed-in operator's own account, whatever their role: name and password, sessions, and the authenticator app. */
export function AccountSettings({ session, setSession }: PageProps) {
  return (
    <>
      <Profile session={session} setSession={setSession} />
      <Sessions />
      <Totp session={session} setSession={setSession} />
    </>
  );
}

function Profile({ session, setSession }: Pick<PageProps, 'session' | 'setSession'>) {
  const w = words.settings.account;
  const form = useForm({ name: session.operator.name ?? '', currentPassword: '', newPassword: '' });
  const save = form.submit(async ({ name, currentPassword, newPassword }) => {
    const next = await api<Session>('PATCH', '/me', { name, ...(newPassword ? { currentPassword, newPassword } : {}) });
    setSession(next);
    form.reset({ name: next.operator.name ?? '', currentPassword: '', newPassword: '' });
    return words.common.saved;
  });
  return (
    <section class="card" aria-labelledby="profile">
      <h2 id="profile">{w.profile}</h2>
      <p class="muted">{fill(w.signedInAs, { email: session.operator.email })}</p>
      <Form form={form} onSubmit={save}>
        <Field form={form} name="name" label={w.name} autoComplete="name" />
        <div class="row">
          <Field form={form} name="currentPassword" type="password" label={w.currentPassword} autoComplete="current-password" />
          <Field form={form} name="newPassword" type="password" label={w.newPassword} hint={w.newPasswordHint} autoComplete="new-password" />
        </div>
        <Submit form={form}>{words.common.save}</Submit>
      </Form>
    </section>
  );
}

function Sessions() {
  const w = words.settings.account;
  const sessions = useApi<{ sessions: SessionRow[] }>('/sessions');
  const action = useAction();
  const revoke = (row: SessionRow) => action.run(async () => {
    await api('DELETE', `/sessions/${encodeURIComponent(row.id)}`);
    sessions.reload();
  });
  return (
    <>
      {(sessions.error || action.failed) && <Alert>{sessions.error?.message ?? action.failed}</Alert>}
      <DataTable caption={w.sessions} rows={sessions.data?.sessions ?? []} rowKey={(s) => s.id} loading={sessions.loading} columns={[
        { key: 'userAgent', label: w.device, render: (s) => <>{s.userAgent ?? w.unknown}{s.current && <strong> ({w.thisOne})</strong>}</> },
        { key: 'address', label: w.address, render: (s) => s.address ?? '' },
        { key: 'createdAt', label: w.started, render: (s) => formatDateTime(s.createdAt) },
        { key: 'lastSeenAt', label: w.lastSeen, render: (s) => formatDateTime(s.lastSeenAt) },
        { key: 'revoke', label: w.actions, render: (s) => !s.current && (
          <button type="button" onClick={() => revoke(s)} aria-label={fill(w.revokeFor, { started: formatDateTime(s.createdAt) })}>{w.revoke}</button>
        ) },
      ]} />
    </>
  );
}

/**
 * The second factor: enrolling shows the otpauth:// address as text (an authenticator app takes it
 * pasted, or its secret typed), then a code from the app turns it on. No QR code: drawing one
 * would need a library the project does not have.
 */
function Totp({ session, setSession }: Pick<PageProps, 'session' | 'setSession'>) {
  const w = words.settings.account;
  const [enrolment, setEnrolment] = useState<{ secret: string; uri: string } | null>(null);
  const form = useForm({ code: '' });
  const refresh = async () => setSession(await api<Session>('GET', '/session'));
  const start = form.submit(async () => {
    setEnrolment(await api<{ secret: string; uri: string }>('POST', '/me/totp', {}));
    return undefined;
  });
  const confirm = form.submit(async ({ code }) => {
    await api('POST', '/me/totp/confirm', { code });
    setEnrolment(null);
    form.reset({ code: '' });
    await refresh();
    return w.totpOn;
  });
  const disable = form.submit(async ({ code }) => {
    await api('DELETE', '/me/totp', { code });
    form.reset({ code: '' });
    await refresh();
    return w.totpOff;
  });
  return (
    <section class="card" aria-labelledby="totp">
      <h2 id="totp">{w.totp}</h2>
      <p>{session.operator.totpEnabled ? w.totpEnabled : w.totpDisabled}</p>
      {session.operator.totpEnabled ? (
        <Form form={form} onSubmit={disable}>
          <Field form={form} name="code" label={w.code} autoComplete="one-time-code" inputMode="numeric" />
          <Submit form={form} danger>{w.totpDisable}</Submit>
        </Form>
      ) : !enrolment ? (
        <Form form={form} onSubmit={start}><Submit form={form}>{w.totpStart}</Submit></Form>
      ) : (
        <>
          <p>{w.totpScan}</p>
          <CopyBlock text={enrolment.uri} label={w.totpUri} />
          <p>{w.totpSecret} <code>{enrolment.secret}</code></p>
          <Form form={form} onSubmit={confirm}>
            <Field form={form} name="code" label={w.code} hint={w.codeHint} autoComplete="one-time-code" inputMode="numeric" />
            <Submit form={form}>{w.totpConfirm}</Submit>
          </Form>
        </>
      )}
    </section>
  );
}
