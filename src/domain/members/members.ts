import { type Page, pageOf } from '../../shared/page.ts';
import type { Db } from '../../db/connection.ts';
import { stmt } from '../../db/statements.ts';
import { atomically } from '../../db/transaction.ts';
import { beforeCommit } from '../../db/transaction-hooks.ts';
import { badRequest, notFound } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import { levelFor } from '../levels/member-level.ts';
import type { Level } from '../catalog/level-kind.ts';
import { projectContext } from '../project/project-context.ts';
import { emit } from '../events/record-event.ts';
import { countNewMember } from '../analytics/figures.ts';

export interface MemberRow {
  /** Internal row id; foreign keys point here. */
  id: number;
  /** The `mem_…` id the API shows. */
  public_id: string;
  project_id: string;
  external_id: string;
  email: string | null;
  name: string | null;
  avatar_url: string | null;
  phone: string | null;
  date_of_birth: string | null;
  metadata: string;
  points: number;
  total_points_earned: number;
  current_streak: number;
  longest_streak: number;
  last_checkin_at: string | null;
  created_at: string;
  updated_at: string;
  erased_at: string | null;
  /** The lowest level the member holds whatever their lifetime points: a tier kept from another programme (0 = none). */
  level_floor: number;
  /** The latest local day the member earned or spent (the daily figures' active members); null before the first. */
  active_day: string | null;
}

/** The member as the server API returns it (SPEC 2, Member). */
export interface Member {
  id: string;
  externalId: string;
  email: string | null;
  name: string | null;
  avatarUrl: string | null;
  points: number;
  totalPointsEarned: number;
  currentStreak: number;
  longestStreak: number;
  metadata: Record<string, unknown>;
  createdAt: string;
  /** From lifetime earnings and the project's levels (at least a tier kept from an import); 0 (levelName null) below every level. */
  level: number;
  levelName: string | null;
}

/** The API view of a member row, given the project's levels (highest threshold first). Reads nothing. */
export const toMember = (row: MemberRow, levels: readonly Level[]): Member => ({
  id: row.public_id,
  externalId: row.external_id,
  email: row.email,
  name: row.name,
  avatarUrl: row.avatar_url,
  points: row.points,
  totalPointsEarned: row.total_points_earned,
  currentStreak: row.current_streak,
  longestStreak: row.longest_streak,
  metadata: JSON.parse(row.metadata) as Record<string, unknown>,
  createdAt: row.created_at,
  ...levelFor(levels, row.total_points_earned, row.level_floor),
});

/** toMember with the levels of the project's cached context. */
export const memberView = (db: Db, row: MemberRow): Member => toMember(row, projectContext(db, row.project_id).levels);

/** Profile fields a caller may set. `null` clears a field; an absent field is left as it is. */
export interface MemberProfile {
  email?: string | null;
  name?: string | null;
  avatarUrl?: string | null;
  phone?: string | null;
  dateOfBirth?: string | null;
  metadata?: Record<string, unknown>;
}

const PROFILE_COLUMNS = {
  email: 'email',
  name: 'name',
  avatarUrl: 'avatar_url',
  phone: 'phone',
  dateOfBirth: 'date_of_birth',
  metadata: 'metadata',
} as const satisfies Record<keyof MemberProfile, keyof MemberRow>;

type MemberValues = [
  id: number, public_id: string, project_id: string, external_id: string, email: string | null, name: string | null, avatar_url: string | null,
  phone: string | null, date_of_birth: string | null, metadata: string, points: number, total_points_earned: number,
  current_streak: number, longest_streak: number, last_checkin_at: string | null, created_at: string, updated_at: string,
  erased_at: string | null, level_floor: number, active_day: string | null,
];

const MEMBER_COLUMNS = `id, public_id, project_id, external_id, email, name, avatar_url, phone, date_of_birth, metadata, points,
  total_points_earned, current_streak, longest_streak, last_checkin_at, created_at, updated_at, erased_at, level_floor, active_day`;
