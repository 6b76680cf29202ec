import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../src/db/connection.ts';
import { GroupCommitter, StorageError } from '../src/db/group-commit.ts';

let dir: string;
let db: Db;
let observer: Db;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'punchcard-group-'));
  db = openDatabase(join(dir, 'g.db'));
  db.exec('CREATE TABLE items (n INTEGER NOT NULL UNIQUE)');
  observer = openDatabase(join(dir, 'g.db'));
});
afterEach(() => {
  observer.close();
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const visible = () => (observer.prepare('SELECT n FROM items ORDER BY n').all() as { n: number }[]).map((r) => r.n);
const insert = (n: number) => () => db.prepare('INSERT INTO items (n) VALUES (?)').run(n).changes;

describe('GroupCommitter', () => {
  it('commits writes of one event-loop turn in one transaction and resolves only after COMMIT', async () => {
    const committer = new GroupCommitter(db);
    const commits: number[][] = [];
    const results = [1, 2, 3].map((n) => committer.run(insert(n)).then((value) => {
      commits.push(visible()); // another connection already sees the write when the promise resolves
      return value;
    }));
    expect(visible()).toEqual([]); // nothing before the batch runs
    expect(await Promise.all(results)).toEqual([1, 1, 1]);
    expect(commits).toEqual([[1, 2, 3], [1, 2, 3], [1, 2, 3]]);
  });

  it('rolls back only the write that failed', async () => {
    const committer = new GroupCommitter(db);
    const outcomes = await Promise.allSettled([
      committer.run(insert(1)),
      committer.run(() => {
        insert(2)();
        insert(1)(); // UNIQUE violation: this write's savepoint rolls back, including its 2
      }),
      committer.run(insert(3)),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(visible()).toEqual([1, 3]);
  });

  it('splits large queues into batches of at most maxBatch', async () => {
    const committer = new GroupCommitter(db, { maxBatch: 10 });
    // While write i runs, another connection sees only what earlier batches committed.
    const committedBefore = await Promise.all(Array.from({ length: 35 }, (_, i) => committer.run(() => {
      insert(i)();
      return visible().length;
    })));
    expect(committedBefore).toEqual(Array.from({ length: 35 }, (_, i) => Math.floor(i / 10) * 10));
    expect(visible()).toHaveLength(35);
  });

  it('rejects asynchronous work instead of committing half of it', async () => {
    const committer = new GroupCommitter(db);
    await expect(committer.run(async () => insert(5)())).rejects.toThrow(/promise/);
    expect(visible()).toEqual([]);
  });

  it('drain() waits for queued writes', async () => {
    const committer = new GroupCommitter(db);
    void committer.run(insert(7));
    await committer.drain();
    expect(visible()).toEqual([7]);
  });

  it('commits background writes in a turn of their own, after the requests\' writes queued with them', async () => {
    const committer = new GroupCommitter(db);
    const order: string[] = [];
    // While each write runs, another connection shows what is committed: the request's write is
    // committed before the background one runs, so the award never waited for it in its batch.
    const background = committer.background(() => {
      order.push(`background sees ${visible().join(',')}`);
      return insert(2)();
    });
    const request = committer.run(() => {
      order.push(`request sees ${visible().join(',')}`);
      return insert(1)();
    });
    await Promise.all([background, request]);
    expect(order).toEqual(['request sees ', 'background sees 1']);
    expect(visible()).toEqual([1, 2]);
    expect(committer.foregroundWrites).toBe(1);
  });

  it('never lets a steady stream of requests starve the background, and restores the fsync after it', async () => {
    const committer = new GroupCommitter(db, { maxBackgroundBatch: 2 });
    const synchronous: number[] = [];
    // A request queued in every turn, as awards arriving faster than one commit takes.
    let n = 100;
    let stop = false;
    const requests: Promise<unknown>[] = [];
    const another = (): void => {
      if (stop) return;
      requests.push(committer.run(insert(n++)));
      setImmediate(another);
    };
    another();
    const background = await Promise.all([1, 2, 3, 4, 5].map((i) => committer.background(() => {
      synchronous.push(db.pragma('synchronous', { simple: true }) as number);
      return insert(i)();
    })));
    stop = true;
    await Promise.all(requests);
    expect(background).toEqual([1, 1, 1, 1, 1]);
    expect(synchronous).toEqual([1, 1, 1, 1, 1]); // NORMAL: no fsync of their own
    expect(db.pragma('synchronous', { simple: true })).toBe(2); // FULL again for the requests
    expect(visible().filter((v) => v < 100)).toEqual([1, 2, 3, 4, 5]);
  });

  it('fails a write that comes due after the database closed with a StorageError, not an uncaught throw', async () => {
    const own = openDatabase(join(dir, 'g.db'));
    const committer = new GroupCommitter(own);
    const late = committer.run(() => 1);
    own.close();
    await expect(late).rejects.toBeInstanceOf(StorageError);
  });

  it('drain() waits for background writes too', async () => {
    const committer = new GroupCommitter(db);
    void committer.background(insert(8));
    await committer.drain();
    expect(visible()).toEqual([8]);
  });

  it('gathers background writes into one transaction while requests come, for at most backgroundDelayMs', async () => {
    let now = 1000;
    const committer = new GroupCommitter(db, { backgroundDelayMs: 20, now: () => now });
    await committer.run(insert(100)); // a request just committed
    const turn = () => new Promise((resolve) => setImmediate(resolve));
    const seen: number[][] = [];
    const writes: Promise<unknown>[] = [];
    for (const n of [1, 2, 3]) {
      writes.push(committer.background(() => {
        seen.push(visible());
        return insert(n)();
      }));
      await turn();
      await turn();
    }
    expect(visible()).toEqual([100]); // still gathering: nothing of them committed after several turns
    now += 20;
    await Promise.all(writes);
    // One transaction: none of them saw another one committed.
    expect(seen).toEqual([[100], [100], [100]]);
    expect(visible()).toEqual([1, 2, 3, 100]);
    // With no request in the last backgroundDelayMs, a background write commits at the next turn.
    now += 20;
    await committer.background(insert(4));
    expect(visible()).toEqual([1, 2, 3, 4, 100]);
  });
});
