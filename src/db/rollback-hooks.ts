import type { Db } from './connection.ts';

/**
 * Undo steps for what a transaction changed outside SQLite (an in-memory index of rows it wrote),
 * so that memory follows the database when a transaction or one of its savepoints rolls back.
 * src/db's transaction boundaries (begin/end, atomically's savepoints, the group committer's
 * units) open and close the frames; a domain function registers a step with onRollback().
 */
type Frames = (() => void)[][];

const frames = new WeakMap<Db, Frames>();

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
