import * as v from 'valibot';
import { SHARE_PLATFORMS } from '../domain/project/settings.ts';
import { text } from './common.ts';

/** `twitter` (the SPEC's name) is accepted beside `x`. */
const PLATFORMS = [...SHARE_PLATFORMS, 'twitter'];

export const shareBody = v.strictObject({
  platform: v.picklist(PLATFORMS, `must be one of ${PLATFORMS.join(', ')}`),
  shareType: v.optional(v.pipe(text(50), v.regex(/^[a-z0-9_-]+$/, 'must be lowercase letters, digits, - or _ (such as referral)'))),
});
