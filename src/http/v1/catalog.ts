import { archiveItem, createItem, getItem, listItems, updateItem } from '../../domain/catalog/catalog-items.ts';
import { pathParam, readJson, readQuery, validate } from '../request.ts';
import { CATALOGS, catalogListQuery } from '../../schemas/catalog.ts';
import { emptyBody } from '../../schemas/common.ts';
import { created, mutate, ok, type ServerApi } from './api.ts';

/**
 * The seven catalogs (quests, rewards, badges, games, promo codes, multiplier events, levels), each
 * served by the same five routes from its description and schemas:
 * GET list, POST create (201), GET one, PATCH, DELETE (archives).
 */
export function catalogRoutes({ route, ctx }: ServerApi): void {
  for (const { kind, create, update } of CATALOGS) {
    const base = `/${kind.path}`;
    const one = `${base}/:id`;

    route('GET', base, (event, key, now) => {
      const { items, pagination } = listItems(ctx.db, kind, key.projectId, readQuery(event, catalogListQuery), now);
      return { [kind.listKey]: items, pagination };
    });

    route('POST', base, async (event, key, now) => {
      const rawBody = await readJson(event);
      const body = validate(create, rawBody);
      return mutate(event, ctx, key, now, { rawBody }, () => created(createItem(ctx.db, kind, key.projectId, body, now)));
    });

    route('GET', one, (event, key) => getItem(ctx.db, kind, key.projectId, pathParam(event, 'id')));

    route('PATCH', one, async (event, key, now) => {
      const rawBody = await readJson(event);
      const body = validate(update, rawBody);
      return mutate(event, ctx, key, now, { rawBody }, () => ok(updateItem(ctx.db, kind, key.projectId, pathParam(event, 'id'), body, now)));
    });

    route('DELETE', one, async (event, key, now) => {
      const rawBody = await readJson(event, { emptyAllowed: true });
      validate(emptyBody, rawBody);
      return mutate(event, ctx, key, now, { rawBody }, () => ok(archiveItem(ctx.db, kind, key.projectId, pathParam(event, 'id'), now)));
    });
  }
}
