import { projectView, updateSettings } from '../../domain/project/settings.ts';
import { readJson, validate } from '../request.ts';
import { projectPatchBody } from '../../schemas/project.ts';
import { mutate, ok, type ServerApi } from './api.ts';

/** The calling key's project and its settings (name, time zone, expiry, bonuses, referrals, sharing, widget). */
export function projectRoutes({ route, ctx }: ServerApi): void {
  route('GET', '/project', (_event, key) => projectView(ctx.db, key.projectId));

  route('PATCH', '/project', async (event, key, now) => {
    const rawBody = await readJson(event);
    const body = validate(projectPatchBody, rawBody);
    const answer = await mutate(event, ctx, key, now, { rawBody }, () => ok(updateSettings(ctx.db, key.projectId, body)));
    ctx.guard.forgetProject(key.projectId); // new rate limits apply from the next request
    return answer;
  });
}
