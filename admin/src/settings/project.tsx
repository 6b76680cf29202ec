import { api } from '../api.ts';
import { words } from '../i18n/words.ts';
import { allows, type PageProps } from '../session.ts';
import { Field, Form, Submit, useForm } from '../ui/form.tsx';
import { numberOrText, type Values } from '../ui/form-values.ts';
import { useApi } from '../ui/load.ts';
import { Alert } from '../ui/notice.tsx';

interface ProjectView {
  name: string; timezone: string; pointsExpiryDays: number | null; welcomeBonus: number;
  referral: { referrerReward: number; refereeReward: number; referralUrl: string | null };
  widget: { allowedOrigins: string[] };
  valuePerPoint: { amount: number; currency: string } | null;
  admin: { ownerTotpRequired: boolean };
}

/** Form names are the API's paths, so each message shows beside its field. */
const valuesOf = (p: ProjectView): Values => ({
  name: p.name, timezone: p.timezone, pointsExpiryDays: p.pointsExpiryDays === null ? '' : String(p.pointsExpiryDays), welcomeBonus: String(p.welcomeBonus),
  'referral.referralUrl': p.referral.referralUrl ?? '', 'referral.referrerReward': String(p.referral.referrerReward),
  'referral.refereeReward': String(p.referral.refereeReward),
  'valuePerPoint.amount': p.valuePerPoint ? String(p.valuePerPoint.amount) : '', 'valuePerPoint.currency': p.valuePerPoint?.currency ?? '',
  'widget.allowedOrigins': p.widget.allowedOrigins.join('\n'),
  'admin.ownerTotpRequired': p.admin.ownerTotpRequired,
});

/** The project's own settings: owners change them, everyone else reads them. */
export function ProjectSettings({ project }: { project: PageProps['project'] }) {
  const path = `/projects/${encodeURIComponent(project.id)}/project`;
  const current = useApi<ProjectView>(path);
  if (current.error) return <Alert>{current.error.message}</Alert>;
  if (!current.data) return <p role="status">{words.common.loading}</p>;
  return <ProjectForm path={path} initial={current.data} readOnly={!allows(project.role, 'owner')} />;
}

function ProjectForm({ path, initial, readOnly }: { path: string; initial: ProjectView; readOnly: boolean }) {
  const w = words.settings.project;
  const form = useForm(valuesOf(initial));
  const save = form.submit(async (v) => {
    const text = (name: string) => (v[name] as string).trim();
    const amount = text('valuePerPoint.amount');
    const saved = await api<ProjectView>('PATCH', path, {
      name: text('name'), timezone: text('timezone'), pointsExpiryDays: numberOrText(v.pointsExpiryDays!), welcomeBonus: numberOrText(v.welcomeBonus!),
      referral: { referralUrl: text('referral.referralUrl') || null, referrerReward: numberOrText(v['referral.referrerReward']!), refereeReward: numberOrText(v['referral.refereeReward']!) },
      valuePerPoint: amount === '' ? null : { amount: numberOrText(amount), currency: text('valuePerPoint.currency').toUpperCase() },
      widget: { allowedOrigins: text('widget.allowedOrigins').split(/\s+/).filter(Boolean) },
      admin: { ownerTotpRequired: v['admin.ownerTotpRequired'] === true },
    });
    form.reset(valuesOf(saved));
    return words.common.saved;
  });
  const common = { form, disabled: readOnly };
  return (
    <Form form={form} onSubmit={save} label={words.settings.sections.project}>
      <div class="row">
        <Field {...common} name="name" label={w.name} required />
        <Field {...common} name="timezone" label={w.timezone} hint={w.timezoneHint} />
      </div>
      <div class="row">
        <Field {...common} name="welcomeBonus" label={w.welcomeBonus} inputMode="numeric" />
        <Field {...common} name="pointsExpiryDays" label={w.expiry} hint={w.expiryHint} inputMode="numeric" />
      </div>
      <fieldset class="group">
        <legend>{w.referral}</legend>
        <Field {...common} name="referral.referralUrl" type="url" label={w.referralUrl} hint={w.referralUrlHint} />
        <div class="row">
          <Field {...common} name="referral.referrerReward" label={w.referrerReward} inputMode="numeric" />
          <Field {...common} name="referral.refereeReward" label={w.refereeReward} inputMode="numeric" />
        </div>
      </fieldset>
      <fieldset class="group">
        <legend>{w.valuePerPoint}</legend>
        <p class="hint">{w.valuePerPointHint}</p>
        <div class="row">
          <Field {...common} name="valuePerPoint.amount" label={w.amount} inputMode="decimal" />
          <Field {...common} name="valuePerPoint.currency" label={w.currency} hint={w.currencyHint} />
        </div>
      </fieldset>
      <Field {...common} name="widget.allowedOrigins" label={w.origins} hint={w.originsHint} multiline />
      <Field {...common} name="admin.ownerTotpRequired" label={w.ownerTotp} hint={w.ownerTotpHint} />
      {!readOnly && <Submit form={form}>{words.common.save}</Submit>}
    </Form>
  );
}
