import type { Db } from './connection.ts';
import { stmt } from './statements.ts';

/**
 * Work tied to src/db's transaction boundaries (begin/end, atomically's savepoints, the group
 * committer's units), which open and close the frames:
 * - undo steps for what a transaction changed outside SQLite (an in-memory index of rows it
 *   wrote), so that memory follows the database when a transaction or one of its savepoints rolls
 *   back; a domain function registers one with onRollback();
 * - work to do once just before the COMMIT, outside every savepoint (beforeCommit()).
 */
type Frames = (() => void)[][];

const frames = new WeakMap<Db, Frames>();
/** Per connection, the open transaction's work before COMMIT, by key. */
const commitWork = new WeakMap<Db, [key: string, work: () => void][]>();

/**
 * Runs `work` once just before the open transaction commits, however many times it is asked for
 * under `key`; outside a transaction, at once. It runs even if the savepoint that asked for it
 * rolled back, so it must be right whatever the transaction wrote (a query over what is there,
 * not a list of what was asked). Used for what costs much less once per transaction than once
 * per write (the member search index: see indexNewMembers).
 */
export function beforeCommit(db: Db, key: string, work: () => void): void {
  if (!db.inTransaction) {
    work();
    return;
  }
  const pending = commitWork.get(db);
  if (!pending) commitWork.set(db, [[key, work]]);
  else if (!pending.some(([asked]) => asked === key)) pending.push([key, work]);
}

/** Per connection: work before the COMMIT of every transaction that changed rows, and the change count at its BEGIN. */
const changeWatchers = new WeakMap<Db, { work: () => void; changesAtBegin: number }>();

const totalChanges = (db: Db) => stmt<number>(db, 'SELECT total_changes()').pluck().get()!;

/**
 * Runs `work` just before the COMMIT of every transaction src/db opens on this connection that
 * changed a row, inside it: the CLI writes its audit entry this way, in the change's own
 * transaction, whichever domain function made it. Connections that never ask pay nothing.
 */
export function beforeEveryChangingCommit(db: Db, work: () => void): void {
  changeWatchers.set(db, { work, changesAtBegin: 0 });
}

/** After BEGIN (src/db's begin()). */
export function transactionOpened(db: Db): void {
  const watcher = changeWatchers.get(db);
  if (watcher) watcher.changesAtBegin = totalChanges(db);
}

/** Before COMMIT (src/db's end()); work that asks for more work runs that too. */
export function runBeforeCommit(db: Db): void {
  // The watcher first: work asked for with beforeCommit may rewrite what it wrote (an erasure scrubs the audit log).
  const watcher = changeWatchers.get(db);
  if (watcher && totalChanges(db) > watcher.changesAtBegin) watcher.work();
  const pending = commitWork.get(db);
  while (pending && pending.length > 0) pending.shift()![1]();
}

/** After COMMIT or ROLLBACK: what was not run goes with the transaction. */
export function dropBeforeCommit(db: Db): void {
  const pending = commitWork.get(db);
  if (pending) pending.length = 0;
}

/** Registers `undo` to run if the innermost open transaction or savepoint rolls back. Outside one, there is nothing to undo. */
export function onRollback(db: Db, undo: () => void): void {
  frames.get(db)?.at(-1)?.push(undo);
}

/** After BEGIN or SAVEPOINT. */
export function frameOpened(db: Db): void {
  const stack = frames.get(db);
  if (stack) stack.push([]);
  else frames.set(db, [[]]);
}

/** After RELEASE or COMMIT: a savepoint's steps join its transaction's, since it can still roll back. */
export function frameKept(db: Db): void {
  const stack = frames.get(db);
  const done = stack?.pop();
  if (done && stack!.length > 0) stack!.at(-1)!.push(...done);
}

/** After ROLLBACK or ROLLBACK TO: undoes the frame's steps, latest first. */
export function frameUndone(db: Db): void {
  const steps = frames.get(db)?.pop() ?? [];
  for (let i = steps.length - 1; i >= 0; i--) steps[i]!();
}