const MEMBER_SELECT = `SELECT ${MEMBER_COLUMNS} FROM members`;

function toRow(values: MemberValues): MemberRow {
  const [id, public_id, project_id, external_id, email, name, avatar_url, phone, date_of_birth, metadata, points, total_points_earned,
    current_streak, longest_streak, last_checkin_at, created_at, updated_at, erased_at, level_floor, active_day] = values;
  return {
    id, public_id, project_id, external_id, email, name, avatar_url, phone, date_of_birth, metadata, points, total_points_earned,
    current_streak, longest_streak, last_checkin_at, created_at, updated_at, erased_at, level_floor, active_day,
  };
}

/**
 * Member rows are read as arrays and shaped by `toRow`: better-sqlite3 builds a row object one
 * named property at a time, and for these 19 columns that took about 6% of the award route's CPU
 * (perf). `condition` is the rest of the statement after `FROM members`.
 */
const memberStatement = (db: Db, condition: string) => stmt<MemberValues>(db, `${MEMBER_SELECT} ${condition}`).raw(true);

function selectMember(db: Db, condition: string, ...params: unknown[]): MemberRow | undefined {
  const values = memberStatement(db, condition).get(...params);
  return values && toRow(values);
}

const selectMembers = (db: Db, condition: string, ...params: unknown[]): MemberRow[] =>
  memberStatement(db, condition).all(...params).map(toRow);

export function findMember(db: Db, projectId: string, externalId: string): MemberRow | undefined {
  return selectMember(db, 'WHERE project_id = ? AND external_id = ? AND erased_at IS NULL', projectId, externalId);
}

/** The member, or 404. Every lookup is scoped to the caller's project. */
export function requireMember(db: Db, projectId: string, externalId: string): MemberRow {
  const row = findMember(db, projectId, externalId);
  if (!row) throw notFound(`No member with externalId "${externalId}" in this project`);
  return row;
}

export const memberById = (db: Db, memberId: number) => selectMember(db, 'WHERE id = ?', memberId)!;

function writeProfile(db: Db, memberId: number, profile: MemberProfile, now: Date): void {
  const fields = (Object.keys(PROFILE_COLUMNS) as (keyof MemberProfile)[]).filter((field) => profile[field] !== undefined);
  const assignments = fields.map((field) => `${PROFILE_COLUMNS[field]} = @${field}`);
  const values = Object.fromEntries(
    fields.map((field) => [field, field === 'metadata' ? JSON.stringify(profile.metadata) : profile[field]]),
  );
  stmt(db, `UPDATE members SET ${[...assignments, 'updated_at = @now'].join(', ')} WHERE id = @id`).run({ ...values, now: now.toISOString(), id: memberId });
}

/** member.created / member.updated with the member view; `extra` adds fields such as `erased`. */
export const emitMember = (db: Db, projectId: string, type: 'member.created' | 'member.updated', member: Member, now: Date, extra: Record<string, unknown> = {}) =>
  emit(db, projectId, type, { memberId: member.id, externalId: member.externalId, member, ...extra }, now);

/**
 * Indexes for search the members added since the last time: all of a transaction's new members at
 * once, just before its COMMIT (migrations/0023 says why not per insert), and at server start any
 * written outside src/db's transactions (a bulk load). Those above the highest id indexed so far
 * are the ones waiting; erased members are never indexed. Each is indexed under its project-first
 * key (migrations/0026), so a search reads its own project's range of the index.
 */
