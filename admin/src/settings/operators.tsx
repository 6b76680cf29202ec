import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { fill, formatDateTime, words } from '../i18n/words.ts';
import { allows, type PageProps, type Role } from '../session.ts';
import { CopyBlock } from '../ui/copy.tsx';
import { Field, Form, Submit, useForm } from '../ui/form.tsx';
import { useAction, useApi } from '../ui/load.ts';
import { Alert } from '../ui/notice.tsx';
import { DataTable } from '../ui/table.tsx';

interface Operator { id: string; email: string; name: string | null; role: Role; totpEnabled: boolean; lastSignInAt: string | null; invitedAt: string | null; pending: boolean }

const ROLES: Role[] = ['owner', 'staff', 'viewer'];

/** The project's operators: owners invite (a one-time link to pass on), change roles and remove. */
export function OperatorSettings({ project, session }: PageProps) {
  const path = `/projects/${encodeURIComponent(project.id)}/operators`;
  const operators = useApi<{ operators: Operator[] }>(path);
  const action = useAction();
  const [invite, setInvite] = useState<string | null>(null);
  const owner = allows(project.role, 'owner');
  const w = words.settings.operators;
  const change = (method: string, operator: Operator, body?: unknown) => action.run(async () => {
    await api(method, `${path}/${encodeURIComponent(operator.id)}`, body);
    operators.reload();
  });
  const form = useForm({ email: '', role: 'staff' });
  const send = form.submit(async ({ email, role }) => {
    // Someone who already has a password gets the role at once, and no link (docs/admin.md).
    const made = await api<{ inviteUrl: string | null }>('POST', path, { email, role });
    setInvite(made.inviteUrl);
    form.reset({ email: '', role: 'staff' });
    operators.reload();
    return made.inviteUrl === null ? fill(w.added, { email: email as string }) : undefined;
  });
  const roleOptions = ROLES.map((role) => [role, words.roles[role]] as const);
  return (
    <>
      {(operators.error || action.failed) && <Alert>{operators.error?.message ?? action.failed}</Alert>}
      <DataTable caption={w.caption} rows={operators.data?.operators ?? []} rowKey={(o) => o.id} loading={operators.loading} columns={[
        { key: 'email', label: w.email },
        { key: 'name', label: w.name, render: (o) => o.name ?? '' },
        { key: 'role', label: w.role, render: (o) => (owner && o.id !== session.operator.id ? (
          <select aria-label={fill(w.roleOf, { email: o.email })} value={o.role} onChange={(event) => change('PATCH', o, { role: (event.target as HTMLSelectElement).value })}>
            {roleOptions.map(([role, label]) => <option key={role} value={role}>{label}</option>)}
          </select>
        ) : words.roles[o.role]) },
        { key: 'totpEnabled', label: w.totp, render: (o) => (o.totpEnabled ? words.common.yes : words.common.no) },
        { key: 'lastSignInAt', label: w.lastSignIn, render: (o) => (o.pending ? w.pending : formatDateTime(o.lastSignInAt) || w.never) },
        ...(owner ? [{ key: 'remove', label: w.actions, render: (o: Operator) => o.id !== session.operator.id && (
          <button type="button" class="danger" aria-label={fill(w.removeFor, { email: o.email })}
            onClick={() => confirm(fill(w.removeConfirm, { email: o.email })) && change('DELETE', o)}>{w.remove}</button>
        ) }] : []),
      ]} />
      {owner && (
        <section class="card" aria-labelledby="invite">
          <h2 id="invite">{w.invite}</h2>
          <Form form={form} onSubmit={send}>
            <div class="row">
              <Field form={form} name="email" type="email" label={w.email} required />
              <Field form={form} name="role" label={w.role} options={roleOptions} />
            </div>
            <Submit form={form}>{w.inviteSubmit}</Submit>
          </Form>
          {invite && <div class="secret" role="status"><p>{w.inviteMade}</p><CopyBlock text={invite} label={w.inviteLink} /></div>}
        </section>
      )}
    </>
  );
}
