import * as v from 'valibot';
import { archiveItem, createItem, getItem, listItems, updateItem } from '../domain/catalog/catalog-items.ts';
import { CATALOGS, catalogListQuery } from '../schemas/catalog.ts';
import { emptyBody } from '../schemas/common.ts';
import { pagination } from '../schemas/answers/common.ts';
import { created, type Api } from './route.ts';
import { listAnswer, listFields } from './admin/lists.ts';

/** How a surface serves the catalog: under which path, the caller's project, what its reads and changes add to a route. */
export interface CatalogMount<C, X> {
  /** Prefixed to each kind's path: '' on /api/v1 (`/rewards`), '/catalog' in the admin. */
  base: string;
  projectOf: (caller: C) => string;
  read: X;
  change: X;
  /** Lists also answer `?format=csv` with every matching item (the admin). */
  csv?: true;
}

/**
 * The seven catalogs (quests, rewards, badges, games, promo codes, multiplier events, levels), each
 * served by the same five routes from its description and schemas: GET list, POST create (201),
 * GET one, PATCH, DELETE (archives). The server API and the admin mount them alike.
 */
export function catalogResource<C, X>({ route, ctx }: Api<C, X>, mount: CatalogMount<C, X>): void {
  const listQuery = mount.csv ? v.strictObject({ ...catalogListQuery.entries, format: listFields.format }) : catalogListQuery;
  for (const { kind, create, update } of CATALOGS) {
    const item = kind.schema;
    const list = v.object({ [kind.listKey]: v.array(item), pagination });
    const base = `${mount.base}/${kind.path}`;
    const one = `${base}/:id`;
    const columns = Object.keys(item.entries);

    route('GET', base, { ...mount.read, query: listQuery, responses: { 200: list }, ...(mount.csv ? { csv: true as const } : {}) }, (input) => {
      const query = input.query as v.InferOutput<typeof catalogListQuery> & { format?: 'json' | 'csv' };
      const project = mount.projectOf(input);
      return listAnswer(query, {
        key: kind.listKey, file: kind.path, columns, page: (limit, offset) => listItems(ctx.db, kind, project, { ...query, limit, offset }, input.now),
      });
    });

    route('POST', base, { ...mount.change, body: create, write: true, responses: { 201: item } }, (input) =>
      created(createItem(ctx.db, kind, mount.projectOf(input), input.body, input.now)));

    route('GET', one, { ...mount.read, responses: { 200: item } }, (input) => getItem(ctx.db, kind, mount.projectOf(input), input.param('id')));

    route('PATCH', one, { ...mount.change, body: update, write: true, responses: { 200: item } }, (input) =>
      updateItem(ctx.db, kind, mount.projectOf(input), input.param('id'), input.body, input.now));

    route('DELETE', one, { ...mount.change, body: emptyBody, optionalBody: true, write: true, responses: { 200: item } }, (input) =>
      archiveItem(ctx.db, kind, mount.projectOf(input), input.param('id'), input.now));
  }
}
