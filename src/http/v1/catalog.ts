import { archiveItem, createItem, getItem, listItems, updateItem } from '../../domain/catalog/catalog-items.ts';
import { CATALOGS, catalogListQuery } from '../../schemas/catalog.ts';
import { emptyBody } from '../../schemas/common.ts';
import { created } from '../route.ts';
import type { ServerApi } from './api.ts';
import * as v from 'valibot';
import { pagination } from '../../schemas/answers/common.ts';

/**
 * The seven catalogs (quests, rewards, badges, games, promo codes, multiplier events, levels), each
 * served by the same five routes from its description and schemas:
 * GET list, POST create (201), GET one, PATCH, DELETE (archives).
 */
export function catalogRoutes({ route, ctx }: ServerApi): void {
  for (const { kind, create, update } of CATALOGS) {
    const item = kind.schema;
    const list = v.object({ [kind.listKey]: v.array(item), pagination });
    const base = `/${kind.path}`;
    const one = `${base}/:id`;

    route('GET', base, { query: catalogListQuery, responses: { 200: list } }, ({ key, query, now }) => {
      const { items, pagination } = listItems(ctx.db, kind, key.projectId, query, now);
      return { [kind.listKey]: items, pagination };
    });

    route('POST', base, { body: create, write: true, responses: { 201: item } }, ({ key, body, now }) => created(createItem(ctx.db, kind, key.projectId, body, now)));

    route('GET', one, { responses: { 200: item } }, ({ key, param }) => getItem(ctx.db, kind, key.projectId, param('id')));

    route('PATCH', one, { body: update, write: true, responses: { 200: item } }, ({ key, body, param, now }) => updateItem(ctx.db, kind, key.projectId, param('id'), body, now));

    route('DELETE', one, { body: emptyBody, optionalBody: true, write: true, responses: { 200: item } }, ({ key, param, now }) =>
      archiveItem(ctx.db, kind, key.projectId, param('id'), now));
  }
}
