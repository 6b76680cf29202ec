import { communitySettings, rotateCommunitySecret, settingsView, updateCommunitySettings } from '../../domain/community/settings.ts';
import { emptyBody } from '../../schemas/common.ts';
import { communitySettingsAnswer, communitySettingsPatch, communitySecretAnswer } from '../../schemas/community.ts';
import type { ServerApi } from '../v1/api.ts';

/** The project's community (Discord) settings; the webhook secret is answered only when generated or rotated. */
export function communitySettingsRoutes({ route, ctx }: ServerApi): void {
  route('GET', '/community/settings', { responses: { 200: communitySettingsAnswer } }, ({ key }) =>
    settingsView(communitySettings(ctx.db, key.projectId)));

  // `secret`: the first answer with a guild carries the generated webhook secret, which is never stored for a replay.
  route('PATCH', '/community/settings', { body: communitySettingsPatch, write: true, secret: true, responses: { 200: communitySettingsAnswer } },
    ({ key, body, now }) => updateCommunitySettings(ctx.db, ctx.box, key.projectId, body, now));

  route('POST', '/community/settings/rotate-secret', { body: emptyBody, optionalBody: true, write: true, secret: true,
    responses: { 200: communitySecretAnswer } }, ({ key, now }) => rotateCommunitySecret(ctx.db, ctx.box, key.projectId, now));
}
