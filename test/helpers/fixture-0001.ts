import type { Db } from '../../src/db/connection.ts';
import { migrate, migrationsFromDir } from '../../src/db/migrations.ts';
import { newId } from '../../src/shared/ids.ts';

/**
 * Builds a database at schema version 1 holding what the code of that version wrote: text
 * primary keys, text member ids in the ledger and the lots, idempotency records keyed by
 * (project, key), an erased member whose externalId became its own id. The statements are those
 * the version-1 domain functions ran, so migration 0002 is tested on data of the real shape.
 */
export function buildVersion1Database(db: Db) {
  migrate(db, migrationsFromDir().filter((m) => m.version === 1));
  const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 0, minute)).toISOString();
  const projects = ['prj_fixtureA', 'prj_fixtureB'];
  for (const id of projects) {
    db.prepare("INSERT INTO projects (id, name, widget_secret, created_at) VALUES (?, ?, 'v1.x.y.z', ?)").run(id, id, at(0));
  }

  const members: { id: string; projectId: string; externalId: string; points: number; earned: number }[] = [];
  const addMember = (projectId: string, externalId: string, profile: { email?: string; name?: string }, minute: number) => {
    const member = { id: newId('mem'), projectId, externalId, points: 0, earned: 0 };
    db.prepare(`INSERT INTO members (id, project_id, external_id, email, name, metadata, created_at, updated_at)
      VALUES (?, ?, ?, ?, ?, '{"tier":"gold"}', ?, ?)`).run(member.id, projectId, externalId, profile.email ?? null, profile.name ?? null, at(minute), at(minute));
    members.push(member);
    return member;
  };
  const post = (member: (typeof members)[number], amount: number, minute: number, expiresAt?: string) => {
    const id = newId('txn');
    member.points += amount;
    member.earned += Math.max(amount, 0);
    db.prepare(`INSERT INTO transactions (id, project_id, member_id, amount, balance, type, source, actor, description,
      reference_id, metadata, expires_at, created_at) VALUES (?, ?, ?, ?, ?, ?, 'api', 'sk_live_fixt', ?, NULL, NULL, ?, ?)`)
      .run(id, member.projectId, member.id, amount, member.points, amount > 0 ? 'EARNED' : 'DEDUCTED', `move ${amount}`, expiresAt ?? null, at(minute));
    // Deductions draw from the (single) expiring lot first, as version 1 did.
    if (amount < 0) db.prepare('UPDATE point_lots SET remaining = max(remaining + ?, 0) WHERE member_id = ?').run(amount, member.id);
    if (expiresAt) {
      db.prepare('INSERT INTO point_lots (transaction_id, project_id, member_id, remaining, expires_at) VALUES (?, ?, ?, ?, ?)')
        .run(id, member.projectId, member.id, amount, expiresAt);
    }
    db.prepare('UPDATE members SET points = ?, total_points_earned = ? WHERE id = ?').run(member.points, member.earned, member.id);
    return id;
  };

  let minute = 1;
  for (const [p, projectId] of projects.entries()) {
    for (let i = 0; i < 6; i++) {
      const member = addMember(projectId, `shopper-${i}`, { email: `shopper${i}@p${p}.example`, name: `Shopper ${i} Ünïcode` }, minute++);
      post(member, 100 + i, minute++);
      post(member, 25, minute++, '2026-06-01T00:00:00.000Z');
      post(member, -(10 + i), minute++);
    }
  }
  const erased = addMember(projects[0]!, 'erase-me@example.com', { email: 'erase-me@example.com', name: 'Gone' }, minute++);
  post(erased, 40, minute++);
  db.prepare(`UPDATE members SET external_id = id, email = NULL, name = NULL, metadata = '{}', erased_at = ? WHERE id = ?`)
    .run(at(minute++), erased.id);

  db.prepare(`INSERT INTO idempotency_keys (project_id, key, fingerprint, status, body, created_at) VALUES (?, 'retry-1', 'f1', 200, ?, ?)`)
    .run(projects[0], JSON.stringify({ replayed: 'body' }), at(minute++));
  return { projects, members, erased };
}