export function indexNewMembers(db: Db): void {
  const indexed = stmt<number>(db, 'SELECT indexed_up_to FROM members_search_progress').pluck().get()!;
  const newest = stmt<number | null>(db, 'SELECT max(id) FROM members').pluck().get() ?? 0;
  if (newest <= indexed) return;
  stmt(db, `INSERT INTO members_search (rowid, external_id, email, name)
    SELECT (p.search_slot << 40) + m.id, m.external_id, m.email, m.name FROM members m JOIN projects p ON p.id = m.project_id
    WHERE m.id > ? AND m.id <= ? AND m.erased_at IS NULL`).run(indexed, newest);
  stmt(db, 'UPDATE members_search_progress SET indexed_up_to = ?').run(newest);
}

/**
 * externalIds no path of the API can address, so no new member may take one: `.` and `..` are the
 * dot segments every client and proxy removes from a URL path (`/members/..` is `/`), and `lookup`
 * and `import` are routes of their own beside `/members/{externalId}` (test/member-ids.test.ts derives that list
 * from the routes). Members that already hold one stay reachable with `?externalId=` on
 * `/members/lookup` (read, export, erase) and in the CLI.
 */
export const UNADDRESSABLE_EXTERNAL_IDS: ReadonlySet<string> = new Set(['.', '..', 'lookup', 'import']);

/** The one check of that rule: every path that makes a member makes it through insertMember. */
function requireAddressable(externalId: string): void {
  if (UNADDRESSABLE_EXTERNAL_IDS.has(externalId)) {
    throw badRequest(`"externalId" must not be ".", "..", "lookup" or "import": a member's externalId goes into URL paths such as /members/{externalId}, `
      + `where those four cannot be reached (got "${externalId}")`);
  }
}

/**
 * A new member with its profile in one INSERT … RETURNING, indexed for search before the
 * transaction commits.
 */
function insertMember(db: Db, projectId: string, externalId: string, profile: MemberProfile, now: Date, joinedAt: Date): MemberRow {
  requireAddressable(externalId);
  const at = now.toISOString();
  const values = stmt<MemberValues>(db, `INSERT INTO members (public_id, project_id, external_id, email, name, avatar_url, phone, date_of_birth,
    metadata, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING ${MEMBER_COLUMNS}`).raw(true).get(
    newId('mem'), projectId, externalId, profile.email ?? null, profile.name ?? null, profile.avatarUrl ?? null, profile.phone ?? null,
    profile.dateOfBirth ?? null, JSON.stringify(profile.metadata ?? {}), joinedAt.toISOString(), at)!;
  beforeCommit(db, 'index new members', () => indexNewMembers(db));
  countNewMember(db, projectId, joinedAt);
  return toRow(values);
}

/**
 * A new member, with member.created: for a caller that has found none with `externalId`. Returns its
 * row. `joinedAt` (an import's join date in the old programme) is their creation date, in lists, the
 * event and the daily figures alike.
 */
export function createMember(db: Db, projectId: string, externalId: string, profile: MemberProfile, now: Date, joinedAt = now): MemberRow {
  return atomically(db, () => {
    const row = insertMember(db, projectId, externalId, profile, now, joinedAt);
    emitMember(db, projectId, 'member.created', memberView(db, row), now);
    return row;
  });
}

/** Creates the member, or updates the given fields of an existing one. */
export function upsertMember(
  db: Db,
  projectId: string,
  input: MemberProfile & { externalId: string },
  now: Date,
): { member: Member; created: boolean } {
  return atomically(db, () => {
    const { externalId, ...profile } = input;
    const existing = findMember(db, projectId, externalId);
    if (!existing) return { member: memberView(db, createMember(db, projectId, externalId, profile, now)), created: true };
    writeProfile(db, existing.id, profile, now);
    const member = memberView(db, memberById(db, existing.id));
    emitMember(db, projectId, 'member.updated', member, now);
    return { member, created: false };
  });
}

export function updateMember(db: Db, projectId: string, externalId: string, profile: MemberProfile, now: Date): Member {
  return atomically(db, () => {
    const row = requireMember(db, projectId, externalId);
    writeProfile(db, row.id, profile, now);
    const member = memberView(db, memberById(db, row.id));
    emitMember(db, projectId, 'member.updated', member, now);
    return member;
  });
}

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** Trigrams need three characters; shorter searches scan the project's members instead. */
export const MIN_INDEXED_SEARCH = 3;

