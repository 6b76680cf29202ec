import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../src/db/connection.ts';
import { GroupCommitter } from '../src/db/group-commit.ts';
import { atomically, readSnapshot } from '../src/db/transaction.ts';
import { beforeCommit } from '../src/db/transaction-hooks.ts';

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

describe('beforeCommit()', () => {
  /** Each run of the work records whether a transaction was open and how many rows were committed then. */
  const ran: string[] = [];
  const work = (name: string) => () => ran.push(`${name}:${db.inTransaction}:${committed().length}`);

  it('runs each key\'s work once, just before COMMIT, with the transaction open and nothing committed yet', () => {
    ran.length = 0;
    atomically(db, () => {
      insert(1);
      beforeCommit(db, 'a', work('a'));
      atomically(db, () => beforeCommit(db, 'a', work('again')));
      beforeCommit(db, 'b', work('b'));
      expect(ran).toEqual([]);
    });
    expect(ran).toEqual(['a:true:0', 'b:true:0']);
    expect(committed()).toEqual([1]);
  });

  it('runs after a savepoint that asked for it rolled back, and not at all when the transaction does', () => {
    ran.length = 0;
    atomically(db, () => {
      expect(() => atomically(db, () => {
        beforeCommit(db, 'a', work('a'));
        throw new Error('refused');
      })).toThrow('refused');
    });
    expect(ran).toEqual(['a:true:0']);
    ran.length = 0;
    expect(() => atomically(db, () => {
      beforeCommit(db, 'a', work('a'));
      throw new Error('refused');
    })).toThrow('refused');
    atomically(db, () => insert(2));
    expect(ran).toEqual([]);
  });

  it('runs once per group commit, and outside a transaction at once', async () => {
    ran.length = 0;
    const committer = new GroupCommitter(db);
    await Promise.all([1, 2, 3].map((n) => committer.run(() => {
      insert(n);
      beforeCommit(db, 'a', work('a'));
    })));
    expect(ran).toEqual(['a:true:0']);
    beforeCommit(db, 'a', work('now'));
    expect(ran).toEqual(['a:true:0', 'now:false:3']);
  });

  it('rolls the whole transaction back when the work fails', () => {
    expect(() => atomically(db, () => {
      insert(1);
      beforeCommit(db, 'a', () => insert(1));
    })).toThrow(/UNIQUE/);
    expect(committed()).toEqual([]);
    expect(db.inTransaction).toBe(false);
  });
});

// Read routes run their handler in readSnapshot (src/http/route.ts): one read lock for all their
// statements instead of one per statement, and one state for all of them.
describe('readSnapshot()', () => {
  const count = () => db.prepare('SELECT count(*) FROM items').pluck().get();
  const commitElsewhere = (n: number) => observer.prepare('INSERT INTO items (n) VALUES (?)').run(n);

  it('reads one state: a commit by another connection meanwhile is seen only after it', () => {
    insert(1);
    const seen = readSnapshot(db, () => {
      const before = count();
      commitElsewhere(2);
      return [before, count()];
    });
    expect(seen).toEqual([1, 1]);
    expect(db.inTransaction).toBe(false);
    expect(count()).toBe(2);
    // Outside it, each statement sees the latest commit.
    const before = count();
    commitElsewhere(3);
    expect([before, count()]).toEqual([2, 3]);
  });

  it('refuses a write, ends its transaction when the work throws, and runs inside an open one as it is', () => {
    expect(() => readSnapshot(db, () => atomically(db, () => insert(1)))).toThrow(/write inside readSnapshot/);
    expect(() => readSnapshot(db, () => { throw new Error('read failed'); })).toThrow('read failed');
    expect(db.inTransaction).toBe(false);
    expect(committed()).toEqual([]);
    atomically(db, () => readSnapshot(db, () => insert(4)));
    expect(committed()).toEqual([4]);
  });
});
