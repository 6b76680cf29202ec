import { H3 } from 'h3';
import type { AppContext } from './context.ts';
import { errorResponse } from './errors.ts';
import { mountPages } from './pages.ts';
import { mountServerApi } from './v1/index.ts';
import { mountWidgetApi } from './widget/index.ts';
import { OFF } from '../replication/status.ts';

/** Every HTTP surface of Punchcard on one h3 app; every error leaves as `{error, message}`. */
export function createApp(ctx: AppContext, options: { demo: boolean } = { demo: false }): H3 {
  const app = new H3({
    silent: true,
    onError: (error) => errorResponse(error, ctx.log),
  });
  app.get('/healthz', () => ({ status: 'ok', replication: ctx.replication?.() ?? OFF }));
  mountServerApi(app, ctx);
  mountWidgetApi(app, ctx);
  mountPages(app, ctx, options);
  return app;
}
