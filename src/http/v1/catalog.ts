import { catalogResource } from '../catalog-routes.ts';
import type { ServerApi } from './api.ts';

/** The seven catalogs under /api/v1/<kind> (catalog-routes.ts). */
export function catalogRoutes(api: ServerApi): void {
  catalogResource(api, { base: '', projectOf: ({ key }) => key.projectId, read: {}, change: {} });
}
