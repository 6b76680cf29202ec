import type { Db } from '../../db/connection.ts';
import { stmt } from '../../db/statements.ts';
import { atomically } from '../../db/transaction.ts';
import { badRequest, conflict, notFound } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import { type AuditActor, recordAudit } from '../audit/audit-log.ts';
import { getSettings } from '../project/settings.ts';
import { createInvite, endOpenLinks, openInvite, useInvite } from './invites.ts';
import { forgetDevices } from './devices.ts';
import { endAllSessions } from './sessions.ts';
import type { Role } from './roles.ts';

export interface OperatorRow {
  id: string;
  email: string;
  name: string | null;
  password_hash: string | null;
  totp_secret: string | null;
  totp_pending: string | null;
  totp_last_step: number;
  created_at: string;
  last_sign_in_at: string | null;
  password_changed_at: string | null;
}

/** An operator as the admin shows them to themselves (Session.operator). */
export interface OperatorView {
  id: string;
  email: string;
  name: string | null;
  totpEnabled: boolean;
}

/** A project as an operator sees it in the switcher. */
export interface OperatorProject {
  id: string;
  name: string;
  role: Role;
  timezone: string;
  /** The project asks its owners for a second factor (settings `admin.ownerTotpRequired`). */
  ownerTotpRequired: boolean;
}

const OPERATOR_SELECT = `SELECT id, email, name, password_hash, totp_secret, totp_pending, totp_last_step, created_at, last_sign_in_at,
  password_changed_at FROM operators`;

export const operatorView = (row: OperatorRow): OperatorView => ({ id: row.id, email: row.email, name: row.name, totpEnabled: row.totp_secret !== null });

export const findOperatorByEmail = (db: Db, email: string): OperatorRow | undefined => stmt<OperatorRow>(db, `${OPERATOR_SELECT} WHERE email = ?`).get(email.trim());

export function requireOperator(db: Db, operatorId: string): OperatorRow {
  const row = stmt<OperatorRow>(db, `${OPERATOR_SELECT} WHERE id = ?`).get(operatorId);
  if (!row) throw notFound(`No operator with id "${operatorId}"`);
  return row;
}

export function requireOperatorByEmail(db: Db, email: string): OperatorRow {
  const row = findOperatorByEmail(db, email);
  if (!row) throw notFound(`No operator with email "${email}"; \`punchcard admin list\` shows them`);
  return row;
}

export const countOperators = (db: Db): number => stmt<number>(db, 'SELECT count(*) FROM operators').pluck().get()!;

/** The operator's role in the project, or undefined: a project they hold no role in does not exist for them. */
export const roleIn = (db: Db, operatorId: string, projectId: string): Role | undefined =>
  stmt<Role>(db, 'SELECT role FROM operator_roles WHERE operator_id = ? AND project_id = ? AND accepted_at IS NOT NULL').pluck().get(operatorId, projectId);

/** The projects the operator belongs to, by name. */
export function operatorProjects(db: Db, operatorId: string): OperatorProject[] {
  return stmt<{ id: string; name: string; role: Role; timezone: string }>(db, `SELECT p.id, p.name, r.role, p.timezone FROM operator_roles r
    JOIN projects p ON p.id = r.project_id WHERE r.operator_id = ? AND r.accepted_at IS NOT NULL ORDER BY p.name, p.id`).all(operatorId)
    .map((project) => ({ ...project, ownerTotpRequired: getSettings(db, project.id).admin.ownerTotpRequired }));
}

export interface ProjectOperator {
  id: string;
  email: string;
  name: string | null;
  role: Role;
  totpEnabled: boolean;
  lastSignInAt: string | null;
  invitedAt: string;
  /** Invited, and the link not used yet. */
  pending: boolean;
}

/** GET /operators: the project's operators, by email. */
export function projectOperators(db: Db, projectId: string): ProjectOperator[] {
  return stmt<OperatorRow & { role: Role; invited_at: string; accepted_at: string | null }>(db, `SELECT o.id, o.email, o.name, o.totp_secret,
    o.last_sign_in_at, r.role, r.invited_at, r.accepted_at FROM operator_roles r JOIN operators o ON o.id = r.operator_id WHERE r.project_id = ?
    ORDER BY o.email`).all(projectId)
    .map((row) => ({
      id: row.id, email: row.email, name: row.name, role: row.role, totpEnabled: row.totp_secret !== null, lastSignInAt: row.last_sign_in_at,
      invitedAt: row.invited_at, pending: row.accepted_at === null,
    }));
}