/**
 * A search counts its matches only this far past the requested page. Counting reads every match
 * (a common surname matches 2% of a million members: 80 ms), so a broad search answers
 * `total: offset + limit + SEARCH_COUNT_AHEAD`, a lower bound, and `hasMore` stays exact.
 */
export const SEARCH_COUNT_AHEAD = 1000;

/**
 * The project's range of the search index's keys (migrations/0026): `@slot << 40` is its first,
 * and a member's key is that plus its id. Given as SQL on the bound slot, so the 64-bit keys never
 * pass through a JavaScript number.
 */
const OWN_KEYS = 'BETWEEN (@slot << 40) AND (@slot << 40) + 1099511627775';

/**
 * The index query of a search: every third trigram of it and its last (which cover every
 * character), each a quoted term. The index keeps no positions (migrations/0021), so this finds the
 * members holding those trigrams anywhere, and holdsText then keeps those that hold the text.
 */
function trigramQuery(search: string): string {
  const chars = [...search];
  const starts = new Set([...Array.from({ length: Math.floor(chars.length / 3) }, (_, i) => i * 3), chars.length - 3]);
  const terms = new Set([...starts].map((at) => chars.slice(at, at + 3).join('')));
  return [...terms].map((term) => `"${term.replaceAll('"', '""')}"`).join(' AND ');
}

/**
 * Which rows hold the search text, ignoring case. LIKE folds ASCII letters only, which is exact
 * for an ASCII search and the fastest check; a search with any other letter compares lower-cased
 * text (lower_unicode, src/db/connection.ts), one call into JavaScript per column and row.
 */
const holdsText = (table: string, ascii: boolean) => (ascii
  ? `(${table}external_id LIKE @pattern ESCAPE '\\' OR ${table}email LIKE @pattern ESCAPE '\\' OR ${table}name LIKE @pattern ESCAPE '\\')`
  : `(instr(lower_unicode(${table}external_id), @lowered) > 0 OR instr(lower_unicode(${table}email), @lowered) > 0 OR instr(lower_unicode(${table}name), @lowered) > 0)`);

const isAscii = (text: string) => !/[\u0080-\uffff]/.test(text);

/**
 * Which members a listing reads, newest first. Searches of three or more characters use the
 * trigram index (which ignores case too; holdsText then keeps exactly the members
 * holding the text). For a broad search (more matches than it counts), walking the
 * project's members newest first and probing the set of matches (`+id`: no rowid lookups) stops
 * at the page instead of reading every match to sort them.
 */
function scope(search: string, ascii: boolean): string {
  if (!search) return 'project_id = @projectId AND erased_at IS NULL';
  const holds = holdsText('', ascii);
  if ([...search].length < MIN_INDEXED_SEARCH) return `project_id = @projectId AND erased_at IS NULL AND ${holds}`;
  return `project_id = @projectId AND erased_at IS NULL
    AND +id IN (SELECT rowid - (@slot << 40) FROM members_search WHERE members_search MATCH @phrase AND rowid ${OWN_KEYS}) AND ${holds}`;
}

/**
 * An indexed search's matches as [id, created_at], up to `@countLimit`: the trigram index drives
 * (lazily, so a broad search stops at the limit), over the project's own keys only, and each
 * candidate is checked once.
 */
const indexedMatches = (ascii: boolean) => `SELECT m.id, m.created_at FROM members_search s JOIN members m ON m.id = s.rowid - (@slot << 40)
  WHERE members_search MATCH @phrase AND s.rowid ${OWN_KEYS} AND m.project_id = @projectId AND m.erased_at IS NULL AND ${holdsText('m.', ascii)}
  LIMIT @countLimit`;
