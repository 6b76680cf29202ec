import { catalogResource } from '../catalog-routes.ts';
import type { ProjectApi } from './api.ts';

/** The seven catalogs under /catalog/<kind>: exactly the server API's routes and shapes; staff change them. */
export function catalogRoutes(api: ProjectApi): void {
  catalogResource(api, { base: '/catalog', projectOf: ({ projectId }) => projectId, read: {}, change: { role: 'staff' }, csv: true });
}
