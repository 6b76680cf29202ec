import type { Statement } from 'better-sqlite3';
import type { Db } from './connection.ts';

const caches = new WeakMap<Db, Map<string, Statement>>();

/** Prepares `sql` once per connection and reuses it: hot paths then skip SQL parsing entirely. */
export function stmt<Row = unknown>(db: Db, sql: string): Statement<unknown[], Row> {
  let cache = caches.get(db);
  if (!cache) {
    cache = new Map();
    caches.set(db, cache);
  }
  let statement = cache.get(sql);
  if (!statement) {
    statement = db.prepare(sql);
    cache.set(sql, statement);
  }
  return statement as Statement<unknown[], Row>;
}