/** `punchcard admin list`: every operator with their roles. */
export function allOperators(db: Db): { id: string; email: string; name: string | null; pending: boolean; totpEnabled: boolean; lastSignInAt: string | null;
  roles: { projectId: string; role: Role; pending: boolean }[] }[] {
  const roles = stmt<{ operator_id: string; project_id: string; role: Role; accepted_at: string | null }>(db,
    'SELECT operator_id, project_id, role, accepted_at FROM operator_roles ORDER BY project_id').all();
  return stmt<OperatorRow>(db, `${OPERATOR_SELECT} ORDER BY email`).all().map((row) => ({
    id: row.id, email: row.email, name: row.name, pending: row.password_hash === null, totpEnabled: row.totp_secret !== null, lastSignInAt: row.last_sign_in_at,
    roles: roles.filter((role) => role.operator_id === row.id).map((role) => ({ projectId: role.project_id, role: role.role, pending: role.accepted_at === null })),
  }));
}

export interface Invited {
  operator: ProjectOperator;
  /** The one-time link's token; null when the operator already has a password (they simply see the project at their next request). */
  token: string | null;
}

/**
 * Gives `email` the role in the project, creating the operator if there is none. An operator with
 * a password has the role at once and gets no link: a link sets the account's password, and no
 * project's owner may set the password of someone who works for another. Without a password the
 * role waits for this invite's link (valid 24 hours, single use), where they choose one.
 */
export function inviteOperator(db: Db, input: { email: string; role: Role; projectId: string }, now: Date): Invited {
  return atomically(db, () => {
    if (stmt(db, 'SELECT 1 FROM projects WHERE id = ?').get(input.projectId) === undefined) throw notFound(`No project with id "${input.projectId}"`);
    const at = now.toISOString();
    let operator = findOperatorByEmail(db, input.email);
    if (!operator) {
      stmt(db, 'INSERT INTO operators (id, email, created_at) VALUES (?, ?, ?)').run(newId('opr'), checkEmail(input.email), at);
      operator = findOperatorByEmail(db, input.email)!;
    }
    const current = roleIn(db, operator.id, input.projectId);
    if (current !== undefined && current !== input.role) leaveOwnersBehind(db, input.projectId, operator.id, input.role);
    const active = operator.password_hash !== null;
    stmt(db, `INSERT INTO operator_roles (operator_id, project_id, role, invited_at, accepted_at) VALUES (@operator, @project, @role, @at, @accepted)
      ON CONFLICT (operator_id, project_id) DO UPDATE SET role = excluded.role, accepted_at = coalesce(operator_roles.accepted_at, excluded.accepted_at)`)
      .run({ operator: operator.id, project: input.projectId, role: input.role, at, accepted: active ? at : null });
    if (current !== undefined && current !== input.role) endAllSessions(db, operator.id);
    const token = active ? null : createInvite(db, operator.id, { projectId: input.projectId, role: input.role }, now);
    return { operator: projectOperators(db, input.projectId).find((one) => one.id === operator.id)!, token };
  });
}

/** A project keeps at least one owner: refuses a change that would leave it none. */
function leaveOwnersBehind(db: Db, projectId: string, operatorId: string, newRole: Role | null): void {
  if (newRole === 'owner' || roleIn(db, operatorId, projectId) !== 'owner') return;
  const owners = stmt<number>(db, "SELECT count(*) FROM operator_roles WHERE project_id = ? AND role = 'owner' AND accepted_at IS NOT NULL")
    .pluck().get(projectId)!;
  if (owners <= 1) throw conflict('This is the project\'s last owner; make someone else owner first.');
}

/** The operator's role in the project, accepted or not (an owner changes and removes invited operators too). */
function requireMembership(db: Db, projectId: string, operatorId: string): Role {
  const role = stmt<Role>(db, 'SELECT role FROM operator_roles WHERE operator_id = ? AND project_id = ?').pluck().get(operatorId, projectId);
  if (role === undefined) throw notFound(`No operator with id "${operatorId}" in this project`);
  return role;
}

/** PATCH /operators/:id: a new role in the project; the operator's sessions end (they sign in again with it). */
export function setOperatorRole(db: Db, projectId: string, operatorId: string, role: Role): ProjectOperator {
  return atomically(db, () => {
    if (requireMembership(db, projectId, operatorId) !== role) {
      leaveOwnersBehind(db, projectId, operatorId, role);
      stmt(db, 'UPDATE operator_roles SET role = ? WHERE operator_id = ? AND project_id = ?').run(role, operatorId, projectId);
      endAllSessions(db, operatorId);
    }
    return projectOperators(db, projectId).find((one) => one.id === operatorId)!;
  });
}

