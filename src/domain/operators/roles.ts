import { forbidden } from '../../shared/errors.ts';

/** owner: everything; staff: members, points, claims, catalog and the widget's look; viewer: reads, never a secret. */
export const ROLES = ['owner', 'staff', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

const RANK: Record<Role, number> = { viewer: 0, staff: 1, owner: 2 };

export const roleAllows = (held: Role, needed: Role) => RANK[held] >= RANK[needed];

/** 403 naming the role needed, unless `held` reaches it. */
export function requireRole(held: Role, needed: Role, what = 'This'): void {
  if (!roleAllows(held, needed)) {
    throw forbidden(`${what} needs the ${needed} role in this project${needed === 'staff' ? ' (or owner)' : ''}; you are ${held === 'owner' ? 'an' : 'a'} ${held}.`);
  }
}
