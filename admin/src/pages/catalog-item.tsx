import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { SpecField } from '../catalog/fields.tsx';
import { kindOf, type KindSpec } from '../catalog/kinds.ts';
import { KindTabs } from '../catalog/tabs.tsx';
import { fieldNames, formValues, requestBody, shown } from '../catalog/values.ts';
import { fill, words } from '../i18n/words.ts';
import { previewOf, WidgetPreview } from '../preview/frame.tsx';
import type { Look } from '../preview/protocol.ts';
import { navigate, projectHref } from '../router.ts';
import { allows, type PageProps, type Project } from '../session.ts';
import { Form, Submit, useForm } from '../ui/form.tsx';
import type { Values } from '../ui/form-values.ts';
import { Link } from '../ui/link.tsx';
import { useAction, useApi } from '../ui/load.ts';
import { Alert, PageTitle, Status } from '../ui/notice.tsx';

type Item = Record<string, unknown> & { id: string; archivedAt: string | null };

/** A catalog item's form (new or existing), drawn from its kind's field description, beside a live preview in the real widget. */
export default function CatalogItemPage({ project, params }: PageProps) {
  const kind = kindOf(params.kind);
  const isNew = params.item === 'new';
  const base = `/projects/${encodeURIComponent(project.id)}/catalog/${kind?.path}`;
  const item = useApi<Item>(kind && !isNew ? `${base}/${encodeURIComponent(params.item!)}` : null);
  if (!kind) return <><PageTitle>{words.nav.catalog}</PageTitle><Alert>{words.errors.notFound}</Alert></>;
  if (item.error) return <><PageTitle>{words.catalog.kindNames[kind.path]}</PageTitle><Alert>{item.error.message}</Alert></>;
  if (!isNew && !item.data) return <p role="status">{words.common.loading}</p>;
  // Keyed by the item: a saved new item's page starts from what the server answered.
  return <ItemForm key={item.data?.id ?? 'new'} kind={kind} project={project} base={base} item={isNew ? null : item.data} />;
}

function ItemForm({ kind, project, base, item }: { kind: KindSpec; project: Project; base: string; item: Item | null }) {
  const w = words.catalog;
  const canChange = allows(project.role, 'staff') && !item?.archivedAt;
  const form = useForm(formValues(kind, item ?? {}), fieldNames(kind));
  const refs = useRefs(project.id, kind);
  const archiving = useAction();
  const save = form.submit(async (values) => {
    const body = requestBody(kind, values);
    if (!item) {
      const created = await api<Item>('POST', base, body);
      navigate(projectHref(project.id, `catalog/${kind.path}/${encodeURIComponent(created.id)}`), { replace: true });
      return undefined;
    }
    form.reset(formValues(kind, await api<Item>('PATCH', `${base}/${encodeURIComponent(item.id)}`, body)));
    return w.saved;
  });
  const archive = () => archiving.run(async () => {
    await api('DELETE', `${base}/${encodeURIComponent(item!.id)}`);
    navigate(projectHref(project.id, `catalog/${kind.path}`));
  });
  const title = item ? String(item[kind.title] ?? item.id) : w.add[kind.path];
  const preview = previewOf(kind.path, requestBody(kind, form.values as Values));
  return (
    <>
      <p class="crumbs"><Link href={projectHref(project.id, `catalog/${kind.path}`)}>{w.kindNames[kind.path]}</Link></p>
      <PageTitle>{title}</PageTitle>
      <KindTabs projectId={project.id} current={kind.path} />
      {item?.archivedAt && <Status>{w.isArchived}</Status>}
      <div class={preview ? 'with-preview' : undefined}>
        <Form form={form} onSubmit={save} label={title}>
          {kind.fields.filter((field) => shown(field, form.values)).map((field) => (
            <SpecField key={field.name} spec={field} form={form} readOnly={!canChange} refs={field.ref && refs[field.ref]} />
          ))}
          {canChange && <div class="buttons"><Submit form={form}>{item ? w.save : w.create}</Submit></div>}
        </Form>
        {preview && <CatalogPreview project={project} {...preview} />}
      </div>
      {canChange && item && (
        <section class="danger-zone" aria-labelledby="archive">
          <h2 id="archive">{w.archive}</h2>
          <p>{fill(w.archiveHelp, { name: title })}</p>
          <button type="button" class="danger" onClick={archive}>{w.archive}</button>
          {archiving.failed && <Alert>{archiving.failed}</Alert>}
        </section>
      )}
    </>
  );
}

/** The choices of the kind's `ref` fields (a quest's badge, a promo code's reward): up to 100 live items each. */
function useRefs(projectId: string, kind: KindSpec): Partial<Record<string, [string, string][]>> {
  const [refs, setRefs] = useState<Partial<Record<string, [string, string][]>>>({});
  useEffect(() => {
    for (const ref of new Set(kind.fields.map((field) => field.ref).filter((ref) => ref !== undefined))) {
      const target = kindOf(ref)!;
      api<Record<string, Item[]>>('GET', `/projects/${encodeURIComponent(projectId)}/catalog/${ref}?limit=100`).then((answer) => {
        setRefs((old) => ({ ...old, [ref]: (answer[target.listKey] ?? []).map((i) => [i.id, String(i[target.title] ?? i.id)]) }));
      }, () => undefined);
    }
  }, [projectId, kind.path]);
  return refs;
}

/** The item as the widget shows it, in the project's saved look. */
function CatalogPreview({ project, panel, answers }: { project: Project } & NonNullable<ReturnType<typeof previewOf>>) {
  const settings = useApi<{ name: string; widget: Look }>(`/projects/${encodeURIComponent(project.id)}/project`);
  if (!settings.data) return null;
  const look = settings.data.widget;
  return <WidgetPreview look={look} projectName={settings.data.name} language={look.defaultLanguage} panel={panel} answers={answers} />;
}
