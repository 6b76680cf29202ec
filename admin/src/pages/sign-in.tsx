import { useEffect, useState } from 'preact/hooks';
import { api, ApiError } from '../api.ts';
import { fill, waitText, words } from '../i18n/words.ts';
import { navigate, safeNext } from '../router.ts';
import type { PageProps, Session } from '../session.ts';
import { Field, Form, Submit, useForm } from '../ui/form.tsx';
import { PageTitle } from '../ui/notice.tsx';

/**
 * Email and password; an authentication code when the server asks for one (`totpRequired`); over
 * the limit, how long to wait in words. Then back where the operator was sent from (`?next=`).
 */
export default function SignIn({ query, session, setSession }: PageProps) {
  const next = safeNext(query.get('next'));
  const [totp, setTotp] = useState(false);
  const form = useForm({ email: '', password: '', totpCode: '' });
  useEffect(() => {
    if (session) navigate(next, { replace: true });
  }, [session]);
  useEffect(() => {
    if (totp) document.getElementById('totp-code')?.focus();
  }, [totp]);
  const signIn = form.submit(async ({ email, password, totpCode }) => {
    try {
      const signed = await api<Session>('POST', '/session', { email, password, ...(totp ? { totpCode } : {}) }, { signingIn: true });
      setSession(signed);
      navigate(next, { replace: true });
      return undefined;
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      if (error.status === 401 && error.body.totpRequired === true) setTotp(true);
      if (error.status === 429) {
        throw new ApiError(429, error.error, fill(words.signIn.tooMany, { wait: waitText(error.retryAfter ?? 60) }));
      }
      throw error;
    }
  });
  return (
    <div class="narrow card">
      <PageTitle>{words.signIn.title}</PageTitle>
      <Form form={form} onSubmit={signIn}>
        <Field form={form} name="email" type="email" label={words.signIn.email} autoComplete="username" required />
        <Field form={form} name="password" type="password" label={words.signIn.password} autoComplete="current-password" required />
        {totp && <TotpField form={form} />}
        <Submit form={form}>{words.signIn.submit}</Submit>
      </Form>
    </div>
  );
}

/** The code from the operator's authenticator app; the id lets sign-in move focus to it when it appears. */
function TotpField({ form }: { form: ReturnType<typeof useForm<{ email: string; password: string; totpCode: string }>> }) {
  return (
    <div class="field">
      <label for="totp-code">{words.signIn.totp}</label>
      <input id="totp-code" name="totpCode" value={form.values.totpCode} autoComplete="one-time-code" inputMode="numeric" pattern="[0-9]*"
        aria-describedby="totp-hint" onInput={(event) => form.set('totpCode', (event.target as HTMLInputElement).value)} />
      <p class="hint" id="totp-hint">{words.signIn.totpHint}</p>
    </div>
  );
}
