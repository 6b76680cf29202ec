import type Database from 'better-sqlite3';

// The programme's figures computed again, for tests, straight from the ledger and the rows it
// comes with, in plain code written apart from src/domain/analytics and migrations/0034: what
// docs/admin.md ("What the Overview counts") says in words. A test that compares the two fails
// if the rollup, its recount views or the readers drift from the definitions.

const formats = new Map<string, Intl.DateTimeFormat>();
/** The calendar date of an ISO instant in a time zone, by Intl alone. */
export function dayIn(instant: string, timeZone: string): string {
  let format = formats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
    formats.set(timeZone, format);
  }
  return format.format(new Date(instant));
}

export interface OracleDay {
  earned: number;
  earnedReversed: number;
  redeemed: number;
  redeemedReimbursed: number;
  expired: number;
  newMembers: number;
  erasedMembers: number;
  /** Members who earned (an award) or spent (a claim, a game's cost) that day. */
  active: Set<number>;
}

export interface Oracle {
  days: Map<string, OracleDay>;
  /** Every member's days of earning or spending. */
  activity: Map<number, Set<string>>;
  members: number;
  outstanding: number;
  /** Points held at the end of `day`. */
  heldAt(day: string): number;
  sources: Map<string, Map<string, { count: number; points: number }>>;
  claims: Map<string, Map<string, { count: number; points: number }>>;
  completions: Map<string, Map<string, { count: number; points: number }>>;
}

const emptyDay = (): OracleDay => ({ earned: 0, earnedReversed: 0, redeemed: 0, redeemedReimbursed: 0, expired: 0, newMembers: 0, erasedMembers: 0, active: new Set() });

function bump(map: Map<string, Map<string, { count: number; points: number }>>, day: string, item: string, points: number): void {
  const items = map.get(day) ?? new Map<string, { count: number; points: number }>();
  map.set(day, items);
  const entry = items.get(item) ?? { count: 0, points: 0 };
  entry.count += 1;
  entry.points += points;
  items.set(item, entry);
}

export function ledgerOracle(db: Database.Database, projectId: string): Oracle {
  const timeZone = db.prepare('SELECT timezone FROM projects WHERE id = ?').pluck().get(projectId) as string;
  const days = new Map<string, OracleDay>();
  const on = (instant: string) => {
    const day = dayIn(instant, timeZone);
    if (!days.has(day)) days.set(day, emptyDay());
    return days.get(day)!;
  };
  const activity = new Map<number, Set<string>>();
  const sources = new Map<string, Map<string, { count: number; points: number }>>();
  const rows = db.prepare('SELECT member_id, amount, type, source, created_at FROM transactions WHERE project_id = ? ORDER BY id').all(projectId) as {
    member_id: number; amount: number; type: string; source: string; created_at: string;
  }[];
  let outstanding = 0;
  for (const row of rows) {
    const day = on(row.created_at);
    outstanding += row.amount;
    // Awards (and imported points) are earned; any other row that gives points is spent points given back; a row that
    // takes points is expired, redeemed (rewards, game costs) or else earned points taken back.
    if ((row.type === 'EARNED' || row.type === 'IMPORTED') && row.amount > 0) day.earned += row.amount;
    else if (row.amount > 0) day.redeemedReimbursed += row.amount;
    else if (row.type === 'EXPIRED') day.expired -= row.amount;
    else if (row.type === 'REDEEMED' || row.type === 'SPENT') day.redeemed -= row.amount;
    else day.earnedReversed -= row.amount;
    const awarded = (row.type === 'EARNED' || row.type === 'IMPORTED') && row.amount > 0;
    if (awarded) bump(sources, dayIn(row.created_at, timeZone), row.source, row.amount);
    // An import is not the member's doing: only their own awards and spending make them active.
    if ((row.type === 'EARNED' && row.amount > 0) || (row.amount < 0 && (row.type === 'REDEEMED' || row.type === 'SPENT'))) {
      day.active.add(row.member_id);
      const seen = activity.get(row.member_id) ?? new Set<string>();
      seen.add(dayIn(row.created_at, timeZone));
      activity.set(row.member_id, seen);
    }
  }
  let members = 0;
  for (const m of db.prepare('SELECT created_at, erased_at FROM members WHERE project_id = ?').all(projectId) as { created_at: string; erased_at: string | null }[]) {
    on(m.created_at).newMembers++;
    members++;
    if (m.erased_at !== null) {
      on(m.erased_at).erasedMembers++;
      members--;
    }
  }
  const claims = new Map<string, Map<string, { count: number; points: number }>>();
  for (const c of db.prepare('SELECT reward_id, points_spent, created_at FROM reward_claims WHERE project_id = ?').all(projectId) as {
    reward_id: string; points_spent: number; created_at: string;
  }[]) bump(claims, dayIn(c.created_at, timeZone), c.reward_id, c.points_spent);
  const completions = new Map<string, Map<string, { count: number; points: number }>>();
  for (const q of db.prepare("SELECT quest_id, points_awarded, completed_at FROM quest_progress WHERE project_id = ? AND status = 'COMPLETED'").all(projectId) as {
    quest_id: string; points_awarded: number | null; completed_at: string;
  }[]) bump(completions, dayIn(q.completed_at, timeZone), q.quest_id, q.points_awarded ?? 0);
  const net = new Map<string, number>();
  for (const row of rows) {
    const day = dayIn(row.created_at, timeZone);
    net.set(day, (net.get(day) ?? 0) + row.amount);
  }
  const heldAt = (last: string) => [...net].filter(([day]) => day <= last).reduce((sum, [, amount]) => sum + amount, 0);
  return { days, activity, members, outstanding, heldAt, sources, claims, completions };
}

/** Items (sources, rewards, quests) summed over the days from `from` to `to`. */
export function itemsBetween(map: Map<string, Map<string, { count: number; points: number }>>, from: string, to: string) {
  const totals = new Map<string, { count: number; points: number }>();
  for (const [day, items] of map) {
    if (day < from || day > to) continue;
    for (const [item, { count, points }] of items) {
      const entry = totals.get(item) ?? { count: 0, points: 0 };
      entry.count += count;
      entry.points += points;
      totals.set(item, entry);
    }
  }
  return totals;
}
