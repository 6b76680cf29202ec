// In-process ledger rate: awards per second through adjustPoints, without HTTP, on a temp file.
//   one per transaction:  adjustPoints on its own (it opens BEGIN IMMEDIATE … COMMIT itself)
//   grouped:              `perTransaction` awards inside one db.transaction(…).immediate()
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkLedger } from '../src/domain/audit.ts';
import type { Synchronous } from '../src/db/connection.ts';
import { adjustPoints } from '../src/domain/ledger.ts';
import { upsertMember } from '../src/domain/members.ts';
import { createProject } from '../src/domain/projects.ts';
import { openStore } from '../src/store.ts';

export interface LedgerRate {
  synchronous: Synchronous;
  perTransaction: number;
  awards: number;
  seconds: number;
  awardsPerSecond: number;
  /** The ledger invariant held and every award was written. */
  verified: boolean;
}

export async function ledgerRate(
  synchronous: Synchronous,
  perTransaction: number,
  awards: number,
  options: { members: number; tempDirs: Set<string> },
): Promise<LedgerRate> {
  const dir = mkdtempSync(join(tmpdir(), 'punchcard-bench-ledger-'));
  options.tempDirs.add(dir);
  try {
    const store = await openStore({ path: join(dir, 'ledger.db'), synchronous, masterKey: '00'.repeat(32) });
    try {
      const { db } = store;
      const { project } = createProject(db, store.box, { name: 'Bench' }, new Date());
      const externalIds = Array.from({ length: options.members }, (_, i) => `member-${i}`);
      db.transaction(() => {
        for (const externalId of externalIds) upsertMember(db, project.id, { externalId }, new Date());
      }).immediate();
      const award = (i: number) => adjustPoints(db, project.id, externalIds[i % externalIds.length]!, { amount: 1 }, 'bench', new Date());
      const batch = db.transaction((from: number, to: number) => {
        for (let i = from; i < to; i++) award(i);
      });

      const warmUp = 1000; // untimed, so the first case does not also pay for JIT compilation
      for (let i = 0; i < warmUp; i += 50) batch.immediate(i, i + 50);

      const start = process.hrtime.bigint();
      if (perTransaction === 1) {
        for (let i = 0; i < awards; i++) award(i);
      } else {
        for (let i = 0; i < awards; i += perTransaction) batch.immediate(i, Math.min(i + perTransaction, awards));
      }
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;

      const written = (db.prepare('SELECT count(*) AS n FROM transactions').get() as { n: number }).n;
      const verified = written === warmUp + awards && checkLedger(db).length === 0;
      return { synchronous, perTransaction, awards, seconds, awardsPerSecond: Math.round(awards / seconds), verified };
    } finally {
      store.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    options.tempDirs.delete(dir);
  }
}