const INDEXED_MATCHES = { ascii: indexedMatches(true), other: indexedMatches(false) };

const newestFirst = (a: [number, string], b: [number, string]) => (a[1] === b[1] ? b[0] - a[0] : a[1] < b[1] ? 1 : -1);

/** How a listing may be ordered (the admin's member table): newest first unless told. */
export const MEMBER_SORTS = { createdAt: 'created_at', points: 'points', totalPointsEarned: 'total_points_earned' } as const;
export interface MemberSort { sort: keyof typeof MEMBER_SORTS; order: 'asc' | 'desc' }

/**
 * Where a listing without search goes on: after the member it names, newest first. Opaque to
 * clients; it holds the member's created_at and public id (found through the project's created_at
 * index), so a page after it reads only its own rows, however deep.
 */
const cursorOf = (row: MemberRow) => Buffer.from(JSON.stringify([row.created_at, row.public_id])).toString('base64url');

function cursorPosition(db: Db, projectId: string, cursor: string): { at: string; id: number } {
  let fields: unknown;
  try {
    fields = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    fields = null;
  }
  const [at, publicId] = Array.isArray(fields) && fields.length === 2 ? fields : [];
  const id = typeof at === 'string' && typeof publicId === 'string'
    ? stmt<number>(db, 'SELECT id FROM members WHERE project_id = ? AND created_at = ? AND public_id = ?').pluck().get(projectId, at, publicId)
    : undefined;
  if (id === undefined) throw badRequest('"cursor" is not one this listing gave: use pagination.next of the page before');
  return { at: at as string, id };
}

export interface MemberPage {
  members: Member[];
  /** `next`: the cursor of the following page, when there is one and the listing has no search. */
  pagination: Page & { next?: string };
}

export function listMembers(
  db: Db,
  projectId: string,
  query: { search?: string | undefined; limit: number; offset: number; cursor?: string | undefined } & Partial<MemberSort>,
): MemberPage {
  const search = query.search ?? '';
  const countLimit = query.offset + query.limit + SEARCH_COUNT_AHEAD;
  const params = { ...searchParams(db, projectId, search), limit: query.limit, offset: query.offset, countLimit };
  const { levels } = projectContext(db, projectId);
  const page = (total: number, rows: MemberRow[]): MemberPage => ({
    members: rows.map((row) => toMember(row, levels)),
    pagination: pageOf(total, query, rows.length),
  });
  const ascii = isAscii(search);
  const where = scope(search, ascii);
  // Other orders than newest first sort the matching rows (no index: one on points would cost every award a page).
  const newestFirstOrder = (query.sort ?? 'createdAt') === 'createdAt' && query.order !== 'asc';
  const selectPage = () => selectMembers(db, `WHERE ${where} ORDER BY ${orderClause(query)} LIMIT @limit OFFSET @offset`, params);
  // Newest first also pages on by cursor; other orders by offset, within the same reach.
  if (!search && newestFirstOrder) return listing(db, where, params, query, page);
  if (!search) return page(stmt<number>(db, `SELECT count(*) FROM members WHERE ${where}`).pluck().get(params)!, selectPage());
  if ([...search].length < MIN_INDEXED_SEARCH) {
    return page(stmt<number>(db, `SELECT count(*) FROM (SELECT 1 FROM members WHERE ${where} LIMIT @countLimit)`).pluck().get(params)!, selectPage());
  }
  const matches = stmt<[number, string]>(db, INDEXED_MATCHES[ascii ? 'ascii' : 'other']).raw(true).all(params);
  if (matches.length === countLimit || !newestFirstOrder) return page(Math.min(matches.length, countLimit), selectPage());
  // Every match is in hand: the page is a slice of them, and only its members are read whole.
  const ids = matches.sort(newestFirst).slice(query.offset, query.offset + query.limit).map(([id]) => id);
  return page(matches.length, ids.map((id) => memberById(db, id)));
}

