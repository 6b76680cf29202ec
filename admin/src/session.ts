// Who is signed in, in which projects, with which role: the session answer (POST/GET /api/admin/session).

export type Role = 'owner' | 'staff' | 'viewer';

export interface Project {
  id: string; name: string; role: Role; timezone: string;
  /** The project asks its owners for a second factor (settings `admin.ownerTotpRequired`). */
  ownerTotpRequired: boolean;
}

export interface Session {
  operator: { id: string; email: string; name: string | null; totpEnabled: boolean };
  csrfToken: string;
  projects: Project[];
}

const RANK: Record<Role, number> = { viewer: 0, staff: 1, owner: 2 };

/**
 * Whether `role` may do what needs `needed`: staff change members, points, claims, catalog and the
 * widget's look; owners everything; viewers read. Buttons a role may not use are not shown (the
 * server refuses them anyway).
 */
export const allows = (role: Role, needed: Role) => RANK[role] >= RANK[needed];

/** What every page is given. */
export interface PageProps {
  params: Record<string, string>;
  query: URLSearchParams;
  session: Session;
  /** The project in the path; for sign-in and the invite page, the operator's first (or none). */
  project: Project;
  setSession: (session: Session | null) => void;
}
