import type { CommerceDeps } from '../../integrations/commerce/connect.ts';
import type { AppContext } from '../context.ts';

/** What the store integration needs of the server. */
export const commerceDeps = (ctx: AppContext): CommerceDeps => ({
  db: ctx.db, box: ctx.box, write: ctx.write, clock: ctx.clock, log: ctx.log, publicUrl: ctx.publicUrl, commerce: ctx.commerce,
});