/** The bound values every listing's statements share: the project, its search slot and the search text's forms. */
function searchParams(db: Db, projectId: string, search: string) {
  return {
    projectId,
    slot: stmt<number>(db, 'SELECT search_slot FROM projects WHERE id = ?').pluck().get(projectId) ?? 0,
    pattern: `%${escapeLike(search)}%`,
    lowered: search.toLowerCase(),
    phrase: trigramQuery(search),
  };
}

/** A listing's ORDER BY: newest first unless a sort is given, the id breaking ties. */
function orderClause(query: Partial<MemberSort>): string {
  const direction = query.order === 'asc' ? 'ASC' : 'DESC';
  const column = query.sort === undefined ? 'created_at' : MEMBER_SORTS[query.sort];
  return `${column} ${direction}, id ${direction}`;
}

/**
 * Every member a listing would page through, in its order, at most `max` of them, in one
 * statement: the admin's CSV of a search or of the whole project (however many pages deep; a
 * page's reach limit is for pages, not for an export).
 */
export function allMembers(db: Db, projectId: string, query: { search?: string | undefined } & Partial<MemberSort>, max: number): Member[] {
  const search = query.search ?? '';
  const { levels } = projectContext(db, projectId);
  return selectMembers(db, `WHERE ${scope(search, isAscii(search))} ORDER BY ${orderClause(query)} LIMIT @max`, { ...searchParams(db, projectId, search), max })
    .map((row) => toMember(row, levels));
}

/** The listing without search: by offset or after a cursor, with the cursor of the page after it. */
function listing(
  db: Db, where: string, params: Record<string, unknown>, query: { limit: number; offset: number; cursor?: string | undefined },
  page: (total: number, rows: MemberRow[]) => MemberPage,
): MemberPage {
  const total = stmt<number>(db, `SELECT count(*) FROM members WHERE ${where}`).pluck().get(params)!;
  const order = 'ORDER BY created_at DESC, id DESC';
  let rows: MemberRow[];
  let hasMore: boolean;
  if (query.cursor === undefined) {
    rows = selectMembers(db, `WHERE ${where} ${order} LIMIT @limit OFFSET @offset`, params);
    hasMore = query.offset + rows.length < total;
  } else {
    const after = cursorPosition(db, params.projectId as string, query.cursor);
    rows = selectMembers(db, `WHERE ${where} AND (created_at < @at OR (created_at = @at AND id < @afterId)) ${order} LIMIT @limit + 1`,
      { ...params, at: after.at, afterId: after.id });
    hasMore = rows.length > query.limit;
    rows = rows.slice(0, query.limit);
  }
  const answer = page(total, rows);
  answer.pagination.hasMore = hasMore;
  if (hasMore && rows.length > 0) answer.pagination.next = cursorOf(rows.at(-1)!);
  return answer;
}
/**
 * The earliest live member with this email (emails are not unique), by the email index: sorting
 * its few matches (`+`) rather than walking the project's members in created_at order, which the
 * planner otherwise picks to skip the sort, reading every member of the project.
 */
export const memberByEmail = (db: Db, projectId: string, email: string): MemberRow | undefined =>
  selectMember(db, 'WHERE project_id = ? AND email = ? COLLATE NOCASE AND erased_at IS NULL ORDER BY +created_at, +id LIMIT 1', projectId, email);

/** Finds one member by email or externalId. Emails are not unique: the earliest member wins. */
export function lookupMember(db: Db, projectId: string, by: { email?: string | undefined; externalId?: string | undefined }): Member {
  const row = by.email !== undefined ? memberByEmail(db, projectId, by.email) : findMember(db, projectId, by.externalId ?? '');
  if (!row) throw notFound(`No member with ${by.email !== undefined ? `email "${by.email}"` : `externalId "${by.externalId}"`} in this project`);
  return memberView(db, row);
}
