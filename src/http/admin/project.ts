import { livePublishableKey } from '../../domain/project/api-keys.ts';
import { getSettings, projectView, updateSettings } from '../../domain/project/settings.ts';
import { forbidden } from '../../shared/errors.ts';
import { isPlainObject } from '../../shared/objects.ts';
import { projectPatchBody } from '../../schemas/project.ts';
import { projectAnswer } from '../../schemas/answers/project.ts';
import * as admin from '../../schemas/answers/admin.ts';
import type { ProjectApi } from './api.ts';

/** What staff may change of the project: the widget's look. Everything else is the owner's. */
const LOOK_FIELDS = new Set(['theme', 'position', 'displayMode', 'languages', 'defaultLanguage', 'programName', 'launcherText']);

/** Refuses (403) a staff member's change to anything but the widget's look. */
function staffMayPatch(body: Record<string, unknown>): void {
  const widget = body.widget;
  const outside = Object.keys(body).filter((field) => field !== 'widget')
    .concat(isPlainObject(widget) ? Object.keys(widget).filter((field) => !LOOK_FIELDS.has(field)).map((field) => `widget.${field}`) : []);
  if (outside.length > 0) {
    throw forbidden(`Changing ${outside.map((field) => `"${field}"`).join(', ')} needs the owner role; staff may change the widget's look (widget.${[...LOOK_FIELDS].join(', widget.')}).`);
  }
}

/** The project's settings (the server API's GET and PATCH /project) and the widget's embed snippet. */
export function projectRoutes({ route, ctx }: ProjectApi): void {
  route('GET', '/project', { responses: { 200: projectAnswer } }, ({ projectId }) => projectView(ctx.db, projectId));

  route('PATCH', '/project', {
    body: projectPatchBody, write: true, role: 'staff', responses: { 200: projectAnswer },
    async around({ projectId }, run) {
      const answer = await run();
      ctx.guard.forgetProject(projectId); // new rate limits apply from the next request
      return answer;
    },
  }, ({ projectId, role, body }) => {
    if (role === 'staff') staffMayPatch(body);
    return updateSettings(ctx.db, projectId, body);
  });

  route('GET', '/widget/embed', { responses: { 200: admin.embed } }, ({ projectId, now }) => {
    const publicKey = livePublishableKey(ctx.db, projectId, now) ?? null;
    const origin = ctx.publicUrl();
    const snippet = `<!-- Punchcard: your server signs each shopper's config with the widget secret (${origin}/docs/widget) -->
<script>
  window.PunchcardConfig = {
    publicKey: ${JSON.stringify(publicKey ?? 'pk_live_… (create a publishable key under Settings → API keys)')},
    // externalId, timestamp, member and signature: from your server (the SDK's signWidgetAuth)
  };
</script>
<script async src="${origin}/widget.js"></script>`;
    return { snippet, publicKey, allowedOrigins: getSettings(ctx.db, projectId).widget.allowedOrigins };
  });
}
