import { projectView, updateSettings } from '../../domain/project/settings.ts';
import { projectPatchBody } from '../../schemas/project.ts';
import type { ServerApi } from './api.ts';
import { projectAnswer } from '../../schemas/answers/project.ts';

/** The calling key's project and its settings (name, time zone, expiry, bonuses, referrals, sharing, widget). */
export function projectRoutes({ route, ctx }: ServerApi): void {
  route('GET', '/project', { responses: { 200: projectAnswer } }, ({ key }) => projectView(ctx.db, key.projectId));

  route('PATCH', '/project', {
    body: projectPatchBody,
    write: true,
    responses: { 200: projectAnswer },
    async around({ key }, run) {
      const answer = await run();
      ctx.guard.forgetProject(key.projectId); // new rate limits apply from the next request
      return answer;
    },
  }, ({ key, body }) => updateSettings(ctx.db, key.projectId, body));
}
