import { isPlainObject } from '../../shared/objects.ts';
import type { AuditSummary } from './audit-log.ts';

/** Fields never kept, whatever their value: secrets, credentials, one-time codes. */
const SECRET = /secret|password|token|credential|signature|totp|^code$|^key$|^keys$|couponcode|digitalcontent/i;
/** Personal data, never kept: a member is named by their externalId alone. */
const PERSONAL = new Set(['email', 'phone', 'dateOfBirth', 'avatarUrl', 'metadata', 'address', 'userAgent', 'properties']);
/** Of a member, the name is personal too (of a reward or a project it is not). */
const MEMBER_PERSONAL = new Set(['name']);

const MAX_TEXT = 200;
const MAX_ITEMS = 20;
const MAX_DEPTH = 4;

export interface SummaryOptions {
  /** The change concerns a member: their name is dropped too. */
  member: boolean;
}

const dropped = (key: string, options: SummaryOptions) => SECRET.test(key) || PERSONAL.has(key) || (options.member && MEMBER_PERSONAL.has(key));

/**
 * What an audit entry keeps of a value: secrets and personal fields dropped at every depth, text
 * cut to 200 characters, at most 20 items per list and 4 levels. Undefined when nothing is left.
 */
export function auditable(value: unknown, options: SummaryOptions, depth = 0): unknown {
  if (typeof value === 'string') return value.length > MAX_TEXT ? `${value.slice(0, MAX_TEXT)}…` : value;
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return undefined;
  if (Array.isArray(value)) return value.slice(0, MAX_ITEMS).map((item) => auditable(item, options, depth + 1) ?? null);
  const kept: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    if (dropped(key, options)) continue;
    const safe = auditable(inner, options, depth + 1);
    if (safe !== undefined) kept[key] = safe;
  }
  return Object.keys(kept).length > 0 ? kept : undefined;
}

/** The fields of `state` that `shape` names, nested objects followed: what a change's "before" was. */
export function pickLike(state: unknown, shape: unknown): unknown {
  if (!isPlainObject(state) || !isPlainObject(shape)) return state;
  return Object.fromEntries(Object.keys(shape).filter((key) => key in state).map((key) => [key, pickLike(state[key], shape[key])]));
}

/** `{before, after}` as an entry keeps them; either is left out when nothing of it may be kept. */
export function summarize(change: { before?: unknown; after?: unknown }, options: SummaryOptions): AuditSummary {
  const before = auditable(change.before, options);
  const after = auditable(change.after, options);
  return { ...(before !== undefined ? { before } : {}), ...(after !== undefined ? { after } : {}) };
}
