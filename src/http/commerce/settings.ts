import { getStoreSettings, updateStoreSettings } from '../../domain/commerce/stores.ts';
import { settingsAnswer, settingsPatchBody } from '../../schemas/commerce.ts';
import type { CommerceApi } from './api.ts';

export function settingsRoutes({ route, ctx }: CommerceApi): void {
  route('GET', '/stores/:storeId/settings', { responses: { 200: settingsAnswer } }, ({ key, param }) =>
    getStoreSettings(ctx.db, key.projectId, param('storeId')));

  route('PATCH', '/stores/:storeId/settings', { body: settingsPatchBody, write: true, responses: { 200: settingsAnswer } }, ({ key, param, body, now }) =>
    updateStoreSettings(ctx.db, key.projectId, param('storeId'), body, now));
}
