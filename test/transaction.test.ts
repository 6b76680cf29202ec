import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../src/db/connection.ts';
import { GroupCommitter } from '../src/db/group-commit.ts';
import { atomically } from '../src/db/transaction.ts';

let dir: string;
let db: Db;
let observer: Db;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'punchcard-transaction-'));
  db = openDatabase(join(dir, 't.db'));
  db.exec('CREATE TABLE items (n INTEGER NOT NULL UNIQUE)');
  observer = openDatabase(join(dir, 't.db'));
});
afterEach(() => {
  observer.close();
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const committed = () => observer.prepare('SELECT n FROM items ORDER BY n').pluck().all();
const insert = (n: number) => db.prepare('INSERT INTO items (n) VALUES (?)').run(n);

/** Inserts `n`, then fails: what a domain function does when it refuses after writing. */
const failAfterInserting = (n: number) => atomically(db, () => {
  insert(n);
  throw new Error(`refused ${n}`);
});

describe('atomically()', () => {
  it('on its own is one transaction: all of it commits, or none of it', () => {
    atomically(db, () => { insert(1); insert(2); });
    expect(() => atomically(db, () => { insert(3); insert(1); })).toThrow(/UNIQUE/);
    expect(committed()).toEqual([1, 2]);
    expect(db.inTransaction).toBe(false);
  });

  it('nested, is a savepoint: a failure the outer work catches undoes only the inner writes', () => {
    atomically(db, () => {
      insert(1);
      expect(() => failAfterInserting(2)).toThrow('refused 2');
      insert(3);
      // Two levels deep: the middle level keeps its own write and loses only the innermost one.
      atomically(db, () => {
        insert(4);
        expect(() => failAfterInserting(5)).toThrow('refused 5');
      });
    });
    expect(committed()).toEqual([1, 3, 4]);
  });

  it('nested, rolls back with the outer transaction when that fails', () => {
    expect(() => atomically(db, () => {
      atomically(db, () => insert(1));
      throw new Error('outer fails');
    })).toThrow('outer fails');
    expect(committed()).toEqual([]);
  });

  it('inside a group commit, keeps the write whose caught inner failure was undone, and the batch', async () => {
    const committer = new GroupCommitter(db);
    const outcomes = await Promise.allSettled([
      committer.run(() => insert(1)),
      committer.run(() => {
        insert(2);
        expect(() => failAfterInserting(3)).toThrow('refused 3');
        return atomically(db, () => insert(4)).changes;
      }),
      committer.run(() => failAfterInserting(5)),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'fulfilled', 'rejected']);
    expect(committed()).toEqual([1, 2, 4]);
  });

  it('keeps the group committer\'s savepoint journals in memory, not in a temporary file', () => {
    new GroupCommitter(db);
    expect(db.pragma('temp_store', { simple: true })).toBe(2); // MEMORY
  });

  it('refuses work that returns a promise, and leaves no savepoint or transaction open', () => {
    expect(() => atomically(db, () => Promise.resolve())).toThrow(/cannot return a promise/);
    expect(db.inTransaction).toBe(false);
    atomically(db, () => {
      expect(() => atomically(db, () => { insert(1); return Promise.resolve(); })).toThrow(/cannot return a promise/);
      insert(2);
    });
    expect(committed()).toEqual([2]);
  });
});
