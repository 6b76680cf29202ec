// Database bytes per award, schema as it is against the schema before migration 0002, in-process
// (no HTTP) on temp files: the same members, the same awards, 50 per transaction as the group
// commit batches them. Version 1 is migration 0001 alone, written by the statements the version-1
// award ran (text primary keys, text member ids in the ledger and its index).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../src/db/connection.ts';
import { migrate, migrationsFromDir } from '../src/db/migrations.ts';
import { newId } from '../src/shared/ids.ts';
import { adjustPoints } from '../src/domain/ledger/ledger.ts';
import { upsertMember } from '../src/domain/members/members.ts';
import { createProject } from '../src/domain/project/projects.ts';
import { openStore } from '../src/db/store.ts';
import { checkpointedSize } from './dataset.ts';
import { BENCH_MASTER_KEY } from './settings.ts';

export interface BytesPerAward {
  schema: string;
  awards: number;
  bytesPerAward: number;
}

const PER_TRANSACTION = 50;

/** Seeds, then measures the checkpointed file's growth over `awards` awards made by `award(i)`. */
function growth(path: string, awards: number, award: (i: number) => void, inTransaction: (work: () => void) => void): number {
  const before = checkpointedSize(path);
  for (let i = 0; i < awards; i += PER_TRANSACTION) {
    inTransaction(() => {
      for (let j = i; j < Math.min(i + PER_TRANSACTION, awards); j++) award(j);
    });
  }
  return Math.round((checkpointedSize(path) - before) / awards);
}

async function current(dir: string, members: number, awards: number): Promise<number> {
  const path = join(dir, 'current.db');
  const store = await openStore({ path, masterKey: BENCH_MASTER_KEY });
  try {
    const { db } = store;
    const now = new Date();
    const { project } = createProject(db, store.box, { name: 'Bench' }, now);
    db.transaction(() => {
      for (let i = 0; i < members; i++) upsertMember(db, project.id, { externalId: `member-${i}` }, now);
    }).immediate();
    return growth(path, awards,
      (i) => adjustPoints(db, project.id, `member-${i % members}`, { amount: 1 }, 'sk_live_benc', new Date()),
      (work) => db.transaction(work).immediate());
  } finally {
    store.close();
  }
}

function version1(dir: string, members: number, awards: number): number {
  const path = join(dir, 'version1.db');
  const db = openDatabase(path);
  try {
    migrate(db, migrationsFromDir().filter((m) => m.version === 1));
    const now = new Date().toISOString();
    db.prepare("INSERT INTO projects (id, name, widget_secret, created_at) VALUES ('prj_bench', 'Bench', 'v1.x.y.z', ?)").run(now);
    const ids = Array.from({ length: members }, () => newId('mem'));
    const balances = new Array<number>(members).fill(0);
    db.transaction(() => {
      for (const [i, id] of ids.entries()) {
        db.prepare(`INSERT INTO members (id, project_id, external_id, created_at, updated_at) VALUES (?, 'prj_bench', ?, ?, ?)`)
          .run(id, `member-${i}`, now, now);
      }
    }).immediate();
    const findMember = db.prepare("SELECT * FROM members WHERE project_id = 'prj_bench' AND external_id = ? AND erased_at IS NULL");
    const insert = db.prepare(`INSERT INTO transactions (id, project_id, member_id, amount, balance, type, source, actor, description,
      reference_id, metadata, expires_at, created_at) VALUES (?, 'prj_bench', ?, 1, ?, 'EARNED', 'api', 'sk_live_benc', NULL, NULL, NULL, NULL, ?)`);
    const update = db.prepare('UPDATE members SET points = ?, total_points_earned = ?, updated_at = ? WHERE id = ?');
    return growth(path, awards, (i) => {
      const m = i % members;
      findMember.get(`member-${m}`);
      const at = new Date().toISOString();
      balances[m]! += 1;
      insert.run(newId('txn'), ids[m], balances[m], at);
      update.run(balances[m], balances[m], at, ids[m]);
    }, (work) => db.transaction(work).immediate());
  } finally {
    db.close();
  }
}

export async function bytesPerAward(members: number, awards: number, tempDirs: Set<string>): Promise<BytesPerAward[]> {
  const dir = mkdtempSync(join(tmpdir(), 'punchcard-bench-bytes-'));
  tempDirs.add(dir);
  try {
    return [
      { schema: 'before migration 0002 (text keys)', awards, bytesPerAward: version1(dir, members, awards) },
      { schema: 'current (integer keys)', awards, bytesPerAward: await current(dir, members, awards) },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
    tempDirs.delete(dir);
  }
}
