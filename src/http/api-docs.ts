import type { H3 } from 'h3';
import type { AppContext } from './context.ts';
import { openApiDocument } from './openapi.ts';
import type { MountedRoute } from './route.ts';

export const OPENAPI_PATH = '/api/v1/openapi.json';

/** GET /api/v1/openapi.json (public): the document of every mounted route, made once per server URL. */
export function mountApiDocs(app: H3, ctx: AppContext, routes: MountedRoute[]): void {
  let cached: { url: string; text: string } | undefined;
  const documentText = () => {
    const url = ctx.publicUrl();
    if (cached?.url !== url) cached = { url, text: JSON.stringify(openApiDocument(routes, url)) };
    return cached.text;
  };
  app.get(OPENAPI_PATH, () => new Response(documentText(), {
    headers: { 'content-type': 'application/json; charset=utf-8', 'access-control-allow-origin': '*', 'cache-control': 'no-cache' },
  }));
}
