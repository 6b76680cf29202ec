import * as v from 'valibot';
import { SERVER_FIELDS, type CatalogKind, type ItemSchema } from '../domain/catalog/catalog-items.ts';
import { CATALOG_KINDS } from '../domain/catalog/kinds.ts';
import { queryBool, queryInt } from './common.ts';

/**
 * A kind's request schemas, made from its item schema: create takes every field a client may set
 * (every field present after parsing, defaults applied); update takes any of them (null clears an
 * optional field).
 */
function requestSchemas<S extends ItemSchema>(kind: CatalogKind<S>) {
  const create = v.omit(kind.schema, SERVER_FIELDS);
  return { kind, create, update: v.partial(create) };
}

/** Each catalog kind with the valibot schemas its routes, the CLI and seed files validate with. */
export const CATALOGS = CATALOG_KINDS.map(requestSchemas);

export const catalogListQuery = v.strictObject({
  limit: v.optional(queryInt(1, 100), '50'),
  offset: v.optional(queryInt(0, Number.MAX_SAFE_INTEGER), '0'),
  active: v.optional(queryBool),
  includeArchived: v.optional(queryBool, 'false'),
});
