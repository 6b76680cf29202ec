import { useState } from 'preact/hooks';
import { LANGUAGES } from '../../../widget/src/strings.ts';
import { api, type ApiError } from '../api.ts';
import { words } from '../i18n/words.ts';
import { sampleAnswers, WidgetPreview } from '../preview/frame.tsx';
import type { Look } from '../preview/protocol.ts';
import { allows, type PageProps, type Project } from '../session.ts';
import { CopyBlock } from '../ui/copy.tsx';
import { Field, Form, Submit, useForm } from '../ui/form.tsx';
import { numberOrText, type Values } from '../ui/form-values.ts';
import { useApi } from '../ui/load.ts';
import { Alert, PageTitle } from '../ui/notice.tsx';

const languageNames = new Intl.DisplayNames([words.locale], { type: 'language' });
const languageName = (code: string) => languageNames.of(code) ?? code;

/** The form's names are the API's paths, so its messages show beside the right field. */
const T = 'widget.theme.';

const valuesOf = (look: Look): Values => ({
  'widget.programName': look.programName ?? '',
  'widget.launcherText': look.launcherText ?? '',
  [`${T}primaryColor`]: look.theme.primaryColor.toLowerCase(),
  [`${T}backgroundColor`]: look.theme.backgroundColor.toLowerCase(),
  [`${T}textColor`]: look.theme.textColor.toLowerCase(),
  [`${T}borderRadius`]: String(look.theme.borderRadius),
  [`${T}fontFamily`]: look.theme.fontFamily ?? '',
  'widget.position': look.position,
  'widget.displayMode': look.displayMode,
  'widget.languages': [...look.languages],
  'widget.defaultLanguage': look.defaultLanguage,
});

const lookOf = (v: Values): Look => ({
  programName: (v['widget.programName'] as string).trim() || null,
  launcherText: (v['widget.launcherText'] as string).trim() || null,
  theme: {
    primaryColor: v[`${T}primaryColor`] as string, backgroundColor: v[`${T}backgroundColor`] as string, textColor: v[`${T}textColor`] as string,
    borderRadius: numberOrText(v[`${T}borderRadius`] ?? '') as number, fontFamily: (v[`${T}fontFamily`] as string).trim() || null,
  },
  position: v['widget.position'] as Look['position'],
  displayMode: v['widget.displayMode'] as Look['displayMode'],
  languages: v['widget.languages'] as string[],
  defaultLanguage: v['widget.defaultLanguage'] as string,
});

/** The widget's look, previewed in the real widget as it is edited (before saving), and the snippet a shop pastes. */
export default function WidgetPage({ project }: PageProps) {
  const base = `/projects/${encodeURIComponent(project.id)}`;
  const settings = useApi<{ name: string; widget: Look }>(`${base}/project`);
  const embed = useApi<{ snippet: string; publicKey: string | null; allowedOrigins: string[] }>(`${base}/widget/embed`);
  const w = words.widget;
  return (
    <>
      <PageTitle>{words.nav.widget}</PageTitle>
      {settings.error && <Alert>{settings.error.message}</Alert>}
      {settings.data ? <LookForm project={project} base={base} name={settings.data.name} look={settings.data.widget} /> : !settings.error && <p role="status">{words.common.loading}</p>}
      <section aria-labelledby="embed">
        <h2 id="embed">{w.embed}</h2>
        <p>{w.embedHelp}</p>
        {embed.error && <Alert>{(embed.error as ApiError).message}</Alert>}
        {embed.data && (
          <>
            <CopyBlock text={embed.data.snippet} label={w.snippet} />
            <p class="muted">{embed.data.allowedOrigins.length ? `${w.origins} ${embed.data.allowedOrigins.join(', ')}` : w.noOrigins}</p>
          </>
        )}
      </section>
    </>
  );
}

function LookForm({ project, base, name, look }: { project: Project; base: string; name: string; look: Look }) {
  const w = words.widget;
  const form = useForm(valuesOf(look));
  const readOnly = !allows(project.role, 'staff');
  const chosen = form.values['widget.languages'] as string[];
  const [previewLanguage, setPreviewLanguage] = useState(look.defaultLanguage);
  const [shows, setShows] = useState<'open' | 'launcher'>('open');
  const save = form.submit(async (values) => {
    const next = lookOf(values);
    const saved = await api<{ widget: Look }>('PATCH', `${base}/project`, {
      widget: { programName: next.programName, launcherText: next.launcherText, theme: { ...next.theme, borderRadius: numberOrText(values[`${T}borderRadius`] ?? '') }, position: next.position,
        displayMode: next.displayMode, languages: next.languages, defaultLanguage: next.defaultLanguage },
    });
    form.reset(valuesOf(saved.widget));
    return w.saved;
  });
  const common = { form, disabled: readOnly };
  const language = chosen.includes(previewLanguage) ? previewLanguage : (form.values['widget.defaultLanguage'] as string);
  return (
    <div class="with-preview">
      <Form form={form} onSubmit={save} label={w.look}>
        <h2>{w.look}</h2>
        <Field {...common} name="widget.programName" label={w.programName} hint={w.programNameHint} />
        <div class="row">
          <Field {...common} name={`${T}primaryColor`} type="color" label={w.primaryColor} />
          <Field {...common} name={`${T}backgroundColor`} type="color" label={w.backgroundColor} />
          <Field {...common} name={`${T}textColor`} type="color" label={w.textColor} />
        </div>
        <div class="row">
          <Field {...common} name={`${T}borderRadius`} label={w.borderRadius} inputMode="numeric" />
          <Field {...common} name={`${T}fontFamily`} label={w.fontFamily} hint={w.fontFamilyHint} />
        </div>
        <div class="row">
          <Field {...common} name="widget.position" label={w.position} options={[['right', w.right], ['left', w.left]]} />
          <Field {...common} name="widget.displayMode" label={w.displayMode} hint={w.displayModeHint} options={[['floating', w.floating], ['custom', w.custom]]} />
        </div>
        <Field {...common} name="widget.launcherText" label={w.launcherText} hint={w.launcherTextHint} />
        <Field {...common} name="widget.languages" label={w.languages} options={LANGUAGES.map((code) => [code, languageName(code)] as const)} />
        <Field {...common} name="widget.defaultLanguage" label={w.defaultLanguage} options={chosen.map((code) => [code, languageName(code)] as const)} />
        {!readOnly && <Submit form={form}>{w.save}</Submit>}
      </Form>
      <div>
        <div class="row">
          <div class="field">
            <label for="preview-language">{w.previewLanguage}</label>
            <select id="preview-language" value={language} onChange={(event) => setPreviewLanguage((event.target as HTMLSelectElement).value)}>
              {chosen.map((code) => <option key={code} value={code}>{languageName(code)}</option>)}
            </select>
          </div>
          <div class="field">
            <label for="preview-shows">{w.previewShows}</label>
            <select id="preview-shows" value={shows} onChange={(event) => setShows((event.target as HTMLSelectElement).value as 'open' | 'launcher')}>
              <option value="open">{w.showsOpen}</option>
              <option value="launcher">{w.showsLauncher}</option>
            </select>
          </div>
        </div>
        <WidgetPreview look={lookOf(form.values)} projectName={name} language={language} answers={sampleAnswers()} open={shows === 'open'} />
      </div>
    </div>
  );
}