/** DELETE /operators/:id: takes the operator out of the project (their account stays for their other projects); their sessions end. */
export function removeFromProject(db: Db, projectId: string, operatorId: string): { success: true; deleted: string } {
  return atomically(db, () => {
    requireMembership(db, projectId, operatorId);
    leaveOwnersBehind(db, projectId, operatorId, null);
    stmt(db, 'DELETE FROM operator_roles WHERE operator_id = ? AND project_id = ?').run(operatorId, projectId);
    stmt(db, 'DELETE FROM operator_invites WHERE operator_id = ? AND project_id = ?').run(operatorId, projectId);
    endAllSessions(db, operatorId);
    return { success: true, deleted: operatorId };
  });
}

/** `punchcard admin remove EMAIL`: deletes the account, its roles, links, sessions and devices. */
export function removeOperator(db: Db, email: string): { id: string; email: string } {
  return atomically(db, () => {
    const operator = requireOperatorByEmail(db, email);
    stmt(db, 'DELETE FROM operators WHERE id = ?').run(operator.id);
    return { id: operator.id, email: operator.email };
  });
}

/**
 * `punchcard admin reset EMAIL`: the password and the second factor are cleared, every session,
 * device and open link ends, and a new one-time link lets the operator choose a password again.
 */
export function resetOperator(db: Db, email: string, now: Date): { operator: OperatorView; token: string; sessionsEnded: number } {
  return atomically(db, () => {
    const operator = requireOperatorByEmail(db, email);
    stmt(db, 'UPDATE operators SET password_hash = NULL, totp_secret = NULL, totp_pending = NULL WHERE id = ?').run(operator.id);
    const sessionsEnded = endAllSessions(db, operator.id);
    forgetDevices(db, operator.id);
    endOpenLinks(db, operator.id, now);
    const token = createInvite(db, operator.id, null, now);
    return { operator: operatorView(requireOperator(db, operator.id)), token, sessionsEnded };
  });
}

/** Writes a new password hash; every other session and device of the operator ends (`keepSession`: the one that changed it). */
export function setPassword(db: Db, operatorId: string, passwordHash: string, now: Date, keepSession = 0): void {
  atomically(db, () => {
    stmt(db, 'UPDATE operators SET password_hash = ?, password_changed_at = ? WHERE id = ?').run(passwordHash, now.toISOString(), operatorId);
    endAllSessions(db, operatorId, keepSession);
    forgetDevices(db, operatorId);
  });
}

export function setOperatorName(db: Db, operatorId: string, name: string | null): void {
  stmt(db, 'UPDATE operators SET name = ? WHERE id = ?').run(name, operatorId);
}

/** The operator as the audit log names them. */
export const operatorActor = (operator: OperatorRow): AuditActor => ({ type: 'operator', id: operator.id, label: operator.email });

/**
 * An invite's link used: the password chosen there (hashed before the write: scrypt is slow), the
 * name given, the role accepted, every other open link ended, and for a project's invite its audit
 * entry. Returns the operator, to sign them in.
 */
export function acceptInvite(db: Db, token: string, passwordHash: string, name: string | undefined, now: Date): OperatorRow {
  return atomically(db, () => {
    const invite = openInvite(db, token, now);
    setPassword(db, invite.operatorId, passwordHash, now);
    if (name !== undefined) setOperatorName(db, invite.operatorId, name);
    useInvite(db, invite, now);
    const operator = requireOperator(db, invite.operatorId);
    if (invite.projectId !== null) {
      recordAudit(db, {
        projectId: invite.projectId, actor: operatorActor(operator), action: 'invite accepted', target: operator.id, summary: { after: { role: invite.role } },
      }, now);
    }
    return operator;
  });
}

export function recordSignIn(db: Db, operatorId: string, now: Date): void {
  stmt(db, 'UPDATE operators SET last_sign_in_at = ? WHERE id = ?').run(now.toISOString(), operatorId);
}

/** Refuses an email that is not one (the CLI passes what the user typed). */
export function checkEmail(email: string): string {
  const trimmed = email.trim();
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(trimmed) || trimmed.length > 254) throw badRequest(`"${email}" is not an email address.`);
  return trimmed;
}
