import type { Statement } from 'better-sqlite3';
import type { Db } from './connection.ts';

const caches = new WeakMap<Db, Map<string, Statement>>();

/** Prepares `sql` once per connection and reuses it: hot paths then skip SQL parsing entirely. */
export function stmt<Row = unknown>(db: Db, sql: string): Statement<unknown[], Row> {
  let cache = caches.get(db);
  if (!cache) caches.set(db, (cache = new Map()));
  let statement = cache.get(sql);
  if (!statement) cache.set(sql, (statement = db.prepare(sql)));
  return statement as Statement<unknown[], Row>;
}
