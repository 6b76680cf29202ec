import { H3 } from 'h3';
import type { AppContext } from './context.ts';
import { errorResponse } from './errors.ts';
import { mountPages } from './pages.ts';
import { mountServerApi } from './v1/index.ts';
import { mountWidgetApi } from './widget/index.ts';
import { OFF, type ReplicationStatus } from '../replication/status.ts';

/** /healthz is public: state, lag and last sync only; the replica's URL (bucket, path) stays with `replicate status`. */
const publicReplication = ({ replica: _replica, ...status }: ReplicationStatus) => status;

/** Every HTTP surface of Punchcard on one h3 app; every error leaves as `{error, message}`. */
export function createApp(ctx: AppContext, options: { demo: boolean } = { demo: false }): H3 {
  const app = new H3({
    silent: true,
    onError: (error) => errorResponse(error, ctx.log),
  });
  app.get('/healthz', () => ({ status: 'ok', replication: publicReplication(ctx.replication?.() ?? OFF) }));
  mountServerApi(app, ctx);
  mountWidgetApi(app, ctx);
  mountPages(app, ctx, options);
  return app;
}
